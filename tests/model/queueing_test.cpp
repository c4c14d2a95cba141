// M/M/c waits: Erlang C against values computed independently (the textbook sum
// a^c/c! x c/(c-a) / (sum_{k<c} a^k/k! + a^c/c! x c/(c-a)), evaluated in logarithms), and the
// p99 wait from P(W > t) = C exp(-(c - a) t / s).
#include "model/queueing.h"

#include <cmath>

#include <gtest/gtest.h>

namespace gpuprobe::model {
namespace {

TEST(ErlangC, OneServerWaitsWithProbabilityRho) { EXPECT_DOUBLE_EQ(ErlangC(1, 0.5), 0.5); }

TEST(ErlangC, MatchesTheTextbookSumForSmallAndLargeServerCounts) {
  EXPECT_NEAR(ErlangC(2, 1.0), 1.0 / 3.0, 1e-12);
  EXPECT_NEAR(ErlangC(10, 8.0), 0.409180150796444, 1e-12);
  // The KV cache's thousands of slots, where the textbook sum overflows a double.
  EXPECT_NEAR(ErlangC(2000, 1950.0), 0.17867506823272533, 1e-9);
  EXPECT_NEAR(ErlangC(2000, 1800.0), 1.969210748589608e-06, 1e-12);
}

TEST(ErlangC, LoadAtOrAboveTheServersAlwaysWaits) {
  EXPECT_EQ(ErlangC(4, 4.0), 1.0);
  EXPECT_EQ(ErlangC(4, 9.0), 1.0);
}

TEST(MmcWait, MM1P99IsLogOfRhoOverOnePercentTimesTheResidualService) {
  QueueWait w = MmcWait(1, 0.5, 1.0);
  EXPECT_TRUE(w.stable);
  EXPECT_DOUBLE_EQ(w.utilisation, 0.5);
  EXPECT_NEAR(w.p99_wait_seconds, std::log(50.0) / 0.5, 1e-12);  // 7.82 s
}

TEST(MmcWait, ScalesWithTheServiceTime) {
  EXPECT_NEAR(MmcWait(10, 8.0, 1.0).p99_wait_seconds, 1.8557852162834192, 1e-9);
  EXPECT_NEAR(MmcWait(2000, 1950.0, 30.0).p99_wait_seconds, 1.7297902811962167, 1e-6);
}

TEST(MmcWait, FewerThanOnePercentWaitingMeansNoP99Wait) {
  QueueWait w = MmcWait(2000, 1800.0, 30.0);
  EXPECT_GT(w.wait_probability, 0);
  EXPECT_EQ(w.p99_wait_seconds, 0);
  EXPECT_EQ(MmcWait(1, 0.005, 1.0).p99_wait_seconds, 0);
}

TEST(MmcWait, SaturatedQueueIsUnstableWithAnUnboundedWait) {
  QueueWait w = MmcWait(3, 3.0, 1.0);
  EXPECT_FALSE(w.stable);
  EXPECT_TRUE(std::isinf(w.p99_wait_seconds));
}

TEST(MmcWait, FractionalServerCountsRoundDown) {
  EXPECT_EQ(MmcWait(2.9, 1.0, 1.0).servers, 2);
  EXPECT_EQ(MmcWait(0.4, 0.1, 1.0).servers, 1);
}

}  // namespace
}  // namespace gpuprobe::model
