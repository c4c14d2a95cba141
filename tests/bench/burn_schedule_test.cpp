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

}  // namespace
}  // namespace gpuprobe::bench::gpu
