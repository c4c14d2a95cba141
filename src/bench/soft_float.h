// Software fp16 (IEEE binary16) and bf16 arithmetic on the host, exact to the bit: rounding a
// value to either format once (to nearest, ties to even, subnormals kept, overflow to
// infinity) and the fused multiply-add the GPU's fma.rn.f16x2 / fma.rn.bf16x2 instructions
// do (a*b+c computed exactly, rounded once). The compute suites replay their device chains
// with these, so a result that differs by one bit is a wrong result, not a tolerance.
//
// Thread safety: pure functions; independent of the floating-point environment.
#pragma once

#include <cstdint>

#include "bench/host_device.h"

namespace gpuprobe::bench::soft {

/// A 16-bit binary floating-point format: 1 sign bit, `exponent_bits`, `mantissa_bits`.
struct Format {
  int exponent_bits;
  int mantissa_bits;
};
inline constexpr Format kHalf{5, 10};  ///< IEEE binary16 (CUDA __half)
inline constexpr Format kBf16{8, 7};   ///< bfloat16 (CUDA __nv_bfloat16)

/// `x` rounded once to `format`, to nearest with ties to even, as bits. Subnormal results are
/// kept (not flushed); a magnitude that rounds beyond the largest finite value becomes
/// infinity; NaN becomes the canonical quiet NaN (sign kept); -0 stays -0.
std::uint16_t RoundToBits(double x, Format format);

/// The exact value of `bits` in `format` (infinities and NaN included).
double FromBits(std::uint16_t bits, Format format);

/// a*b + c computed exactly and rounded once to `format` (inputs and result as bits): what
/// fma.rn.f16 / fma.rn.bf16 compute. The product of two 16-bit values is exact in double;
/// the sum is computed with its exact error (TwoSum), and a sum that lands exactly on a
/// halfway point between two results is moved to the side the exact value lies on, so the
/// double rounding of "to double, then to 16 bits" cannot happen.
std::uint16_t FmaBits(std::uint16_t a, std::uint16_t b, std::uint16_t c, Format format);

/// How many representable values lie between two finite 16-bit values of the same format (0
/// when equal, +0 and -0 included; 1 for neighbours), on the host and in kernels alike.
GPUPROBE_HOST_DEVICE inline std::uint32_t UlpDistance(std::uint16_t a, std::uint16_t b) {
  // Sign-magnitude to a line: -0 and +0 meet at 0, the order of the values is kept.
  auto line = [](std::uint16_t bits) -> std::int32_t {
    std::int32_t magnitude = bits & 0x7FFF;
    return (bits & 0x8000) != 0 ? -magnitude : magnitude;
  };
  std::int32_t d = line(a) - line(b);
  return static_cast<std::uint32_t>(d < 0 ? -d : d);
}

}  // namespace gpuprobe::bench::soft
