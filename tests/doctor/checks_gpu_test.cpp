// Per GPU (checks_gpu.cpp): persistence mode, ECC and MIG from NVML, and the smoke test
// through a fake KernelRunner.
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

class FakeKernels : public KernelRunner {
 public:
  bool built = true;
  core::Result<Outcome> result = Outcome{1 << 20, true, 0};
  bool Built() const override { return built; }
  core::Result<Outcome> Run(int) const override { return result; }
};

std::vector<CheckResult> Settings(const FakeMachine& m, const NvmlView& nvml) {
  auto r = RunCheck("gpu_settings", m.Env(), nvml);
  EXPECT_TRUE(r.ok());
  return r.ok() ? *r : std::vector<CheckResult>();
}

TEST(GpuSettings, PersistenceOnIsOkAndOffWarns) {
  FakeMachine m("h200-node");
  NvmlView nvml = Nvml("590.48.01", "9.0");
  auto r = Settings(m, nvml);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].id, "persistence");
  EXPECT_EQ(r[0].status, CheckStatus::kOk);
  nvml.gpus[0].persistence_mode = false;
  r = Settings(m, nvml);
  EXPECT_EQ(r[0].status, CheckStatus::kWarn);
  EXPECT_EQ(r[0].fix.key, "doctor.check.gpu_settings.persistence_fix");
}

TEST(GpuSettings, UncorrectableEccErrorsFailAndMigIsInfo) {
  FakeMachine m("h200-node");
  NvmlView nvml = Nvml("590.48.01", "9.0");
  nvml.gpus[0].ecc_enabled = true;
  nvml.gpus[0].ecc_uncorrected_volatile = 0;
  nvml.gpus[0].mig_enabled = true;
  auto r = Settings(m, nvml);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[1].id, "ecc");
  EXPECT_EQ(r[1].status, CheckStatus::kOk);
  EXPECT_EQ(r[2].id, "mig");
  EXPECT_EQ(r[2].status, CheckStatus::kInfo);
  nvml.gpus[0].ecc_uncorrected_volatile = 3;
  r = Settings(m, nvml);
  EXPECT_EQ(r[1].status, CheckStatus::kFail);
  EXPECT_EQ(Arg(r[1], "count"), "3");
  EXPECT_EQ(Arg(r[1], "index"), "0");
}

TEST(GpuSettings, SkipsWithoutGpusOrWhenNothingIsReported) {
  FakeMachine m("no-gpu");
  CheckResult r = One("gpu_settings", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kSkip);
  EXPECT_TRUE(Says(r, "doctor.check.gpu_settings.no_gpu"));
  NvmlView bare = Nvml("590.48.01", "9.0");
  bare.gpus[0].persistence_mode.reset();
  EXPECT_TRUE(Says(One("gpu_settings", m.Env(), bare), "doctor.check.gpu_settings.not_reported"));
}

TEST(SmokeTest, VerifiedWrongAndFailedRuns) {
  FakeMachine m("h200-node");
  NvmlView nvml = Nvml("590.48.01", "9.0");
  FakeKernels kernels;
  CheckResult r = One("smoke_test", m.Env(), nvml, &kernels);
  EXPECT_EQ(r.status, CheckStatus::kOk);
  EXPECT_EQ(Arg(r, "elements"), "1048576");
  kernels.result = KernelRunner::Outcome{1000, false, 7};
  r = One("smoke_test", m.Env(), nvml, &kernels);
  EXPECT_EQ(r.status, CheckStatus::kFail);
  EXPECT_EQ(Arg(r, "mismatches"), "7");
  kernels.result = core::Status::Unavailable("CUDA error 999: unknown error");
  r = One("smoke_test", m.Env(), nvml, &kernels);
  EXPECT_EQ(r.status, CheckStatus::kFail);
  EXPECT_EQ(Arg(r, "error"), "CUDA error 999: unknown error");
  EXPECT_EQ(r.fix.key, "doctor.check.smoke_test.error_fix");
}

TEST(SmokeTest, EachReasonNotToRunIsSaid) {
  FakeMachine m("h200-node");
  FakeKernels kernels;
  EXPECT_TRUE(
      Says(One("smoke_test", m.Env(), NoNvml(), &kernels), "doctor.check.smoke_test.no_gpu"));
  EXPECT_TRUE(Says(One("smoke_test", m.Env(), Nvml("590.48.01", "9.0"), nullptr),
                   "doctor.check.smoke_test.not_requested"));
  kernels.built = false;
  CheckResult r = One("smoke_test", m.Env(), Nvml("590.48.01", "9.0"), &kernels);
  EXPECT_EQ(r.status, CheckStatus::kSkip);
  EXPECT_EQ(r.fix.key, "doctor.check.smoke_test.not_built_fix");
}

}  // namespace
}  // namespace gpuprobe::doctor
