// NVML (checks_nvml.cpp): loads, starts, lists the GPUs, matches the kernel module; each
// nvmlInit failure worded from NVML's return code.
#include <gtest/gtest.h>

#include "doctor/fake_machine.h"
#include "telemetry/nvml_abi.h"

namespace gpuprobe::doctor {
namespace {

using testing::Arg;
using testing::FakeMachine;
using testing::NoNvml;
using testing::Nvml;
using testing::One;
using testing::Says;

NvmlView InitFailed(int code, const std::string& text) {
  NvmlView v;
  v.failure = NvmlView::Failure::kInitFailed;
  v.init_code = code;
  v.nvml_text = text;
  return v;
}

TEST(Nvml, LoadedAndMatchingIsOk) {
  FakeMachine m("h200-node");
  CheckResult r = One("nvml", m.Env(), Nvml("590.48.01", "9.0", "13.1"));
  EXPECT_EQ(r.status, CheckStatus::kOk);
  EXPECT_EQ(Arg(r, "ceiling"), "13.1");
  NvmlView no_ceiling = Nvml("590.48.01", "9.0", "");
  EXPECT_TRUE(Says(One("nvml", m.Env(), no_ceiling), "doctor.check.nvml.ok_no_ceiling"));
}

TEST(Nvml, LibraryNewerThanTheKernelModuleFails) {
  FakeMachine m("h200-node");
  m.Module("550.90.07");
  CheckResult r = One("nvml", m.Env(), Nvml("550.127.05", "9.0"));
  EXPECT_EQ(r.status, CheckStatus::kFail);
  EXPECT_EQ(Arg(r, "library"), "550.127.05");
  EXPECT_EQ(Arg(r, "module"), "550.90.07");
  EXPECT_EQ(r.fix.key, "doctor.check.nvml.mismatch_fix");
}

TEST(Nvml, NoGpuListedWhileThePciBusHasOneWarns) {
  FakeMachine m("h200-node");
  NvmlView empty = Nvml("590.48.01", "9.0");
  empty.gpus.clear();
  CheckResult r = One("nvml", m.Env(), empty);
  EXPECT_EQ(r.status, CheckStatus::kWarn);
  EXPECT_EQ(Arg(r, "pci"), "1");
}

TEST(Nvml, EachInitFailureIsWordedFromItsCode) {
  FakeMachine m("h200-node");
  struct Case {
    int code;
    const char* key;
  } cases[] = {{NVML_ERROR_DRIVER_NOT_LOADED, "doctor.check.nvml.driver_not_loaded"},
               {NVML_ERROR_LIB_RM_VERSION_MISMATCH, "doctor.check.nvml.init_mismatch"},
               {NVML_ERROR_NO_PERMISSION, "doctor.check.nvml.denied"},
               {NVML_ERROR_OPERATING_SYSTEM, "doctor.check.nvml.denied"},
               {NVML_ERROR_GPU_IS_LOST, "doctor.check.nvml.gpu_lost"},
               {NVML_ERROR_UNKNOWN, "doctor.check.nvml.init_other"}};
  for (const Case& c : cases) {
    CheckResult r = One("nvml", m.Env(), InitFailed(c.code, "Unknown Error"));
    EXPECT_EQ(r.status, CheckStatus::kFail) << c.key;
    EXPECT_TRUE(Says(r, c.key)) << c.key;
    EXPECT_FALSE(r.fix.empty()) << c.key;
    EXPECT_EQ(r.values["init_code"], c.code);
  }
  EXPECT_EQ(Arg(One("nvml", m.Env(), InitFailed(NVML_ERROR_UNKNOWN, "Unknown Error")), "nvml_text"),
            "Unknown Error");
}

TEST(Nvml, NotInstalledFailsWithAGpuAndSkipsWithout) {
  FakeMachine gpu;
  gpu.Gpu("0000:83:00.0", "");
  CheckResult r = One("nvml", gpu.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kFail);
  EXPECT_EQ(r.fix.key, "doctor.check.nvml.install_fix");
  EXPECT_EQ(r.values["detail"], "NVML (libnvidia-ml.so.1) cannot be loaded");
  FakeMachine none("no-gpu");
  r = One("nvml", none.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kSkip);
  EXPECT_TRUE(Says(r, "doctor.check.nvml.no_gpu"));
  // Libraries installed (say, in a CUDA image) on a machine with no GPU and no module.
  r = One("nvml", none.Env(), InitFailed(NVML_ERROR_DRIVER_NOT_LOADED, "Driver Not Loaded"));
  EXPECT_EQ(r.status, CheckStatus::kSkip);
  EXPECT_TRUE(Says(r, "doctor.check.nvml.no_gpu_libraries"));
}

TEST(Nvml, StartedButUnreadableFails) {
  FakeMachine m("h200-node");
  NvmlView v;
  v.failure = NvmlView::Failure::kReadFailed;
  CheckResult r = One("nvml", m.Env(), v);
  EXPECT_EQ(r.status, CheckStatus::kFail);
  EXPECT_TRUE(Says(r, "doctor.check.nvml.read_failed"));
}

}  // namespace
}  // namespace gpuprobe::doctor
