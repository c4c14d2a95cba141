// The transfer predictions: a device-to-device copy reads and writes every byte through HBM
// (half the bandwidth in bytes copied), both directions at once count both but each runs at
// the link's rate, and small copies are all setup.
#include "bench/copy_prediction.h"

#include <gtest/gtest.h>

namespace gpuprobe::bench::gpu {
namespace {

constexpr double kHbm = 4.8e12, kLink = 0.8 * 63.0e9, kSetup = 2.5e-6, kGiB = 1ull << 30;

TEST(CopyPredictionTest, DeviceToDeviceCopiesAtMostHalfTheMemoryBandwidth) {
  double rate = PredictedCopyRate(CopyPath::kDeviceToDevice, kGiB, kHbm, kSetup);
  EXPECT_LT(rate, kHbm / 2);
  EXPECT_NEAR(rate, kHbm / 2, 0.01 * kHbm);  // a 2.5 us setup against 0.45 ms
  EXPECT_DOUBLE_EQ(CopySeconds(CopyPath::kDeviceToDevice, kGiB, kHbm, 0), 2 * kGiB / kHbm);
}

TEST(CopyPredictionTest, BothWaysCountsBothButEachRunsAtTheLinksRate) {
  double one = PredictedCopyRate(CopyPath::kOneWay, kGiB, kLink, kSetup);
  double both = PredictedCopyRate(CopyPath::kBothWays, kGiB, kLink, kSetup);
  EXPECT_NEAR(one, kLink, 0.001 * kLink);
  EXPECT_DOUBLE_EQ(both, 2 * one);
  EXPECT_LT(both, 2.001 * kLink);  // never 4x the link
}

TEST(CopyPredictionTest, SmallCopiesAreAllSetup) {
  double rate = PredictedCopyRate(CopyPath::kDeviceToDevice, 64 << 10, kHbm, kSetup);
  EXPECT_LT(rate, 0.01 * kHbm);
  EXPECT_NEAR(rate, (64 << 10) / kSetup, 0.02 * (64 << 10) / kSetup);
  EXPECT_EQ(PredictedCopyRate(CopyPath::kOneWay, 1e6, 0, kSetup), 0);
}

}  // namespace
}  // namespace gpuprobe::bench::gpu
