// burn.gemm's schedule: batches sized to ~50 ms and the duty cycle from the batches' events.
#include "bench/burn_schedule.h"

#include <cmath>

#include <gtest/gtest.h>

namespace gpuprobe::bench::gpu {
namespace {

TEST(BurnScheduleTest, BatchesLastAboutFiftyMilliseconds) {
  EXPECT_EQ(BurnGemmsPerBatch(0.2e-3), 250);   // a 4096^3 bf16 GEMM on an H200 takes ~0.2 ms
  EXPECT_EQ(BurnGemmsPerBatch(0.1), 1);        // a slow GEMM: one per batch
  EXPECT_EQ(BurnGemmsPerBatch(0), 1);
  EXPECT_EQ(BurnGemmsPerBatch(NAN), 1);
  EXPECT_EQ(BurnGemmsPerBatch(1e-12), 10000);
}

TEST(BurnScheduleTest, DutyCycleCountsTheGapsBetweenBatches) {
  // Back to back: always busy.
  EXPECT_DOUBLE_EQ(DutyCycle({{0, 0.05}, {0.05, 0.10}, {0.10, 0.15}}), 1.0);
  // The old burn: a GEMM, then the host's sync, checksum copy and next launch (~30% idle).
  std::vector<BusyInterval> synchronous;
  for (int i = 0; i < 100; ++i) synchronous.push_back({i * 1.0e-3, i * 1.0e-3 + 0.7e-3});
  EXPECT_NEAR(DutyCycle(synchronous), 70.0 / 99.7, 1e-9);  // 70 ms busy over 99.7 ms
  EXPECT_LT(DutyCycle(synchronous), kBurnMinDutyCycle);
  EXPECT_DOUBLE_EQ(DutyCycle({}), 0);
}

TEST(BurnScheduleTest, ThePowerCapIsInformationNotThrottling) {
  // A healthy H200 under GEMM load: at its power cap in every sample, clocks steady.
  std::vector<BurnSample> capped(10, BurnSample{1755e6, false, true, 699});
  BurnSummary s = SummarizeBurn(capped);
  EXPECT_EQ(s.samples, 10);
  EXPECT_EQ(s.throttled, 0);
  EXPECT_EQ(s.power_capped, 10);
  EXPECT_DOUBLE_EQ(s.mean_power_w, 699);
  EXPECT_EQ(BurnVerdict(0, s, 0.99), "healthy, at power limit");
  // Thermal or hardware throttling in most samples is a verdict of its own.
  std::vector<BurnSample> hot(10, BurnSample{1755e6, true, true, 699});
  EXPECT_EQ(BurnVerdict(0, SummarizeBurn(hot), 0.99), "thermally throttled most of the time: check cooling");
  EXPECT_EQ(BurnVerdict(3, SummarizeBurn(hot), 0.99), "UNHEALTHY: wrong results");
  std::vector<BurnSample> cool(10, BurnSample{1980e6, false, false, 0});
  EXPECT_EQ(BurnVerdict(0, SummarizeBurn(cool), 0.99), "healthy");
  EXPECT_EQ(BurnVerdict(0, SummarizeBurn(cool), 0.5), "the GPU sat idle part of the time: the load was not sustained");
}

TEST(BurnScheduleTest, ClocksSagOnlyFromTheSustainedClock) {
  // One low sample among steady ones (e.g. the first, before the load) does not sag.
  std::vector<BurnSample> v(9, BurnSample{1980e6, false, true, 700});
  v.insert(v.begin(), BurnSample{1200e6, false, false, 300});
  BurnSummary s = SummarizeBurn(v);
  EXPECT_DOUBLE_EQ(s.sustained_clock_hz, 1980e6);
  EXPECT_EQ(BurnVerdict(0, s, 0.99), "healthy, at power limit");
  // A brief dip mid-run does not either: the median holds.
  v[5].clock_hz = 1000e6;
  EXPECT_EQ(BurnVerdict(0, SummarizeBurn(v), 0.99), "healthy, at power limit");
  // Clocks that settle well below their peak do.
  std::vector<BurnSample> sag;
  for (int i = 0; i < 10; ++i) sag.push_back({i < 2 ? 1980e6 : 1500e6, false, true, 700});
  s = SummarizeBurn(sag);
  EXPECT_DOUBLE_EQ(s.sustained_clock_hz, 1500e6);
  EXPECT_DOUBLE_EQ(s.peak_clock_hz, 1980e6);
  EXPECT_EQ(BurnVerdict(0, s, 0.99), "clocks sag under load");
  EXPECT_EQ(SummarizeBurn({}).samples, 0);
  EXPECT_EQ(BurnVerdict(0, SummarizeBurn({}), 0.99), "healthy");
}

}  // namespace
}  // namespace gpuprobe::bench::gpu
