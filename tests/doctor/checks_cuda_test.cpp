// CUDA versions against the driver (checks_cuda.cpp, compat_verdict.cpp): the driver's
// ceiling, forward compatibility, and every installed toolkit.
#include <gtest/gtest.h>

#include "doctor/fake_machine.h"

namespace gpuprobe::doctor {
namespace {

using testing::Arg;
using testing::FakeMachine;
using testing::NoNvml;
using testing::Nvml;
using testing::One;
using testing::Says;

constexpr const char* kNvcc130 = "Cuda compilation tools, release 13.0, V13.0.88";

TEST(DriverCuda, NvmlsCeilingWinsAndMinorCompatibilityIsNamed) {
  FakeMachine m("h200-node");
  CheckResult r = One("driver_cuda", m.Env(), Nvml("580.95.05", "9.0", "13.0"));
  EXPECT_EQ(r.status, CheckStatus::kInfo);
  EXPECT_EQ(Arg(r, "ceiling"), "13.0");
  EXPECT_EQ(r.values["source"], "nvml");
  // 13.1 and later exist, and 580 is the CUDA 13.x floor.
  EXPECT_TRUE(Says(r, "doctor.check.driver_cuda.minor_compat"));
  EXPECT_EQ(Arg(r, "floor"), "580");
}

TEST(DriverCuda, FromTheTableWithoutNvml) {
  FakeMachine m("h200-node");
  m.Module("535.104.05", false);
  CheckResult r = One("driver_cuda", m.Env(), NoNvml());
  EXPECT_EQ(Arg(r, "ceiling"), "12.2");
  EXPECT_EQ(r.values["source"], "table");
  m.Module("999.1");  // newer than the table: said as "and perhaps newer"
  EXPECT_TRUE(
      Says(One("driver_cuda", m.Env(), NoNvml()), "doctor.check.driver_cuda.ceiling_or_newer"));
  m.Module("340.108");
  EXPECT_TRUE(
      Says(One("driver_cuda", m.Env(), NoNvml()), "doctor.check.driver_cuda.older_than_table"));
}

TEST(DriverCuda, NoMinorCompatibilitySentenceAtTheLastMinorOfAMajor) {
  FakeMachine m("h200-node");
  CheckResult r = One("driver_cuda", m.Env(), Nvml("575.57.08", "9.0", "12.9"));
  EXPECT_FALSE(Says(r, "doctor.check.driver_cuda.minor_compat"));
}

TEST(DriverCuda, ForwardCompatibilityLibcudaOnTheLibraryPath) {
  FakeMachine m("h200-node");
  m.Module("535.104.05", false);
  m.Write("usr/local/cuda-13.0/compat/libcuda.so.580.65.06", "");
  m.Set("LD_LIBRARY_PATH", "/usr/local/cuda-13.0/compat:/usr/lib");
  CheckResult r = One("driver_cuda", m.Env(), Nvml("535.104.05", "9.0", "12.2"));
  EXPECT_TRUE(Says(r, "doctor.check.driver_cuda.forward_compat"));
  EXPECT_EQ(Arg(r, "ceiling"), "13.0");
  EXPECT_EQ(Arg(r, "kernel"), "535.104.05");
  // Toolkits are then checked against the forward-compatibility driver.
  CheckResult t = One("toolkit", m.Env(), Nvml("535.104.05", "9.0", "12.2"));
  EXPECT_EQ(t.status, CheckStatus::kOk);
}

TEST(DriverCuda, NoDriverSkipsSayingWhy) {
  FakeMachine gpu;
  gpu.Gpu("0000:83:00.0", "");
  EXPECT_TRUE(Says(One("driver_cuda", gpu.Env(), NoNvml()), "doctor.check.driver_cuda.no_driver"));
  FakeMachine none("no-gpu");
  CheckResult r = One("driver_cuda", none.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kSkip);
  EXPECT_TRUE(Says(r, "doctor.check.driver_cuda.no_gpu"));
}

TEST(Toolkit, FindsEveryNvccOnceThroughTheSymlink) {
  FakeMachine m("h200-node");
  m.Program("nvcc", "Cuda compilation tools, release 12.8, V12.8.93", "usr/local/cuda-12.8/bin");
  auto results = RunCheck("toolkit", m.Env(), Nvml("590.48.01", "9.0", "13.1"));
  ASSERT_TRUE(results.ok());
  ASSERT_EQ(results->size(), 2u);  // cuda -> cuda-13.0 is not counted twice
  for (const auto& r : *results) EXPECT_EQ(r.status, CheckStatus::kOk) << Arg(r, "path");
  EXPECT_EQ(Arg(results->at(0), "path"), "/usr/local/cuda/bin/nvcc");
  EXPECT_EQ(Arg(results->at(0), "version"), "13.0");
  EXPECT_EQ(Arg(results->at(1), "path"), "/usr/local/cuda-12.8/bin/nvcc");
}

TEST(Toolkit, NewerThanTheDriverFailsAcrossAMajor) {
  FakeMachine m("h200-node");
  m.Module("535.104.05", false);
  CheckResult r = One("toolkit", m.Env(), Nvml("535.104.05", "9.0", "12.2"));
  EXPECT_EQ(r.status, CheckStatus::kFail);
  EXPECT_TRUE(Says(r, "doctor.check.compat.too_old"));
  EXPECT_EQ(Arg(r, "needed"), "580.65.06");
  EXPECT_EQ(r.fix.key, "doctor.check.compat.too_old_fix_toolkit");
  EXPECT_EQ(Arg(r, "package"), "cuda-compat-13-0");
  EXPECT_EQ(Arg(r, "ceiling"), "12.2");
}

TEST(Toolkit, NewerMinorWithinTheMajorWarns) {
  FakeMachine m;
  m.Program("nvcc", "Cuda compilation tools, release 12.8, V12.8.93");
  m.Module("535.104.05", false);
  CheckResult r = One("toolkit", m.Env(), Nvml("535.104.05", "9.0", "12.2"));
  EXPECT_EQ(r.status, CheckStatus::kWarn);
  EXPECT_EQ(r.fix.key, "doctor.check.compat.minor_fix_toolkit");
}

TEST(Toolkit, WithoutADriverSaysWhichDriverItNeeds) {
  FakeMachine m("no-gpu");
  m.Program("nvcc", kNvcc130);
  CheckResult r = One("toolkit", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kInfo);
  EXPECT_TRUE(Says(r, "doctor.check.compat.no_driver"));
  EXPECT_EQ(Arg(r, "needed"), "580.65.06");
  m.Program("nvcc", "Cuda compilation tools, release 8.0, V8.0.61");  // older than the table
  EXPECT_TRUE(Says(One("toolkit", m.Env(), NoNvml()), "doctor.check.compat.no_driver_unknown"));
}

TEST(Toolkit, AReleaseNewerThanTheTable) {
  FakeMachine m;
  m.Module("610.43.02");
  m.Program("nvcc", "Cuda compilation tools, release 13.9, V13.9.1");
  CheckResult r = One("toolkit", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kInfo);
  EXPECT_TRUE(Says(r, "doctor.check.compat.unknown_newer"));
  m.Program("nvcc", "Cuda compilation tools, release 8.0, V8.0.61");
  EXPECT_TRUE(Says(One("toolkit", m.Env(), NoNvml()), "doctor.check.compat.unknown"));
  m.Module("535.104.05");  // a 13.x release the table lacks is still too new for 535
  m.Program("nvcc", "Cuda compilation tools, release 13.9, V13.9.1");
  EXPECT_EQ(One("toolkit", m.Env(), NoNvml()).status, CheckStatus::kFail);
}

TEST(Toolkit, ADriverOlderThanTheTableGetsTheDriverFixOnly) {
  FakeMachine m;
  m.Module("340.108");
  m.Program("nvcc", kNvcc130);
  EXPECT_EQ(One("toolkit", m.Env(), NoNvml()).fix.key, "doctor.check.compat.too_old_fix_driver");
}

TEST(Toolkit, NoneInstalledSaysHowToGetTheMatchingOne) {
  FakeMachine m;
  m.Module("580.95.05");
  CheckResult r = One("toolkit", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kInfo);
  EXPECT_EQ(r.fix.key, "doctor.check.toolkit.none_fix_for_driver");
  EXPECT_EQ(Arg(r, "package"), "cuda-toolkit-13-0");
  FakeMachine none("no-gpu");
  EXPECT_EQ(One("toolkit", none.Env(), NoNvml()).fix.key, "doctor.check.toolkit.none_fix");
}

}  // namespace
}  // namespace gpuprobe::doctor
