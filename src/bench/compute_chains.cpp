#include "bench/compute_chains.h"

#include <cmath>

#include "bench/soft_float.h"

namespace gpuprobe::bench::gpu {

float ReplayChainF32(int k, std::uint64_t steps) {
  float x = ChainStart(k);
  for (std::uint64_t s = 0; s < steps; ++s) x = std::fmaf(x, kChainA, kChainB);
  return x;
}

double ReplayChainF64(int k, std::uint64_t steps) {
  double x = ChainStart(k);
  for (std::uint64_t s = 0; s < steps; ++s) x = std::fma(x, static_cast<double>(kChainA), static_cast<double>(kChainB));
  return x;
}

std::uint16_t ReplayChainF16(int k, std::uint64_t steps) {
  std::uint16_t x = soft::RoundToBits(ChainStart(k), soft::kHalf);  // exact: 1.125 .. 2.0
  for (std::uint64_t s = 0; s < steps; ++s) x = soft::FmaBits(x, kHalfChainA, kHalfChainB, soft::kHalf);
  return x;
}

std::uint32_t ReplayChainI32(int k, std::uint64_t steps) {
  std::uint32_t x = IntChainStart(k);
  for (std::uint64_t s = 0; s < steps; ++s) x = x * kIntChainA + kIntChainB;
  return x;
}

Work ChainWork(ChainType type, std::uint64_t threads, std::uint64_t steps) {
  Work w;
  double lane_steps = static_cast<double>(threads) * kChainsPerThread * static_cast<double>(steps);
  if (type == ChainType::kInt32) {
    w.ops = 2 * lane_steps;  // a multiply and an add per step
  } else {
    w.flops = 2 * lane_steps;
  }
  return w;
}

}  // namespace gpuprobe::bench::gpu
