#include "bench/runner.h"

#include <gtest/gtest.h>

#include "fakes/fake_benchmark.h"

namespace gpuprobe::bench {
namespace {

using gpuprobe::testing::FakeInstance;

RunnerOptions Options(FakeInstance* fake) {
  RunnerOptions o;
  o.warmup_runs = 1;
  o.min_samples = 5;
  o.min_seconds = 0.05;
  o.max_seconds = 1.0;
  o.max_samples = 100;
  o.target_spread = 0.02;
  o.now = [fake] { return fake->now(); };
  return o;
}

TEST(Runner, DiscardsWarmupAndStopsOnceStableAfterMinimums) {
  FakeInstance fake({0.01});
  auto samples = CollectSamples(fake, Options(&fake));
  ASSERT_TRUE(samples.ok());
  // 1 warm-up + 5 samples (min count; 5 x 0.01 s = min time; spread 0 <= target).
  EXPECT_EQ(fake.calls(), 6);
  EXPECT_EQ(samples->size(), 5u);
}

TEST(Runner, KeepsGoingUntilTheMinimumTime) {
  FakeInstance fake({0.001});
  auto samples = CollectSamples(fake, Options(&fake));
  ASSERT_TRUE(samples.ok());
  EXPECT_EQ(samples->size(), 50u);  // 50 x 1 ms reaches the 0.05 s minimum
}

TEST(Runner, NoisySamplesRunToTheTimeCap) {
  FakeInstance fake({0.01, 0.02, 0.015, 0.03});
  auto options = Options(&fake);
  auto samples = CollectSamples(fake, options);
  ASSERT_TRUE(samples.ok());
  double total = 0;
  for (double s : *samples) total += s;
  EXPECT_GE(total, options.max_seconds);
  EXPECT_LT(total, options.max_seconds + 0.031);
}

TEST(Runner, StopsAtTheSampleCap) {
  FakeInstance fake({1e-6, 2e-6});
  auto options = Options(&fake);
  options.max_samples = 7;
  auto samples = CollectSamples(fake, options);
  ASSERT_TRUE(samples.ok());
  EXPECT_EQ(samples->size(), 7u);
}

TEST(Runner, AnErrorStopsCollection) {
  FakeInstance fake({0.01});
  fake.FailAt(3);
  auto samples = CollectSamples(fake, Options(&fake));
  ASSERT_FALSE(samples.ok());
  EXPECT_EQ(samples.status().message(), "scripted failure");
}

TEST(Runner, ValuesAndEfficienciesFollowTheMetric) {
  Work w;
  w.bytes_read = 2e9;
  w.bytes_written = 1e9;
  w.flops = 4e9;
  w.items = 1e6;
  EXPECT_DOUBLE_EQ(MetricValue(Metric::kBandwidth, w, 0.5), 6e9);
  EXPECT_DOUBLE_EQ(MetricValue(Metric::kFlops, w, 0.5), 8e9);
  EXPECT_DOUBLE_EQ(MetricValue(Metric::kLatency, w, 0.1), 1e-7);
  EXPECT_DOUBLE_EQ(*Efficiency(Metric::kBandwidth, 6e9, 8e9), 0.75);
  // Latency: taking twice the predicted time is 50% efficiency.
  EXPECT_DOUBLE_EQ(*Efficiency(Metric::kLatency, 2e-7, 1e-7), 0.5);
  EXPECT_FALSE(Efficiency(Metric::kFlops, 1, std::nullopt).has_value());
}

}  // namespace
}  // namespace gpuprobe::bench
