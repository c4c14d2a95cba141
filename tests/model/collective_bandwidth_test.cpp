// nccl-tests' bus-bandwidth arithmetic (tests/fixtures/topology/sources/nccl-tests-GetBw-excerpts.txt
// and nccl-tests-PERFORMANCE.md). The published tables themselves are checked row by row in
// tests/bench/nccl_tests_table_test.cpp.
#include "model/collective_bandwidth.h"

#include <gtest/gtest.h>

namespace gpuprobe::model {
namespace {

TEST(CollectiveBandwidthTest, FactorsAreNcclTestsGetBw) {
  // AllReduceGetBw: 2*(nranks-1)/nranks.
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kAllReduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kAllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kAllReduce, 16), 1.875);
  // AllGatherGetBw, ReduceScatterGetBw, AlltoAllGetBw: (nranks-1)/nranks.
  for (Collective c : {Collective::kAllGather, Collective::kReduceScatter, Collective::kAllToAll}) {
    EXPECT_DOUBLE_EQ(BusBandwidthFactor(c, 8), 0.875) << CollectiveId(c);
    EXPECT_STREQ(BusBandwidthFormula(c), "(n-1)/n");
  }
  // BroadcastGetBw, ReduceGetBw, SendRecvGetBw: 1 whatever n.
  for (Collective c : {Collective::kBroadcast, Collective::kReduce, Collective::kSendRecv}) {
    EXPECT_DOUBLE_EQ(BusBandwidthFactor(c, 72), 1.0) << CollectiveId(c);
  }
  EXPECT_EQ(BusBandwidthFactor(Collective::kAllReduce, 0), 0);
  // One rank moves nothing over a bus: all_reduce's factor is 0 there, as in nccl-tests.
  EXPECT_EQ(BusBandwidthFactor(Collective::kAllReduce, 1), 0);
}

TEST(CollectiveBandwidthTest, AlgbwIsSizeOverTimeAndBusbwAppliesTheFactor) {
  // superbench 8x A100 all_reduce, largest row: 8589934592 B in 63896 us -> 134.44 / 235.26 GB/s.
  auto bw = CollectiveBandwidthOf(Collective::kAllReduce, 8589934592.0, 63896e-6, 8);
  EXPECT_NEAR(bw.algbw_bytes_per_second / 1e9, 134.44, 0.01);
  EXPECT_NEAR(bw.busbw_bytes_per_second / 1e9, 235.26, 0.02);
  EXPECT_EQ(CollectiveBandwidthOf(Collective::kAllReduce, 1e9, 0, 8).algbw_bytes_per_second, 0);
  EXPECT_EQ(CollectiveBandwidthOf(Collective::kAllReduce, 1e9, 1, 0).busbw_bytes_per_second, 0);
}

TEST(CollectiveBandwidthTest, CountFollowsEachCollectivesSizeConvention) {
  // all_gather 2 ranks: size 1073741824 B is the gathered buffer, count 134217728 per rank.
  EXPECT_EQ(NcclTestsCount(Collective::kAllGather, 1073741824, 4, 2), 134217728u);
  // all_reduce: count = size / type size.
  EXPECT_EQ(NcclTestsCount(Collective::kAllReduce, 1073741824, 4, 2), 268435456u);
  EXPECT_EQ(NcclTestsCount(Collective::kAllToAll, 24, 4, 8), 0u);  // does not divide
  EXPECT_EQ(NcclTestsCount(Collective::kBroadcast, 8, 0, 8), 0u);
}

TEST(CollectiveBandwidthTest, IdsRoundTripAndAcceptNcclTestsSpellings) {
  for (Collective c : AllCollectives()) EXPECT_EQ(CollectiveFromId(CollectiveId(c)), c);
  EXPECT_EQ(CollectiveFromId("allreduce"), Collective::kAllReduce);
  EXPECT_EQ(CollectiveFromId("reducescatter"), Collective::kReduceScatter);
  EXPECT_EQ(CollectiveFromId("all_to_all"), Collective::kAllToAll);
  EXPECT_FALSE(CollectiveFromId("gather_all").has_value());
}

TEST(CollectiveBandwidthTest, RanksFromTheBusbwRatio) {
  // CoreWeave 2-rack table: 408.40 -> 810.41 is 2x127/128, not the 144 its device line says.
  EXPECT_EQ(RanksFromBusBandwidth(Collective::kAllReduce, 408.40, 810.41, 1e-4), 128);
  // DeepOps 4x DGX A100: 98.61 -> 191.05 is 2x31/32.
  EXPECT_EQ(RanksFromBusBandwidth(Collective::kAllReduce, 98.61, 191.05, 1e-3), 32);
  EXPECT_EQ(RanksFromBusBandwidth(Collective::kAllGather, 255.31, 223.39, 1e-3), 8);
  EXPECT_FALSE(RanksFromBusBandwidth(Collective::kBroadcast, 10, 10, 1e-3).has_value());
  EXPECT_FALSE(RanksFromBusBandwidth(Collective::kAllReduce, 0, 10, 1e-3).has_value());
  EXPECT_FALSE(RanksFromBusBandwidth(Collective::kAllReduce, 10, 25, 1e-3).has_value());  // ratio > 2
}

}  // namespace
}  // namespace gpuprobe::model
