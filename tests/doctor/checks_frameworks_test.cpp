// The Python frameworks (checks_frameworks.cpp, framework_probe.cpp): what python3 reports,
// and each framework's CUDA build against the driver.
#include <gtest/gtest.h>

#include "doctor/fake_machine.h"
#include "doctor/framework_probe.h"

namespace gpuprobe::doctor {
namespace {

using testing::Arg;
using testing::FakeMachine;
using testing::NoNvml;
using testing::Nvml;
using testing::One;
using testing::Says;

std::vector<CheckResult> Frameworks(const FakeMachine& m, const NvmlView& nvml) {
  auto r = RunCheck("frameworks", m.Env(), nvml);
  EXPECT_TRUE(r.ok());
  return r.ok() ? *r : std::vector<CheckResult>();
}

const CheckResult* ById(const std::vector<CheckResult>& results, const std::string& id) {
  for (const auto& r : results) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

TEST(FrameworkProbe, ParsesEveryFrameworkInOrderAndRefusesGarbage) {
  FrameworkReport r = ParseFrameworkReport(
      R"({"cupy": {"version": "13.6.0", "cuda": "12.9"}, "torch": {"version": "2.8.0", "cuda": "12.8", "archs": "sm_90"},
          "tensorflow": {"version": "2.20.0", "cuda": "", "cpu_only": true}, "jax": {"error": "ImportError: libcudnn.so.9"}})");
  ASSERT_EQ(r.outcome, FrameworkReport::Outcome::kRan);
  ASSERT_EQ(r.found.size(), 4u);
  EXPECT_EQ(r.found[0].id, "pytorch");
  EXPECT_EQ(r.found[0].archs, "sm_90");
  EXPECT_EQ(r.found[1].id, "tensorflow");
  EXPECT_TRUE(r.found[1].cpu_only);
  EXPECT_EQ(r.found[2].error, "ImportError: libcudnn.so.9");
  EXPECT_EQ(r.found[3].name, "CuPy");
  EXPECT_EQ(ParseFrameworkReport("Traceback (most recent call last):").outcome,
            FrameworkReport::Outcome::kUnreadable);
  EXPECT_EQ(ParseFrameworkReport("[1, 2]").outcome, FrameworkReport::Outcome::kUnreadable);
}

TEST(FrameworkProbe, TheLastLineIsTheReportWhateverPrintsBeforeIt) {
  FakeMachine m;
  m.Python("a framework's banner\n{\"torch\": {\"version\": \"2.8.0\", \"cuda\": \"12.8\"}}");
  FrameworkReport r = ProbeFrameworks(m.Env());
  ASSERT_EQ(r.found.size(), 1u);
  EXPECT_EQ(r.found[0].cuda, "12.8");
}

TEST(Frameworks, NoPythonSkipsWithHowToGetIt) {
  FakeMachine m;  // nothing on PATH
  CheckResult r = One("frameworks", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kSkip);
  EXPECT_EQ(r.fix.key, "doctor.check.frameworks.no_python_fix");
}

TEST(Frameworks, NoneInstalledIsInfoAndAnUnreadableReportWarns) {
  FakeMachine m;
  m.Python("{}");
  CheckResult r = One("frameworks", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kInfo);
  EXPECT_EQ(r.fix.key, "doctor.check.frameworks.none_fix");
  m.Python("Segmentation fault");
  r = One("frameworks", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kWarn);
  EXPECT_TRUE(Says(r, "doctor.check.frameworks.unreadable"));
}

TEST(Frameworks, AHealthyPyTorch) {
  FakeMachine m("h200-node");
  std::filesystem::copy_file(
      std::filesystem::path(GPUPROBE_FIXTURES_DIR) / "doctor/bin-torch/python3",
      m.root() / "bin/python3", std::filesystem::copy_options::overwrite_existing);
  auto results = Frameworks(m, Nvml("590.48.01", "9.0", "13.1"));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].id, "pytorch");
  EXPECT_EQ(results[0].status, CheckStatus::kOk);
  EXPECT_TRUE(Says(results[0], "doctor.check.compat.ok"));
  EXPECT_EQ(Arg(results[0], "needed"), "570.26");
}

TEST(Frameworks, EachFrameworkIsCheckedAgainstTheDriverAlike) {
  FakeMachine m("h200-node");
  m.Module("535.104.05", false);
  m.Python(
      R"({"torch": {"version": "2.8.0", "cuda": "12.8"}, "tensorflow": {"version": "2.20.0", "cuda": "12.5.1"},
              "jax": {"version": "0.7.1", "cuda": "13.0"}, "cupy": {"version": "13.6.0", "cuda": "12.2"}})");
  auto results = Frameworks(m, Nvml("535.104.05", "9.0", "12.2"));
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(ById(results, "pytorch")->status,
            CheckStatus::kWarn);  // 12.8 on 535: minor-version compatibility
  EXPECT_EQ(ById(results, "pytorch")->fix.key, "doctor.check.compat.minor_fix_framework");
  EXPECT_EQ(ById(results, "tensorflow")->status,
            CheckStatus::kWarn);                                // 12.5.1 reads as the 12.5 row
  EXPECT_EQ(ById(results, "jax")->status, CheckStatus::kFail);  // CUDA 13 needs a 580 driver
  EXPECT_EQ(ById(results, "jax")->fix.key, "doctor.check.compat.too_old_fix_framework");
  EXPECT_EQ(Arg(*ById(results, "jax"), "url"), "https://docs.jax.dev/en/latest/installation.html");
  EXPECT_EQ(ById(results, "cupy")->status, CheckStatus::kOk);  // 535.104.05 >= 535.54.03 for 12.2
}

TEST(Frameworks, AWheelNamedOnlyForAMajorIsCheckedAgainstTheMajorsFloor) {
  FakeMachine m("h200-node");
  m.Module("520.61.05", false);
  m.Python(R"({"jax": {"version": "0.7.1", "cuda": "12"}})");
  CheckResult r = One("frameworks", m.Env(), Nvml("520.61.05", "9.0", "11.8"));
  EXPECT_TRUE(Says(r, "doctor.check.framework.build_major"));
  EXPECT_EQ(r.status, CheckStatus::kFail);  // below 525.60.13, the CUDA 12.x floor
  EXPECT_EQ(Arg(r, "package"), "cuda-compat-12-9");
  m.Module("525.60.13", false);
  EXPECT_EQ(One("frameworks", m.Env(), Nvml("525.60.13", "9.0", "12.0")).status, CheckStatus::kOk);
}

TEST(Frameworks, ACpuOnlyBuildWarnsOnlyWhereThereIsAGpu) {
  FakeMachine gpu("h200-node");
  gpu.Python(R"({"torch": {"version": "2.8.0+cpu", "cuda": "", "cpu_only": true}})");
  CheckResult r = One("frameworks", gpu.Env(), Nvml("590.48.01", "9.0"));
  EXPECT_EQ(r.status, CheckStatus::kWarn);
  EXPECT_EQ(r.fix.key, "doctor.check.framework.cuda_build_fix");
  FakeMachine none("no-gpu");
  none.Python(R"({"torch": {"version": "2.8.0+cpu", "cuda": "", "cpu_only": true}})");
  r = One("frameworks", none.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kInfo);
  EXPECT_TRUE(r.fix.empty());
}

TEST(Frameworks, AFailedImportFailsAndAnUnreadableCudaIsInfo) {
  FakeMachine m("h200-node");
  m.Python(
      R"({"torch": {"error": "OSError: libcudnn.so.9: cannot open shared object file"}, "cupy": {"version": "13.6.0", "cuda": ""}})");
  auto results = Frameworks(m, Nvml("590.48.01", "9.0"));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(ById(results, "pytorch")->status, CheckStatus::kFail);
  EXPECT_EQ(Arg(*ById(results, "pytorch"), "module"), "torch");
  EXPECT_EQ(ById(results, "cupy")->status, CheckStatus::kInfo);
  EXPECT_TRUE(Says(*ById(results, "cupy"), "doctor.check.framework.cuda_unread"));
}

TEST(Frameworks, WithoutADriverSaysWhichDriverTheBuildNeeds) {
  FakeMachine m("no-gpu");
  m.Python(R"({"torch": {"version": "2.8.0", "cuda": "12.8"}})");
  CheckResult r = One("frameworks", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kInfo);
  EXPECT_EQ(Arg(r, "needed"), "570.26");
}

}  // namespace
}  // namespace gpuprobe::doctor
