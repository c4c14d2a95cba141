// The many-GPU plans: what `bench collectives` and `bench p2p` run, shown by --dry-run.
#include "bench/multi_gpu_plan.h"

#include <gtest/gtest.h>

namespace gpuprobe::bench {
namespace {

TEST(MultiGpuPlanTest, CollectivesSweepEightBytesToEightGibDoubling) {
  auto plan = MakeCollectivesPlan(8, 0);
  ASSERT_EQ(plan.sizes_bytes.size(), 31u);  // 2^3 .. 2^33
  EXPECT_EQ(plan.sizes_bytes.front(), 8u);
  EXPECT_EQ(plan.sizes_bytes.back(), 8ull << 30);
  for (size_t i = 1; i < plan.sizes_bytes.size(); ++i) EXPECT_EQ(plan.sizes_bytes[i], 2 * plan.sizes_bytes[i - 1]);
  EXPECT_EQ(plan.warmup_iterations, 5);
  EXPECT_EQ(plan.iterations, 20);
  EXPECT_EQ(plan.dtype, "float");
  EXPECT_EQ(plan.memory_limit_bytes, 0u);  // decided at run time
}

TEST(MultiGpuPlanTest, TheFiveCollectivesWithTheirFactors) {
  auto plan = MakeCollectivesPlan(8, 0);
  ASSERT_EQ(plan.collectives.size(), 5u);
  EXPECT_EQ(plan.collectives[0].collective, model::Collective::kAllReduce);
  EXPECT_DOUBLE_EQ(plan.collectives[0].factor, 1.75);
  EXPECT_EQ(plan.collectives[0].formula, "2(n-1)/n");
  EXPECT_EQ(plan.collectives[1].collective, model::Collective::kAllGather);
  EXPECT_DOUBLE_EQ(plan.collectives[1].factor, 0.875);
  EXPECT_EQ(plan.collectives[3].collective, model::Collective::kBroadcast);
  EXPECT_DOUBLE_EQ(plan.collectives[3].factor, 1.0);
  EXPECT_EQ(plan.collectives[4].collective, model::Collective::kAllToAll);
  EXPECT_FALSE(plan.collectives[4].in_place);
  // Without GPUs the factor is unknown; the formula is still shown.
  EXPECT_EQ(MakeCollectivesPlan(0, 0).collectives[0].factor, 0);
}

TEST(MultiGpuPlanTest, FreeMemoryCapsTheSizes) {
  // 141 GB free: 80% for one size's buffers; an 8 GiB all_reduce needs 16 GiB, fits.
  auto big = MakeCollectivesPlan(8, 141ull * 1000 * 1000 * 1000);
  EXPECT_TRUE(CollectiveSizeFits(big, model::Collective::kAllReduce, 8ull << 30));
  // 10 GiB free: 8 GiB in + 8 GiB out does not fit, 4 GiB + 4 GiB does.
  auto small = MakeCollectivesPlan(8, 10ull << 30);
  EXPECT_FALSE(CollectiveSizeFits(small, model::Collective::kAllReduce, 8ull << 30));
  EXPECT_TRUE(CollectiveSizeFits(small, model::Collective::kAllReduce, 4ull << 30));
  // all_gather's size is the gathered output: on 8 ranks 4 GiB out + 0.5 GiB in fits the
  // 8 GiB cap, 8 GiB + 1 GiB does not.
  EXPECT_TRUE(CollectiveSizeFits(small, model::Collective::kAllGather, 4ull << 30));
  EXPECT_FALSE(CollectiveSizeFits(small, model::Collective::kAllGather, 8ull << 30));
  EXPECT_EQ(CollectiveBufferBytes(model::Collective::kAllGather, 8ull << 30, 8), 9ull << 30);
}

TEST(MultiGpuPlanTest, SizesRoundToWholeElementsPerRank) {
  EXPECT_EQ(RoundedCollectiveBytes(model::Collective::kAllReduce, 8, 4, 8), 8u);
  EXPECT_EQ(RoundedCollectiveBytes(model::Collective::kAllGather, 8, 4, 8), 0u);  // < one float per rank
  EXPECT_EQ(RoundedCollectiveBytes(model::Collective::kAllGather, 96, 4, 3), 96u);
  EXPECT_EQ(RoundedCollectiveBytes(model::Collective::kAllToAll, 64, 4, 3), 60u);
}

TEST(MultiGpuPlanTest, P2pIsNvbandwidthsFourCopyEngineTests) {
  auto plan = MakeP2pPlan(2);
  EXPECT_EQ(plan.buffer_bytes, 64ull << 20);
  EXPECT_EQ(plan.iterations, 16);
  ASSERT_EQ(plan.tests.size(), 4u);
  EXPECT_EQ(plan.tests[0], "device_to_device_memcpy_read_ce");
  EXPECT_EQ(plan.tests[3], "device_to_device_bidirectional_memcpy_write_ce");
}

}  // namespace
}  // namespace gpuprobe::bench
