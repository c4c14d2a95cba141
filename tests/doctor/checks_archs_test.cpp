// Compiled architectures against each GPU's compute capability (arch_compat.cpp,
// checks_archs.cpp). The rules: NVIDIA CUDA C++ Programming Guide, "Binary Compatibility"
// (machine code for X.y runs on X.z, z >= y) and "PTX Compatibility" (PTX for X.y is
// JIT-compiled for any capability >= X.y); arch-specific 'a' targets run only on their own
// capability.
#include <gtest/gtest.h>

#include "doctor/arch_compat.h"
#include "doctor/fake_machine.h"

namespace gpuprobe::doctor {
namespace {

using testing::Arg;
using testing::FakeMachine;
using testing::NoNvml;
using testing::Nvml;
using testing::One;
using testing::Says;

std::string Names(const std::vector<CompiledArch>& archs) {
  std::string out;
  for (const auto& a : archs) out += (out.empty() ? "" : " ") + a.Name();
  return out;
}

TEST(ArchList, ReadsFrameworkListsAndOnlyTheCodeTargetsOfNvccFlags) {
  EXPECT_EQ(Names(ParseArchList("sm_75 sm_80 sm_86 sm_90 sm_100 sm_120")),
            "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120");
  EXPECT_EQ(Names(ParseArchList("sm_60,sm_70,compute_80")), "sm_60 sm_70 compute_80");
  // arch=compute_80 is only the virtual architecture that produced sm_80: no PTX is embedded.
  EXPECT_EQ(
      Names(ParseArchList(
          "-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90]")),
      "sm_80 sm_90 compute_90");
  EXPECT_EQ(Names(ParseArchList("sm_90a sm_100f sm_90a")), "sm_90a sm_100f");
  EXPECT_TRUE(ParseArchList("3.5 7.0").empty());
}

TEST(ArchMatch, MachineCodeRunsOnLaterMinorsOfItsMajorOnly) {
  auto archs = ParseArchList("sm_80 sm_86");
  EXPECT_EQ(MatchArch(archs, 8, 9).used, "sm_86");  // an Ada GPU runs the sm_86 code
  EXPECT_EQ(MatchArch(archs, 8, 0).used, "sm_80");
  EXPECT_EQ(MatchArch(archs, 9, 0).match, ArchMatch::kNone);  // never across a major
  EXPECT_EQ(MatchArch(ParseArchList("sm_86"), 8, 0).match,
            ArchMatch::kNone);  // never to an earlier minor
}

TEST(ArchMatch, PtxIsJitCompiledForAnyLaterCapability) {
  auto archs = ParseArchList("sm_80 compute_80");
  EXPECT_EQ(MatchArch(archs, 8, 0).match, ArchMatch::kMachineCode);
  ArchVerdict v = MatchArch(archs, 12, 0);
  EXPECT_EQ(v.match, ArchMatch::kPtxJit);
  EXPECT_EQ(v.used, "compute_80");
  EXPECT_EQ(MatchArch(ParseArchList("compute_90"), 8, 9).match,
            ArchMatch::kNone);  // not to an older GPU
}

TEST(ArchMatch, ArchSpecificTargetsRunOnlyOnTheirCapabilityAndFamilyOnesWithinTheMajor) {
  EXPECT_EQ(MatchArch(ParseArchList("sm_90a"), 9, 0).match, ArchMatch::kMachineCode);
  EXPECT_EQ(MatchArch(ParseArchList("sm_100a compute_100a"), 10, 3).match, ArchMatch::kNone);
  EXPECT_EQ(MatchArch(ParseArchList("sm_100f"), 10, 3).match, ArchMatch::kMachineCode);
  EXPECT_EQ(MatchArch(ParseArchList("compute_90a"), 10, 0).match, ArchMatch::kNone);
}

TEST(ComputeCapability, Parses) {
  int major = 0, minor = 0;
  EXPECT_TRUE(ParseComputeCapability("12.0", &major, &minor));
  EXPECT_EQ(major, 12);
  EXPECT_FALSE(ParseComputeCapability("9", &major, &minor));
  EXPECT_FALSE(ParseComputeCapability("", &major, &minor));
}

TEST(CompiledArchs, MachineCodePtxOnlyAndNoImage) {
  FakeMachine m("h200-node");
  m.Python(R"({"torch": {"version": "2.3.0", "cuda": "12.1", "archs": "sm_80 sm_86 sm_90"}})");
  CheckResult r = One("compiled_archs", m.Env(), Nvml("590.48.01", "9.0"));
  EXPECT_EQ(r.status, CheckStatus::kOk);
  EXPECT_EQ(Arg(r, "used"), "sm_90");
  r = One("compiled_archs", m.Env(), Nvml("590.48.01", "12.0"));
  EXPECT_EQ(r.status, CheckStatus::kFail);
  EXPECT_TRUE(Says(r, "doctor.check.compiled_archs.no_image"));
  EXPECT_EQ(Arg(r, "sm"), "sm_120");
  EXPECT_EQ(r.fix.key, "doctor.check.compiled_archs.fix");
  m.Python(
      R"({"tensorflow": {"version": "2.20.0", "cuda": "12.5.1", "archs": "sm_60 sm_70 sm_80 compute_90"}})");
  r = One("compiled_archs", m.Env(), Nvml("590.48.01", "12.0"));
  EXPECT_EQ(r.status, CheckStatus::kWarn);
  EXPECT_EQ(Arg(r, "used"), "compute_90");
  EXPECT_EQ(Arg(r, "name"), "TensorFlow");
}

TEST(CompiledArchs, OneResultPerGpuAndFramework) {
  FakeMachine m("h200-node");
  m.Python(R"({"torch": {"version": "2.8.0", "cuda": "12.8", "archs": "sm_80 sm_90"},
              "tensorflow": {"version": "2.20.0", "cuda": "12.5.1", "archs": "sm_80 compute_90"}})");
  NvmlView two = Nvml("590.48.01", "9.0");
  two.gpus.push_back(two.gpus[0]);
  two.gpus[1].index = 1;
  two.gpus[1].compute_capability = "";  // an old driver that does not report it
  auto r = RunCheck("compiled_archs", m.Env(), two);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 3u);
  EXPECT_TRUE(Says(r->at(2), "doctor.check.compiled_archs.no_capability"));
}

TEST(CompiledArchs, SkipsWithoutAFrameworkOrAGpu) {
  FakeMachine m("h200-node");
  m.Python(
      R"({"torch": {"version": "2.8.0+cpu", "cuda": "", "cpu_only": true}, "jax": {"version": "0.7.1", "cuda": "12"}})");
  EXPECT_TRUE(Says(One("compiled_archs", m.Env(), Nvml("590.48.01", "9.0")),
                   "doctor.check.compiled_archs.no_framework"));
  m.Python(R"({"torch": {"version": "2.8.0", "cuda": "12.8", "archs": "sm_90"}})");
  CheckResult r = One("compiled_archs", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kSkip);
  EXPECT_TRUE(Says(r, "doctor.check.compiled_archs.no_gpu"));
}

}  // namespace
}  // namespace gpuprobe::doctor
