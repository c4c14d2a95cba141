// latency.chase's index arithmetic, checked on the CPU: one cycle through every line, the
// kernel's walk reproduced, samples that continue around the cycle, and each level's case
// far beyond the level above it (the old "HBM" case walked 8 MiB from index 0 every sample:
// inside an H200's 50 MiB L2).
#include "bench/chase_cycle.h"

#include <set>

#include <gtest/gtest.h>

namespace gpuprobe::bench::gpu {
namespace {

constexpr std::uint64_t kMiB = 1ull << 20;

// What the kernel does: i = next[i], `steps` times.
std::uint32_t Walk(const ChaseCycle& cycle, std::uint32_t i, std::uint64_t steps) {
  for (std::uint64_t s = 0; s < steps; ++s) i = cycle.next[i];
  return i;
}

TEST(ChaseCycleTest, OneCycleThroughEveryLineOneElementPerLine) {
  ChaseCycle cycle = BuildChaseCycle(1000, 7);
  ASSERT_EQ(cycle.lines(), 1000u);
  EXPECT_EQ(cycle.bytes(), 1000 * kChaseLineBytes);
  std::set<std::uint64_t> lines;
  std::uint32_t i = 0;
  for (std::uint64_t s = 0; s < cycle.lines(); ++s) {
    EXPECT_EQ(i % kChaseLineWords, 0u);           // always a line's first word
    EXPECT_TRUE(lines.insert(i / kChaseLineWords).second) << "line visited twice before the cycle closed";
    i = cycle.next[i];
  }
  EXPECT_EQ(i, 0u);                               // back at the start: one single cycle
  EXPECT_EQ(lines.size(), cycle.lines());
}

TEST(ChaseCycleTest, IndexAfterIsTheKernelsWalkAcrossSamplesAndWraps) {
  ChaseCycle cycle = BuildChaseCycle(777, 3);
  std::uint32_t position = 0;  // samples continue where the last one ended
  std::uint64_t total = 0;
  for (std::uint64_t steps : {0ull, 1ull, 500ull, 776ull, 777ull, 2000ull}) {
    position = Walk(cycle, position, steps);
    total += steps;
    EXPECT_EQ(ChaseIndexAfter(cycle, 0, total), position) << total;
  }
}

TEST(ChaseCycleTest, ALineComesBackOnlyAfterTheWholeCycle) {
  ChaseCycle cycle = BuildChaseCycle(4096, 1);
  std::uint32_t i = 0;
  std::vector<std::int64_t> last(cycle.lines(), -1);
  for (std::int64_t s = 0; s < 3 * 4096; ++s) {
    std::uint32_t line = i / kChaseLineWords;
    if (last[line] >= 0) {
      EXPECT_EQ(s - last[line], 4096) << "reuse distance shorter than the cycle";
    }
    last[line] = s;
    i = cycle.next[i];
  }
  EXPECT_EQ(ChaseLinesTouched(100, 4096), 100u);
  EXPECT_EQ(ChaseLinesTouched(100000, 4096), 4096u);
}

TEST(ChaseCycleTest, EachLevelIsFarBeyondTheLevelAboveOnAnH200) {
  const std::uint64_t l2 = 50 * kMiB, free_bytes = 140ull << 30;
  auto levels = ChaseLevels(l2, free_bytes);
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(levels[0].level, "L1");
  EXPECT_LE(levels[0].bytes, 16ull << 10);
  EXPECT_EQ(levels[1].level, "L2");
  EXPECT_GE(levels[1].bytes, 4 * kLargestL1Bytes);
  EXPECT_LE(levels[1].bytes, l2 / 2);
  EXPECT_EQ(levels[2].level, "HBM");
  EXPECT_GE(levels[2].bytes, 4 * l2);  // the reuse footprint, not one sample's loads
  for (const auto& level : levels) EXPECT_TRUE(level.far_enough) << level.Label();
  EXPECT_EQ(levels[2].Label(), "256 MiB cycle (HBM, 5.1x L2)");
  // One sample's loads alone (8 MiB) would sit inside L2: only continuing samples get out.
  EXPECT_LT(std::uint64_t{kChaseStepsPerSample} * kChaseLineBytes, l2);
  EXPECT_LT(kChaseStepsPerSample, levels[2].bytes / kChaseLineBytes);
}

TEST(ChaseCycleTest, SmallL2AndTooLittleMemorySaySo) {
  auto t4 = ChaseLevels(4 * kMiB, 15ull << 30);
  EXPECT_EQ(t4[1].bytes, 1 * kMiB);  // L2 / 4 = 4 x the largest L1
  EXPECT_TRUE(t4[1].far_enough);
  EXPECT_EQ(t4[2].bytes, 256 * kMiB);
  auto cramped = ChaseLevels(50 * kMiB, 512 * kMiB);
  EXPECT_EQ(cramped[2].bytes, 128 * kMiB);
  EXPECT_FALSE(cramped[2].far_enough);
  EXPECT_NE(cramped[2].Label().find("not far beyond"), std::string::npos);
}

}  // namespace
}  // namespace gpuprobe::bench::gpu
