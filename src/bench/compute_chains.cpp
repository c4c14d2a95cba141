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

std::uint16_t ReplayChainBf16(int k, std::uint64_t steps) {
  std::uint16_t x = soft::RoundToBits(ChainStart(k), soft::kBf16);  // exact: 1.125 .. 2.0
  for (std::uint64_t s = 0; s < steps; ++s) x = soft::FmaBits(x, kBf16ChainA, kBf16ChainB, soft::kBf16);
  return x;
}

std::int32_t Dp4a(std::int32_t x, std::int32_t y, std::int32_t c) {
  std::int64_t sum = c;
  for (int i = 0; i < 4; ++i) {
    auto byte = [i](std::int32_t v) { return static_cast<std::int8_t>(static_cast<std::uint32_t>(v) >> (8 * i)); };
    sum += static_cast<std::int64_t>(byte(x)) * byte(y);
  }
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(sum));  // modulo 2^32, as the device
}

std::int32_t ReplayChainDp4a(int k, std::uint64_t steps) {
  std::int32_t x = Dp4aChainStart(k);
  for (std::uint64_t s = 0; s < steps; ++s) x = Dp4a(x, kDp4aChainA, kDp4aChainB);
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
  } else if (type == ChainType::kDp4a) {
    w.ops = 8 * lane_steps;  // four multiplies and four adds per step
  } else {
    w.flops = 2 * lane_steps;
  }
  return w;
}

}  // namespace gpuprobe::bench::gpu
