#include "bench/statistics.h"

#include <gtest/gtest.h>

namespace gpuprobe::bench {
namespace {

TEST(Statistics, MedianBestAndPercentiles) {
  SampleStats s = Summarize({5, 1, 4, 2, 3});
  EXPECT_EQ(s.count, 5);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.best, 1);
  EXPECT_DOUBLE_EQ(s.p10, 1.4);  // interpolated between 1 and 2
  EXPECT_DOUBLE_EQ(s.p90, 4.6);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_NEAR(s.relative_spread, 3.2 / 3, 1e-12);
  EXPECT_TRUE(s.noisy);
}

TEST(Statistics, TightSamplesAreNotNoisy) {
  SampleStats s = Summarize({1.00, 1.01, 0.99, 1.00, 1.02, 1.00});
  EXPECT_FALSE(s.noisy);
  EXPECT_LT(s.relative_spread, kNoisySpread);
}

TEST(Statistics, EmptyAndSingle) {
  EXPECT_EQ(Summarize({}).count, 0);
  SampleStats one = Summarize({2.5});
  EXPECT_DOUBLE_EQ(one.median, 2.5);
  EXPECT_DOUBLE_EQ(one.p10, 2.5);
  EXPECT_FALSE(one.noisy);
}

}  // namespace
}  // namespace gpuprobe::bench
