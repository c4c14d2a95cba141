// access.*: every pattern, through the kernel's own loop, reads each element exactly once
// (its footprint is the whole buffer), and the predictions' useful share of DRAM bytes.
#include "bench/access_patterns.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace gpuprobe::bench::gpu {
namespace {

TEST(AccessPatternsTest, EveryPatternReadsEachElementOnceThroughTheKernelsLoop) {
  const std::uint64_t n = 32 * 97;
  std::vector<std::uint32_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0u);
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(42));
  for (std::uint64_t threads : {1ull, 64ull, 100ull, 4096ull}) {
    for (auto [pattern, stride] : std::vector<std::pair<AccessPattern, std::uint32_t>>{
             {AccessPattern::kSequential, 1}, {AccessPattern::kMisaligned, 1}, {AccessPattern::kRandom, 1},
             {AccessPattern::kStrided, 2}, {AccessPattern::kStrided, 8}, {AccessPattern::kStrided, 32}}) {
      auto counts = SimulateAccess(pattern, n, stride, perm.data(), threads);
      for (std::uint64_t i = 0; i < n; ++i) {
        ASSERT_EQ(counts[i], 1) << "pattern " << static_cast<int>(pattern) << " stride " << stride << " threads " << threads
                                << " element " << i;
      }
    }
  }
}

TEST(AccessPatternsTest, ConsecutiveThreadsReadConsecutiveElementsWhenSequential) {
  // The loads of one step of the loop: thread t reads item t + j T, so a warp's 32 loads are
  // 32 consecutive floats (one 128-byte line) for the sequential pattern.
  for (std::uint64_t t = 0; t < 32; ++t) {
    EXPECT_EQ(AccessIndex(AccessPattern::kSequential, t + 3 * 1024, MakeAccessGeometry(1 << 20, 1), nullptr), t + 3 * 1024);
  }
  EXPECT_EQ(AccessIndex(AccessPattern::kStrided, 1, MakeAccessGeometry(64, 4), nullptr), 4u);  // the next thread, 16 bytes on
  EXPECT_EQ(kAccessLoadsInFlight * 4, 2 * 16);  // 32 bytes in flight, two float4 loads' worth
}

TEST(AccessPatternsTest, TheStridedIndexsReciprocalDividesExactly) {
  // The kernel divides by the row count with a multiply and a shift: exact for every item
  // below 2^31, for row counts that are and are not powers of two.
  std::mt19937_64 rng(7);
  for (std::uint64_t n : std::vector<std::uint64_t>{64, 32 * 97, 3ull * (1ull << 20) * 32, (1ull << 26) - 32,
                                                   kAccessMaxStridedItems - 32, kAccessMaxStridedItems}) {
    for (std::uint32_t stride : {2u, 4u, 8u, 16u, 32u}) {
      AccessGeometry g = MakeAccessGeometry(n, stride);
      ASSERT_EQ(g.rows, n / stride);
      std::vector<std::uint64_t> items = {0, 1, g.rows - 1, g.rows, g.rows + 1, n - 1, n / 2};
      for (std::uint64_t k = 1; k < stride; ++k) {
        items.push_back(k * g.rows - 1);
        items.push_back(k * g.rows);
      }
      for (int r = 0; r < 2000; ++r) items.push_back(rng() % n);
      for (std::uint64_t i : items) {
        ASSERT_EQ(AccessRowQuotient(i, g), i / g.rows) << "n " << n << " stride " << stride << " item " << i;
        ASSERT_EQ(AccessIndex(AccessPattern::kStrided, i, g, nullptr), (i % g.rows) * stride + i / g.rows);
      }
    }
  }
  // Every item below 2^31 against the worst-case row count (the shift's bound is tight there).
  AccessGeometry g = MakeAccessGeometry((1ull << 31) - 2 * 3, 2);
  for (std::uint64_t i = (1ull << 31) - (1ull << 16); i < (1ull << 31); ++i) ASSERT_EQ(AccessRowQuotient(i, g), i / g.rows);
}

TEST(AccessPatternsTest, UsefulShareOfDramBytes) {
  EXPECT_DOUBLE_EQ(AccessUsefulFraction(AccessPattern::kSequential, 1), 1.0);
  EXPECT_DOUBLE_EQ(AccessUsefulFraction(AccessPattern::kMisaligned, 1), 1.0);  // not 4/5: the extra sector is L2's
  EXPECT_DOUBLE_EQ(AccessUsefulFraction(AccessPattern::kStrided, 2), 0.5);
  EXPECT_DOUBLE_EQ(AccessUsefulFraction(AccessPattern::kStrided, 32), 1.0 / 8);
  EXPECT_DOUBLE_EQ(AccessUsefulFraction(AccessPattern::kRandom, 1), 4.0 / 36);   // the index is read too
}

}  // namespace
}  // namespace gpuprobe::bench::gpu
