// Label "gpu": needs a real NVIDIA GPU (run by scripts/gpu-check, excluded from .ci/run).
#include <gtest/gtest.h>

#include "bench/cuda/cuda_device.h"

namespace gpuprobe::bench {
namespace {

TEST(CudaDeviceOnGpu, QueryReportsEveryPropertyThePredictionsNeed) {
  auto devices = QueryCudaDevices();
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  ASSERT_FALSE(devices->empty());
  for (const auto& d : *devices) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_GE(d.compute_capability_major, 7);
    EXPECT_GT(d.sm_count, 0);
    EXPECT_GT(d.memory_total_bytes, 0u);
    EXPECT_GT(d.memory_bus_width_bits, 0);
    EXPECT_GT(d.l2_cache_bytes, 0u);
    EXPECT_GT(d.sm_clock_max_mhz, 0);
  }
}

TEST(CudaDeviceOnGpu, SmokeKernelResultsMatchTheHost) {
  auto result = RunSmokeTest(0);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_TRUE(result->verified);
  EXPECT_EQ(result->mismatches, 0u);
  EXPECT_EQ(result->elements, 1u << 20);
}

}  // namespace
}  // namespace gpuprobe::bench
