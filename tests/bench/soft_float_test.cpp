// The software fp16/bf16 rounding and FMA the compute replays use, checked on the edge cases
// (subnormals, ties, overflow, signed zero, NaN), exhaustively over every fp16 value, and
// against an independent exact integer implementation of a*b+c.
#include "bench/soft_float.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include <gtest/gtest.h>

namespace gpuprobe::bench::soft {
namespace {

TEST(SoftFloatTest, HalfEdgeCases) {
  EXPECT_EQ(RoundToBits(1.0, kHalf), 0x3C00);
  EXPECT_EQ(RoundToBits(-2.0, kHalf), 0xC000);
  EXPECT_EQ(RoundToBits(65504.0, kHalf), 0x7BFF);          // largest finite
  EXPECT_EQ(RoundToBits(65519.99, kHalf), 0x7BFF);         // below the halfway point to 2^16
  EXPECT_EQ(RoundToBits(65520.0, kHalf), 0x7C00);          // the tie goes to even: infinity
  EXPECT_EQ(RoundToBits(-1e6, kHalf), 0xFC00);             // overflow keeps the sign
  EXPECT_EQ(RoundToBits(std::ldexp(1.0, -24), kHalf), 0x0001);   // smallest subnormal
  EXPECT_EQ(RoundToBits(std::ldexp(1.0, -25), kHalf), 0x0000);   // tie between 0 and it: even
  EXPECT_EQ(RoundToBits(std::ldexp(1.5, -25), kHalf), 0x0001);   // above the tie
  EXPECT_EQ(RoundToBits(std::ldexp(3.0, -25), kHalf), 0x0002);   // 1.5 units: tie to even 2
  EXPECT_EQ(RoundToBits(std::ldexp(5.0, -25), kHalf), 0x0002);   // 2.5 units: tie to even 2
  EXPECT_EQ(RoundToBits(std::ldexp(1.0, -14) - std::ldexp(1.0, -25), kHalf), 0x0400);  // subnormal rounds up to the smallest normal
  EXPECT_EQ(RoundToBits(1.0 + std::ldexp(1.0, -11), kHalf), 0x3C00);        // tie: even
  EXPECT_EQ(RoundToBits(1.0 + 3 * std::ldexp(1.0, -11), kHalf), 0x3C02);    // tie: even (up)
  EXPECT_EQ(RoundToBits(1.0 + std::ldexp(1.0, -11) + 1e-12, kHalf), 0x3C01);
  EXPECT_EQ(RoundToBits(-0.0, kHalf), 0x8000);
  EXPECT_EQ(RoundToBits(std::ldexp(1.0, -30), kHalf), 0x0000);  // underflow to +0
  EXPECT_EQ(RoundToBits(-std::ldexp(1.0, -30), kHalf), 0x8000);  // and to -0
  EXPECT_EQ(RoundToBits(std::numeric_limits<double>::quiet_NaN(), kHalf), 0x7E00);
  EXPECT_EQ(RoundToBits(std::numeric_limits<double>::infinity(), kHalf), 0x7C00);
  EXPECT_EQ(FromBits(0x0001, kHalf), std::ldexp(1.0, -24));
  EXPECT_EQ(FromBits(0x7BFF, kHalf), 65504.0);
  EXPECT_TRUE(std::isinf(FromBits(0xFC00, kHalf)) && FromBits(0xFC00, kHalf) < 0);
  EXPECT_TRUE(std::isnan(FromBits(0x7E00, kHalf)));
}

TEST(SoftFloatTest, Bf16EdgeCases) {
  EXPECT_EQ(RoundToBits(1.0, kBf16), 0x3F80);
  EXPECT_EQ(RoundToBits(0.999, kBf16), 0x3F80);                       // nearer to 1 than to 1 - 2^-8
  EXPECT_EQ(RoundToBits(1.0 + std::ldexp(1.0, -8), kBf16), 0x3F80);   // tie: even
  EXPECT_EQ(RoundToBits(1.0 + 3 * std::ldexp(1.0, -8), kBf16), 0x3F82);
  EXPECT_EQ(RoundToBits(std::ldexp(1.0, -133), kBf16), 0x0001);       // smallest subnormal
  EXPECT_EQ(RoundToBits(std::ldexp(1.0, -134), kBf16), 0x0000);       // tie with 0: even
  EXPECT_EQ(RoundToBits(3.3895313892515355e38, kBf16), 0x7F7F);       // largest finite
  EXPECT_EQ(RoundToBits(3.4e38, kBf16), 0x7F80);                      // past the halfway point
  EXPECT_EQ(RoundToBits(-std::numeric_limits<double>::quiet_NaN(), kBf16), 0xFFC0);
  EXPECT_EQ(FromBits(0x3A80, kBf16), std::ldexp(1.0, -10));
}

TEST(SoftFloatTest, EveryHalfRoundTripsAndEveryTieGoesToEven) {
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    auto h = static_cast<std::uint16_t>(bits);
    double v = FromBits(h, kHalf);
    if (std::isnan(v)) continue;
    ASSERT_EQ(RoundToBits(v, kHalf), h) << std::hex << bits;
    // The halfway point to the next value up (positive finite values): even wins, and a hair
    // either side decides.
    if ((bits & 0x8000) == 0 && bits < 0x7BFF) {
      double next = FromBits(static_cast<std::uint16_t>(bits + 1), kHalf);
      double mid = (v + next) / 2;  // exact in double
      std::uint16_t even = (bits & 1) == 0 ? h : static_cast<std::uint16_t>(bits + 1);
      ASSERT_EQ(RoundToBits(mid, kHalf), even) << std::hex << bits;
      ASSERT_EQ(RoundToBits(std::nextafter(mid, 0.0), kHalf), h) << std::hex << bits;
      ASSERT_EQ(RoundToBits(std::nextafter(mid, 1e9), kHalf), static_cast<std::uint16_t>(bits + 1)) << std::hex << bits;
    }
  }
}

// GCC's 128-bit integers, spelled so -Wpedantic accepts them.
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

// An independent a*b+c: every operand is an integer times 2^-scale, the exact result an
// __int128, rounded to nearest even with integer arithmetic only.
std::uint16_t ExactFma(std::uint16_t a, std::uint16_t b, std::uint16_t c, Format f, int scale) {
  auto to_units = [&](std::uint16_t bits, int s) {  // value x 2^s as an integer
    double v = FromBits(bits, f) * std::ldexp(1.0, s);
    return static_cast<Int128>(v);  // exact by the choice of s
  };
  Int128 exact = to_units(a, scale) * to_units(b, scale) + to_units(c, 2 * scale);  // x 2^-2scale
  bool negative = exact < 0;
  UInt128 n = static_cast<UInt128>(negative ? -exact : exact);
  if (n == 0) {
    bool zero_negative = std::signbit(FromBits(a, f) * FromBits(b, f)) && std::signbit(FromBits(c, f));
    return zero_negative ? 0x8000 : 0;
  }
  int top = 127;
  while (((n >> top) & 1) == 0) --top;  // value in [2^(top - 2scale), 2^(top - 2scale + 1))
  int bias = (1 << (f.exponent_bits - 1)) - 1;
  int exponent = top - 2 * scale;
  int quantum = std::max(exponent, 1 - bias) - f.mantissa_bits;  // ulp = 2^quantum
  int shift = quantum + 2 * scale;                                // units = n / 2^shift
  UInt128 units = n >> shift;
  UInt128 rest = n - (units << shift);
  UInt128 half = static_cast<UInt128>(1) << (shift - 1);
  if (rest > half || (rest == half && (units & 1) != 0)) ++units;
  UInt128 implicit = static_cast<UInt128>(1) << f.mantissa_bits;
  if (units >= 2 * implicit) {
    units >>= 1;
    ++quantum;
  }
  int field = 0;
  if (units >= implicit) {
    field = quantum + f.mantissa_bits + bias;
    units -= implicit;
  }
  std::uint16_t sign = negative ? 0x8000 : 0;
  if (field >= (1 << f.exponent_bits) - 1) return static_cast<std::uint16_t>(sign | (((1 << f.exponent_bits) - 1) << f.mantissa_bits));
  return static_cast<std::uint16_t>(sign | (field << f.mantissa_bits) | static_cast<std::uint16_t>(units));
}

TEST(SoftFloatTest, HalfFmaMatchesExactIntegerArithmeticWhereFloatWouldRoundTwice) {
  std::mt19937 rng(11);
  auto pick = [&] {
    std::uint16_t bits;
    do bits = static_cast<std::uint16_t>(rng()); while ((bits & 0x7C00) == 0x7C00);  // finite
    return bits;
  };
  int float_path_wrong = 0;
  for (int i = 0; i < 400000; ++i) {
    std::uint16_t a = pick(), b = pick(), c = pick();
    std::uint16_t exact = ExactFma(a, b, c, kHalf, 24);
    ASSERT_EQ(FmaBits(a, b, c, kHalf), exact) << std::hex << a << " " << b << " " << c;
    // The tempting shortcut, fmaf in float and then a rounding to half, rounds twice.
    float via_float = std::fmaf(static_cast<float>(FromBits(a, kHalf)), static_cast<float>(FromBits(b, kHalf)),
                                static_cast<float>(FromBits(c, kHalf)));
    float_path_wrong += RoundToBits(via_float, kHalf) != exact;
  }
  EXPECT_GT(float_path_wrong, 0) << "no double-rounding case met: the exact check would not be needed";
}

TEST(SoftFloatTest, Bf16FmaMatchesExactIntegerArithmetic) {
  std::mt19937 rng(12);
  auto pick = [&] {  // exponents within 2^-20 .. 2^20 so the exact value fits in 128 bits
    int exponent = static_cast<int>(rng() % 41) - 20 + 127;
    return static_cast<std::uint16_t>((rng() & 0x8000) | (exponent << 7) | (rng() & 0x7F));
  };
  for (int i = 0; i < 400000; ++i) {
    std::uint16_t a = pick(), b = pick(), c = pick();
    ASSERT_EQ(FmaBits(a, b, c, kBf16), ExactFma(a, b, c, kBf16, 27)) << std::hex << a << " " << b << " " << c;
  }
}

TEST(SoftFloatTest, UlpDistanceCountsValuesBetween) {
  EXPECT_EQ(UlpDistance(0x3C00, 0x3C00), 0u);
  EXPECT_EQ(UlpDistance(0x3C00, 0x3C01), 1u);
  EXPECT_EQ(UlpDistance(0x3BFF, 0x3C00), 1u);   // across a binade
  EXPECT_EQ(UlpDistance(0x8000, 0x0000), 0u);   // -0 and +0
  EXPECT_EQ(UlpDistance(0x8001, 0x0001), 2u);   // across zero
  EXPECT_EQ(UlpDistance(0xC000, 0x4000), 2u * 0x4000);
}

TEST(SoftFloatTest, FmaTiesZerosAndOverflow) {
  const std::uint16_t one = 0x3C00;
  const std::uint16_t tie = RoundToBits(std::ldexp(1.0, -11), kHalf);  // 1 + 2^-11: halfway
  EXPECT_EQ(FmaBits(one, one, tie, kHalf), 0x3C00);                       // tie: even
  const std::uint16_t above = RoundToBits(std::ldexp(1.0, -11) + std::ldexp(1.0, -21), kHalf);
  EXPECT_EQ(FmaBits(one, one, above, kHalf), 0x3C01);                     // above: up
  EXPECT_EQ(FmaBits(0x8000, one, 0x8000, kHalf), 0x8000);  // -0 * 1 + -0 = -0
  EXPECT_EQ(FmaBits(one, one, 0xBC00, kHalf), 0x0000);     // 1 - 1 = +0
  EXPECT_EQ(FmaBits(0x7BFF, 0x4000, 0x0000, kHalf), 0x7C00);  // overflow to infinity
  EXPECT_EQ(FmaBits(0x0001, 0x3800, 0x0000, kHalf), 0x0000);  // 2^-25: tie with 0, even
}

}  // namespace
}  // namespace gpuprobe::bench::soft
