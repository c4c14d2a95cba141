// Label "gpu": the many-GPU runs on a machine with at least two GPUs (skipped with fewer).
// Small plans, so the check takes seconds: every collective and every copy must verify.
#include <gtest/gtest.h>

#include "bench/cuda/cuda_device.h"
#include "bench/multi_gpu.h"

namespace gpuprobe::bench {
namespace {

std::vector<int> TwoOrMoreGpus() {
  auto devices = QueryCudaDevices();
  std::vector<int> out;
  if (devices.ok()) {
    for (const auto& d : *devices) out.push_back(d.index);
  }
  return out;
}

TEST(MultiGpuOnGpu, EveryCollectiveVerifiesOnSmallSizes) {
  auto devices = TwoOrMoreGpus();
  if (devices.size() < 2) GTEST_SKIP() << "needs two or more GPUs";
  auto nccl = nccl::LoadNccl();
  if (!nccl.ok()) GTEST_SKIP() << nccl.status().message();
  auto plan = MakeCollectivesPlan(static_cast<int>(devices.size()), 0);
  plan.sizes_bytes = {8, 4096, 1 << 20, 3 << 20};
  auto report = RunCollectives(plan, **nccl, devices);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->all_verified);
  ASSERT_EQ(report->results.size(), 5u);
  for (const auto& c : report->results) {
    ASSERT_FALSE(c.sizes.empty()) << model::CollectiveId(c.collective);
    for (const auto& s : c.sizes) {
      EXPECT_TRUE(s.error.empty()) << s.error;
      EXPECT_TRUE(s.out_of_place.verified) << model::CollectiveId(c.collective) << " " << s.size_bytes << ": "
                                           << s.out_of_place.first_mismatch;
      EXPECT_GT(s.out_of_place.seconds, 0);
    }
    EXPECT_GT(c.peak_busbw_bytes_per_second, 0);
  }
}

TEST(MultiGpuOnGpu, EveryCopyOfTheMatrixVerifies) {
  auto devices = TwoOrMoreGpus();
  if (devices.size() < 2) GTEST_SKIP() << "needs two or more GPUs";
  auto plan = MakeP2pPlan(static_cast<int>(devices.size()));
  plan.buffer_bytes = 4 << 20;
  plan.iterations = 2;
  auto report = RunP2p(plan, devices);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->all_verified);
  ASSERT_EQ(report->matrices.size(), 4u);
  for (const auto& m : report->matrices) {
    EXPECT_EQ(m.mismatches, 0u) << m.test << ": " << m.first_mismatch;
    EXPECT_TRUE(m.bytes_per_second[0][1].has_value()) << m.test;
    EXPECT_FALSE(m.bytes_per_second[0][0].has_value()) << m.test;
  }
}

TEST(MultiGpuOnGpu, ADamagedResultFailsTheCheck) {
  auto devices = TwoOrMoreGpus();
  if (devices.size() < 2) GTEST_SKIP() << "needs two or more GPUs";
  auto nccl = nccl::LoadNccl();
  if (!nccl.ok()) GTEST_SKIP() << nccl.status().message();
  auto plan = MakeCollectivesPlan(static_cast<int>(devices.size()), 0);
  plan.sizes_bytes = {1 << 20};
  plan.corrupt_for_test = true;
  auto report = RunCollectives(plan, **nccl, devices);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_FALSE(report->all_verified);
  for (const auto& c : report->results) {
    ASSERT_EQ(c.sizes.size(), 1u);
    EXPECT_FALSE(c.sizes[0].out_of_place.verified) << model::CollectiveId(c.collective);
    EXPECT_GE(c.sizes[0].out_of_place.mismatches, 1u);
    EXPECT_EQ(c.peak_busbw_bytes_per_second, 0);  // an unverified size is never the peak
  }
  auto p2p = MakeP2pPlan(static_cast<int>(devices.size()));
  p2p.buffer_bytes = 1 << 20;
  p2p.iterations = 1;
  p2p.corrupt_for_test = true;
  auto copies = RunP2p(p2p, devices);
  ASSERT_TRUE(copies.ok()) << copies.status().ToString();
  EXPECT_FALSE(copies->all_verified);
}

}  // namespace
}  // namespace gpuprobe::bench
