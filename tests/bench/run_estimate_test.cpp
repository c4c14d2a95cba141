// The plan's duration of a case follows the runner's own loop: checked against CollectSamples
// driven by a fake instance and a fake clock, from microsecond kernels to second-long ones.
#include "bench/run_estimate.h"

#include <gtest/gtest.h>

#include "bench/gpu_kernel_math.h"
#include "bench/runner.h"
#include "knowledge/embedded_knowledge.h"

namespace gpuprobe::bench {
namespace {

// Each RunOnce takes `t` per repetition, batched as the GPU cases batch them, on a fake clock;
// the returned times wobble by 10% so the runner never stops early on a small spread.
class FakeGpuInstance : public BenchmarkInstance {
 public:
  FakeGpuInstance(double t, double* clock) : t_(t), clock_(clock) {}
  core::Result<double> RunOnce() override {
    double wall = gpu::BatchRepetitions(t_) * t_ + kSampleOverheadSeconds;
    if (first_) wall += 2 * t_;  // the calibration
    first_ = false;
    *clock_ += wall;
    return t_ * ((++n_ % 2) != 0 ? 0.9 : 1.1);
  }
  Verification Verify() override { return {}; }

 private:
  double t_;
  double* clock_;
  bool first_ = true;
  int n_ = 0;
};

TEST(RunEstimateTest, SamplingTimeFollowsTheRunnersLoop) {
  for (RunnerOptions options : {FullRunnerOptions(), QuickRunnerOptions()}) {
    options.max_seconds = 0.5;  // gpu-check's --seconds 0.5
    options.min_seconds = std::min(options.min_seconds, 0.5);
    for (double t : {2e-6, 1e-4, 7e-4, 0.045, 1.2}) {
      double clock = 0;
      options.now = [&clock] { return clock; };
      FakeGpuInstance instance(t, &clock);
      ASSERT_TRUE(CollectSamples(instance, options).ok());
      double estimate = EstimateSamplingSeconds(options, t);
      EXPECT_NEAR(estimate, clock, 0.15 * clock + 0.01) << "t=" << t;
    }
  }
}

TEST(RunEstimateTest, WithoutAModelTheFloorIsTheTimeCap) {
  RunnerOptions options = FullRunnerOptions();
  options.max_seconds = 0.5;
  options.min_seconds = 0.5;
  double floor = EstimateSamplingSeconds(options, std::nullopt);
  EXPECT_GT(floor, 0.5);
  EXPECT_LT(floor, 0.7);
}

TEST(RunEstimateTest, APlannedH200LooksLikeTheRuntimesH200) {
  const model::GpuSpec* h200 = knowledge::DeviceSpec("NVIDIA H200");
  ASSERT_NE(h200, nullptr);
  PlannedGpu gpu(*h200);
  EXPECT_EQ(gpu.BackendName(), "cuda");
  EXPECT_EQ(gpu.Figures().sm_count, 132);
  EXPECT_EQ(gpu.Figures().l2_bytes, 50ull << 20);
  EXPECT_NEAR(static_cast<double>(gpu.FreeBytes()), 143157.0 * (1 << 20), 1e6);  // 143771 - 614 MiB
  EXPECT_EQ(GpuFactsOf(&gpu), &gpu);
}

}  // namespace
}  // namespace gpuprobe::bench
