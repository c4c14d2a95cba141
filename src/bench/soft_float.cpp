#include "bench/soft_float.h"

#include <cmath>
#include <limits>

namespace gpuprobe::bench::soft {
namespace {

int Bias(Format f) { return (1 << (f.exponent_bits - 1)) - 1; }
std::uint16_t MaxExponentField(Format f) { return static_cast<std::uint16_t>((1 << f.exponent_bits) - 1); }
std::uint16_t SignBit(bool negative) { return negative ? 0x8000 : 0; }

std::uint16_t InfinityBits(Format f, bool negative) {
  return static_cast<std::uint16_t>(SignBit(negative) | (MaxExponentField(f) << f.mantissa_bits));
}

std::uint16_t NanBits(Format f, bool negative) {
  return static_cast<std::uint16_t>(InfinityBits(f, negative) | (1u << (f.mantissa_bits - 1)));
}

// The exponent of one unit in the last place at |x| (finite, non-zero), subnormals included.
int QuantumExponent(double magnitude, Format f) {
  int exp = 0;
  std::frexp(magnitude, &exp);  // magnitude = m * 2^exp, m in [0.5, 1)
  int unbiased = exp - 1;
  int min_normal = 1 - Bias(f);
  return (unbiased < min_normal ? min_normal : unbiased) - f.mantissa_bits;
}

// Rounds a non-negative integer-valued scale to nearest, ties to even, without relying on
// the current rounding mode.
double RoundHalfEven(double scaled) {
  double floor = std::floor(scaled);
  double fraction = scaled - floor;  // exact: scaled < 2^53
  if (fraction > 0.5) return floor + 1;
  if (fraction < 0.5) return floor;
  return std::fmod(floor, 2.0) == 0 ? floor : floor + 1;
}

// Whether x lies exactly halfway between two neighbours of `format`.
bool IsHalfway(double x, Format f) {
  double magnitude = std::fabs(x);
  if (magnitude == 0 || !std::isfinite(magnitude)) return false;
  double scaled = std::ldexp(magnitude, -QuantumExponent(magnitude, f));
  return scaled - std::floor(scaled) == 0.5;
}

}  // namespace

std::uint16_t RoundToBits(double x, Format f) {
  bool negative = std::signbit(x);
  if (std::isnan(x)) return NanBits(f, negative);
  double magnitude = std::fabs(x);
  if (std::isinf(magnitude)) return InfinityBits(f, negative);
  if (magnitude == 0) return SignBit(negative);
  int quantum = QuantumExponent(magnitude, f);
  double units = RoundHalfEven(std::ldexp(magnitude, -quantum));  // value = units x 2^quantum
  const double implicit = std::ldexp(1.0, f.mantissa_bits);
  if (units == 0) return SignBit(negative);
  if (units >= 2 * implicit) {  // rounded up into the next binade
    units /= 2;
    ++quantum;
  }
  int exponent_field = 0;
  if (units >= implicit) {
    exponent_field = quantum + f.mantissa_bits + Bias(f);
    units -= implicit;
  }
  if (exponent_field >= MaxExponentField(f)) return InfinityBits(f, negative);
  return static_cast<std::uint16_t>(SignBit(negative) | (exponent_field << f.mantissa_bits) |
                                    static_cast<std::uint16_t>(units));
}

double FromBits(std::uint16_t bits, Format f) {
  bool negative = (bits & 0x8000) != 0;
  int exponent_field = (bits >> f.mantissa_bits) & MaxExponentField(f);
  int mantissa = bits & ((1 << f.mantissa_bits) - 1);
  double value;
  if (exponent_field == MaxExponentField(f)) {
    value = mantissa == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  } else if (exponent_field == 0) {
    value = std::ldexp(static_cast<double>(mantissa), 1 - Bias(f) - f.mantissa_bits);
  } else {
    value = std::ldexp(static_cast<double>(mantissa + (1 << f.mantissa_bits)), exponent_field - Bias(f) - f.mantissa_bits);
  }
  return negative ? -value : value;
}

std::uint16_t FmaBits(std::uint16_t a, std::uint16_t b, std::uint16_t c, Format f) {
  double product = FromBits(a, f) * FromBits(b, f);  // exact: 2 x (mantissa + 1) <= 22 bits
  double addend = FromBits(c, f);
  double sum = product + addend;
  if (!std::isfinite(sum)) return RoundToBits(sum, f);
  // TwoSum: sum + error == product + addend exactly.
  double b_virtual = sum - product;
  double error = (product - (sum - b_virtual)) + (addend - b_virtual);
  if (error != 0 && IsHalfway(sum, f)) {
    // The exact value is just off the halfway point: step one double towards it, which keeps
    // it between the same two 16-bit neighbours and off the tie.
    sum = std::nextafter(sum, error > 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity());
  }
  // An exact zero keeps double's sign, which is IEEE's: +0 unless both terms are -0.
  return RoundToBits(sum, f);
}

}  // namespace gpuprobe::bench::soft
