// The compute peaks' chains, replayed on the CPU: each replay follows the device instruction
// bit for bit (fp16 through the software FMA), and every chain still changes on its last
// step, so a kernel that ran fewer steps cannot pass verification.
#include "bench/compute_chains.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "bench/soft_float.h"

namespace gpuprobe::bench::gpu {
namespace {

TEST(ComputeChainsTest, ReplaysFollowTheirRecurrence) {
  float f = ChainStart(2);
  for (int s = 0; s < 10; ++s) f = std::fmaf(f, kChainA, kChainB);
  EXPECT_EQ(ReplayChainF32(2, 10), f);
  double a = kChainA, b = kChainB;  // the fp32 constants widened: the fixed point is b / (1 - a)
  EXPECT_NEAR(ReplayChainF64(7, 100000), b / (1 - a), 1e-9);
  std::uint32_t x = IntChainStart(3);
  for (int s = 0; s < 5; ++s) x = x * 1664525u + 1013904223u;
  EXPECT_EQ(ReplayChainI32(3, 5), x);
}

TEST(ComputeChainsTest, Fp16ReplayRoundsOncePerStepWithTheDevicesHalfConstants) {
  std::uint16_t x = soft::RoundToBits(ChainStart(5), soft::kHalf);
  for (int s = 0; s < 300; ++s) {
    // One __hfma2 lane: exact a*b+c, one rounding to half.
    double exact = soft::FromBits(x, soft::kHalf) * soft::FromBits(kHalfChainA, soft::kHalf) + soft::FromBits(kHalfChainB, soft::kHalf);
    x = soft::RoundToBits(exact, soft::kHalf);  // exact in double here: 11 x 11 bits + 11 bits
  }
  EXPECT_EQ(ReplayChainF16(5, 300), x);
  EXPECT_EQ(soft::FromBits(kHalfChainA, soft::kHalf), 1.0 + std::ldexp(1.0, -10));
  EXPECT_EQ(soft::FromBits(kHalfChainB, soft::kHalf), std::ldexp(1.0, -10));
}

TEST(ComputeChainsTest, Bf16ReplayRoundsOncePerStep) {
  std::uint16_t x = soft::RoundToBits(ChainStart(3), soft::kBf16);
  for (int s = 0; s < 300; ++s) {
    // Exact in double: 8 x 8 bits + 8 bits within a few binades.
    double exact = soft::FromBits(x, soft::kBf16) * soft::FromBits(kBf16ChainA, soft::kBf16) + soft::FromBits(kBf16ChainB, soft::kBf16);
    x = soft::RoundToBits(exact, soft::kBf16);
  }
  EXPECT_EQ(ReplayChainBf16(3, 300), x);
}

TEST(ComputeChainsTest, Dp4aMultipliesSignedBytesAndWraps) {
  // bytes of x: 1, -1, 127, -128; of y: 2, 3, -1, -1 -> 2 - 3 - 127 + 128 = 0, plus c.
  std::int32_t x = static_cast<std::int32_t>(0x807FFF01u), y = static_cast<std::int32_t>(0xFFFF0302u);
  EXPECT_EQ(Dp4a(x, y, 5), 5);
  EXPECT_EQ(Dp4a(0x7F7F7F7F, 0x7F7F7F7F, 0), 4 * 127 * 127);
  EXPECT_EQ(Dp4a(0x01, 0x01, 0x7FFFFFFF), static_cast<std::int32_t>(0x80000000u));  // wraps, no saturation
  std::int32_t chain = Dp4aChainStart(2);
  for (int s = 0; s < 7; ++s) chain = Dp4a(chain, kDp4aChainA, kDp4aChainB);
  EXPECT_EQ(ReplayChainDp4a(2, 7), chain);
}

TEST(ComputeChainsTest, Dp4aChainsDoNotRevisitAValueWithinTheirSteps) {
  for (int k = 0; k < kChainsPerThread; ++k) {
    std::vector<std::int32_t> seen;
    std::int32_t x = Dp4aChainStart(k);
    for (std::uint64_t s = 0; s <= kChainSteps; ++s) {
      seen.push_back(x);
      x = Dp4a(x, kDp4aChainA, kDp4aChainB);
    }
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(std::adjacent_find(seen.begin(), seen.end()), seen.end()) << "chain " << k << " cycles";
  }
}

TEST(ComputeChainsTest, EveryChainStillMovesOnItsLastStepAndStaysFinite) {
  for (int k = 0; k < kChainsPerThread; ++k) {
    EXPECT_NE(ReplayChainF32(k, kChainSteps), ReplayChainF32(k, kChainSteps - 1)) << k;
    EXPECT_NE(ReplayChainF64(k, kChainSteps), ReplayChainF64(k, kChainSteps - 1)) << k;
    EXPECT_NE(ReplayChainF16(k, kChainSteps), ReplayChainF16(k, kChainSteps - 1)) << k;
    EXPECT_NE(ReplayChainI32(k, kChainSteps), ReplayChainI32(k, kChainSteps - 1)) << k;
    EXPECT_NE(ReplayChainBf16(k, kChainSteps), ReplayChainBf16(k, kChainSteps - 1)) << k;
    EXPECT_NE(ReplayChainDp4a(k, kChainSteps), ReplayChainDp4a(k, kChainSteps - 1)) << k;
    EXPECT_TRUE(std::isfinite(soft::FromBits(ReplayChainBf16(k, kChainSteps), soft::kBf16))) << k;
    EXPECT_TRUE(std::isfinite(soft::FromBits(ReplayChainF16(k, kChainSteps), soft::kHalf))) << k;
  }
}

TEST(ComputeChainsTest, WorkCountsTwoPerFmaOrMultiplyAdd) {
  Work w = ChainWork(ChainType::kFp32, 1000, 10);
  EXPECT_DOUBLE_EQ(w.flops, 1000.0 * kChainsPerThread * 10 * 2);
  EXPECT_DOUBLE_EQ(ChainWork(ChainType::kFp16, 1000, 10).flops, w.flops);  // per half lane
  EXPECT_DOUBLE_EQ(ChainWork(ChainType::kInt32, 1000, 10).ops, w.flops);
  EXPECT_DOUBLE_EQ(ChainWork(ChainType::kInt32, 1000, 10).flops, 0);
  EXPECT_DOUBLE_EQ(ChainWork(ChainType::kBf16, 1000, 10).flops, w.flops);
  EXPECT_DOUBLE_EQ(ChainWork(ChainType::kDp4a, 1000, 10).ops, 4 * w.flops);
}

}  // namespace
}  // namespace gpuprobe::bench::gpu
