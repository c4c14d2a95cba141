// memory.sweep's sizes and levels, checked on the CPU: each case says which level it targets,
// every launch reads each element once per pass (the grid-stride loop the kernel uses), and
// a launch reads at least 256 MiB.
#include "bench/memory_sweep.h"

#include <gtest/gtest.h>

#include "bench/gpu_kernel_math.h"

namespace gpuprobe::bench::gpu {
namespace {

constexpr std::uint64_t kMiB = 1ull << 20;

TEST(MemorySweepTest, EachSizeNamesTheLevelItTargetsOnAnH200) {
  const std::uint64_t l2 = 50 * kMiB;
  auto sizes = SweepSizes(400 * kMiB, true);
  ASSERT_EQ(sizes.front(), 1 * kMiB);
  ASSERT_EQ(sizes.back(), 256 * kMiB);
  for (std::uint64_t b : sizes) {
    std::string level = SweepLevel(b, l2);
    const char* expected = b <= 16 * kMiB ? "L2" : b <= 128 * kMiB ? "L2/HBM" : "HBM";
    EXPECT_EQ(level, expected) << b;
    EXPECT_NE(SweepLabel(b, l2).find("(" + level + ")"), std::string::npos) << SweepLabel(b, l2);
  }
  EXPECT_EQ(SweepSizes(64 * kMiB, false).size(), 4u);  // 1, 4, 16, 64 MiB
}

TEST(MemorySweepTest, ALaunchReadsEveryElementOncePerPass) {
  for (std::uint64_t bytes : {1 * kMiB, 4 * kMiB + 12, 300 * kMiB}) {
    int passes = SweepPasses(bytes);
    EXPECT_GT(static_cast<double>(passes + 1) * static_cast<double>(bytes), static_cast<double>(kSweepBytesPerLaunch));
    EXPECT_DOUBLE_EQ(SweepBytesRead(bytes), static_cast<double>(bytes) * passes);
  }
  EXPECT_EQ(SweepPasses(1 * kMiB), 256);
  EXPECT_EQ(SweepPasses(512 * kMiB), 1);
  // The kernel's index loop (float4 vectors, then the scalar tail) covers each element once:
  // one pass touches exactly the working set.
  for (std::uint64_t n : {4096ull, 4099ull}) {
    LaunchGeometry g = GridStride(n, 4, 64, 3, 2);
    auto counts = SimulateCoverage(n, 4, g);
    for (std::uint64_t i = 0; i < n; ++i) ASSERT_EQ(counts[i], 1) << i;
  }
}

}  // namespace
}  // namespace gpuprobe::bench::gpu
