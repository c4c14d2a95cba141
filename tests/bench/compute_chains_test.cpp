// The compute peaks' chains, replayed on the CPU: each replay follows the device instruction
// bit for bit (fp16 through the software FMA), and every chain still changes on its last
// step, so a kernel that ran fewer steps cannot pass verification.
#include "bench/compute_chains.h"

#include <cmath>
#include <cstring>

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

TEST(ComputeChainsTest, EveryChainStillMovesOnItsLastStepAndStaysFinite) {
  for (int k = 0; k < kChainsPerThread; ++k) {
    EXPECT_NE(ReplayChainF32(k, kChainSteps), ReplayChainF32(k, kChainSteps - 1)) << k;
    EXPECT_NE(ReplayChainF64(k, kChainSteps), ReplayChainF64(k, kChainSteps - 1)) << k;
    EXPECT_NE(ReplayChainF16(k, kChainSteps), ReplayChainF16(k, kChainSteps - 1)) << k;
    EXPECT_NE(ReplayChainI32(k, kChainSteps), ReplayChainI32(k, kChainSteps - 1)) << k;
    EXPECT_TRUE(std::isfinite(soft::FromBits(ReplayChainF16(k, kChainSteps), soft::kHalf))) << k;
  }
}

TEST(ComputeChainsTest, WorkCountsTwoPerFmaOrMultiplyAdd) {
  Work w = ChainWork(ChainType::kFp32, 1000, 10);
  EXPECT_DOUBLE_EQ(w.flops, 1000.0 * kChainsPerThread * 10 * 2);
  EXPECT_DOUBLE_EQ(ChainWork(ChainType::kFp16, 1000, 10).flops, w.flops);  // per half lane
  EXPECT_DOUBLE_EQ(ChainWork(ChainType::kInt32, 1000, 10).ops, w.flops);
  EXPECT_DOUBLE_EQ(ChainWork(ChainType::kInt32, 1000, 10).flops, 0);
}

}  // namespace
}  // namespace gpuprobe::bench::gpu
