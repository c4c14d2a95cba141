// The GPU kernels' arithmetic, checked without a GPU: the kernels include the same header.
#include "bench/gpu_kernel_math.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>
#include <vector>

#include "bench/soft_float.h"

#include <gtest/gtest.h>

namespace gpuprobe::bench::gpu {
namespace {

TEST(GpuFillTest, ValuesAreExactMultiplesOfAThousandTwentyFourthInRange) {
  for (std::uint64_t i = 0; i < 100000; i += 7) {
    float v = FillValue(i, kSeedA);
    EXPECT_GE(v, -512.0f);
    EXPECT_LT(v, 512.0f);
    EXPECT_EQ(v * 1024.0f, std::round(v * 1024.0f)) << i;
  }
  EXPECT_NE(FillValue(5, kSeedA), FillValue(5, kSeedB));  // seeds give different arrays
}

TEST(GpuFillTest, BitSumAddsTheBitPatterns) {
  float a = FillValue(10, kSeedA), b = FillValue(11, kSeedA);
  std::uint32_t ba, bb;
  std::memcpy(&ba, &a, 4);
  std::memcpy(&bb, &b, 4);
  EXPECT_EQ(FillBitSum(10, 2, kSeedA), ba + bb);
  EXPECT_EQ(FillBitSum(5, 0, kSeedA), 0u);
}

TEST(GpuFillTest, StreamResultsAreExactInFloat) {
  // With or without fused multiply-add the device gets these bits: check against double.
  for (std::uint64_t i = 0; i < 100000; i += 13) {
    double a = FillValue(i, kSeedA), b = FillValue(i, kSeedB);
    EXPECT_EQ(static_cast<double>(StreamElement(StreamOp::kTriad, i)), a + 3.0 * b);
    EXPECT_EQ(static_cast<double>(StreamElement(StreamOp::kAdd, i)), a + b);
    EXPECT_EQ(static_cast<double>(StreamElement(StreamOp::kScale, i)), 3.0 * a);
  }
}

TEST(GpuStreamWorkTest, BytesAndFlopsPerElement) {
  Work triad = StreamWork(StreamOp::kTriad, 1000);
  EXPECT_DOUBLE_EQ(triad.bytes_read, 8000);
  EXPECT_DOUBLE_EQ(triad.bytes_written, 4000);
  EXPECT_DOUBLE_EQ(triad.flops, 2000);
  Work dot = StreamWork(StreamOp::kDot, 1000);
  EXPECT_DOUBLE_EQ(dot.bytes_written, 0);
  EXPECT_DOUBLE_EQ(StreamWork(StreamOp::kCopy, 10).flops, 0);
}

TEST(GpuGeometryTest, EveryElementExactlyOnceForOddSizes) {
  for (std::uint64_t n : {1ull, 3ull, 4ull, 5ull, 255ull, 1023ull, 4097ull, 100003ull}) {
    for (int width : {1, 4}) {
      for (int sms : {1, 3, 132}) {
        LaunchGeometry g = GridStride(n, width, 128, sms, 2);
        auto counts = SimulateCoverage(n, width, g);
        for (std::uint64_t i = 0; i < n; ++i) {
          ASSERT_EQ(counts[i], 1) << "n=" << n << " width=" << width << " sms=" << sms << " element " << i;
        }
      }
    }
  }
}

TEST(GpuGeometryTest, OneFullWaveOfTheBlocksThatFit) {
  // The timed grid-stride kernels launch what the occupancy calculator says fits per SM
  // (KernelGeometry): with 6 resident, 6 per SM, one wave, not 8 (1.33 waves).
  EXPECT_EQ(GridStride(1ull << 30, 1, 256, 132, 6).blocks, 132u * 6);
  EXPECT_EQ(GridStride(1ull << 30, 4, 256, 132, 6).blocks % 132, 0u);
  EXPECT_EQ(GridStride(1ull << 30, 1, 256, 84, 3).blocks, 84u * 3);
}

TEST(GpuGeometryTest, BlocksFillTheGpuButNeverExceedTheWork) {
  LaunchGeometry big = GridStride(1ull << 30, 4, 256, 132, 8);
  EXPECT_EQ(big.blocks, 132u * 8);
  LaunchGeometry small = GridStride(1000, 4, 256, 132, 8);
  EXPECT_EQ(small.blocks, 1u);  // 250 float4s: one block
  EXPECT_EQ(GridStride(0, 4, 256, 132).blocks, 1u);
  EXPECT_GE(GridStride(10, 1, 7, 1).threads, 32u);  // at least a warp
}

TEST(GpuMatmulTest, TotalsAgreeWithEveryElement) {
  const std::uint64_t n = 24;
  double total = 0, abt_total = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    for (std::uint64_t j = 0; j < n; ++j) {
      total += MatmulElement(n, i, j);
      abt_total += MatmulAbtElement(n, i, j);
    }
  }
  EXPECT_EQ(MatmulTotal(n), total);
  EXPECT_EQ(MatmulAbtTotal(n), abt_total);
  for (std::uint64_t i = 0; i < 50; ++i) {
    float v = MatmulValue(i, kSeedA);
    EXPECT_TRUE(v >= -2 && v <= 2 && v == std::round(v)) << v;
  }
  EXPECT_DOUBLE_EQ(MatmulWork(10).flops, 2000);
}

// cuBLAS's "TN" GEMM as BLAS defines it, on the host: column-major operands, op(A) = A^T.
// Passing the row-major buffers of A and B must give D = A x B^T at i + j n.
TEST(GpuMatmulTest, TnLayoutOfRowMajorBuffersIsABTransposedColumnMajor) {
  const std::uint64_t n = 12;
  std::vector<double> a(n * n), b(n * n);
  for (std::uint64_t i = 0; i < n * n; ++i) {
    a[i] = MatmulValue(i, kSeedA);
    b[i] = MatmulValue(i, kSeedB);
  }
  const std::uint64_t lda = n, ldb = n, ldd = n;
  for (std::uint64_t i = 0; i < n; ++i) {
    for (std::uint64_t j = 0; j < n; ++j) {
      double d = 0;
      // op(A)(i, k) = A_cm(k, i) = a[k + i lda]; op(B)(k, j) = B_cm(k, j) = b[k + j ldb].
      for (std::uint64_t k = 0; k < n; ++k) d += a[k + i * lda] * b[k + j * ldb];
      EXPECT_EQ(MatmulExpectedAt(n, i + j * ldd, true), d) << i << "," << j;
      // The NN rungs: C = A x B row-major, element (i, j) at i n + j.
      double c = 0;
      for (std::uint64_t k = 0; k < n; ++k) c += a[i * n + k] * b[k * n + j];
      EXPECT_EQ(MatmulExpectedAt(n, i * n + j, false), c);
    }
  }
}

// --- memory.dot, summed exactly -----------------------------------------------------------

TEST(GpuDotTest, EachTermIsTheFp32ProductInUnitsOfTwoToTheMinusTwenty) {
  for (std::uint64_t i = 0; i < 200000; i += 17) {
    const float a = FillValue(i, kSeedA), b = FillValue(i, kSeedB);
    // The exact product (40 bits) rounded once to fp32, as STREAM's a*b is.
    const double rounded = static_cast<double>(static_cast<float>(static_cast<double>(a) * static_cast<double>(b)));
    const std::int64_t term = DotFixedTerm(a, b);
    EXPECT_EQ(static_cast<double>(term) * kDotFixedUnit, rounded) << i;  // a whole number of 2^-20 units, none lost
    EXPECT_LT(std::llabs(term), 1ll << 38) << i;
  }
}

TEST(GpuDotTest, TheFixedPointSumIsExactInAnyOrder) {
  // Against an exact signed sum (each term below 2^38, so 100003 of them stay below 2^55: no
  // wrap-around), and the kernel's order (threads striding over float4s, then a warp's shuffle
  // tree): integer additions, so every order gives the same bits.
  const std::uint64_t n = 100003;
  std::int64_t exact = 0;
  std::vector<std::uint64_t> terms(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    terms[i] = static_cast<std::uint64_t>(DotFixedTerm(FillValue(i, kSeedA), FillValue(i, kSeedB)));
    exact += static_cast<std::int64_t>(terms[i]);
  }
  EXPECT_EQ(DotFixedExpected(n), static_cast<std::uint64_t>(exact));
  const std::uint64_t threads = 96;
  std::vector<std::uint64_t> per_thread(threads, 0);
  for (std::uint64_t t = 0; t < threads; ++t) {
    for (std::uint64_t v = t; v < n / 4; v += threads) per_thread[t] += terms[4 * v] + terms[4 * v + 1] + terms[4 * v + 2] + terms[4 * v + 3];
    for (std::uint64_t i = n / 4 * 4 + t; i < n; i += threads) per_thread[t] += terms[i];
  }
  std::uint64_t kernel_order = 0;
  for (std::uint64_t t = threads; t-- > 0;) kernel_order += per_thread[t];
  EXPECT_EQ(kernel_order, DotFixedExpected(n));
  // Three launches add three sums: what Verify compares after counting the launches.
  EXPECT_EQ(DotFixedExpected(n) * 3, static_cast<std::uint64_t>(exact * 3));
}

TEST(GpuDotTest, ADroppedOrDoubledElementAlwaysChangesTheSum) {
  // The old check allowed 1e-9 x sum |ab| (about 1.8e4 at 2^28 elements), more than a quarter
  // of the products; exact integers leave nothing to hide in.
  const std::uint64_t n = 4096, sum = DotFixedExpected(n);
  for (std::uint64_t i = 0; i < n; i += 7) {
    const std::uint64_t term = static_cast<std::uint64_t>(DotFixedTerm(FillValue(i, kSeedA), FillValue(i, kSeedB)));
    if (term == 0) continue;  // a zero product: dropping it changes nothing, rightly
    EXPECT_NE(sum - term, sum) << i;
    EXPECT_NE(sum + term, sum) << i;
  }
}

// --- the fp32 rungs' TF32 probe --------------------------------------------------------------

// The fp32 value rounded to TF32 (10 stored mantissa bits, to nearest even), as a tensor core
// in TF32 mode reads it.
float ToTf32(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, 4);
  bits += 0xFFFu + ((bits >> 13) & 1u);
  bits &= ~0x1FFFu;
  std::memcpy(&x, &bits, 4);
  return x;
}

// Row 0 of C = A x B with the probed A, by a host fp32 GEMM (one fmaf per product, as the
// SIMT rungs), with A's values optionally read through TF32.
std::vector<float> ProbedFirstRow(std::uint64_t n, bool tf32) {
  std::vector<float> row(n, 0.0f);
  for (std::uint64_t j = 0; j < n; ++j) {
    float sum = 0;
    for (std::uint64_t k = 0; k < n; ++k) {
      float a = MatmulProbedValue(k, n), b = MatmulValue(k * n + j, kSeedB);
      if (tf32) a = ToTf32(a), b = ToTf32(b);
      sum = std::fmaf(a, b, sum);
    }
    row[j] = sum;
  }
  return row;
}

TEST(GpuMatmulProbeTest, AnFp32GemmKeepsTheProbeAndATf32OneLosesIt) {
  const std::uint64_t n = 64;
  EXPECT_EQ(static_cast<double>(kTf32Probe), 1.0 + std::ldexp(1.0, -20));
  EXPECT_EQ(ToTf32(kTf32Probe), 1.0f);  // what TF32 makes of it
  auto fp32 = ProbedFirstRow(n, false), tf32 = ProbedFirstRow(n, true);
  int differ = 0;
  for (std::uint64_t j = 0; j < n; ++j) {
    EXPECT_EQ(static_cast<double>(fp32[j]), MatmulElement(n, 0, j, true)) << j;
    EXPECT_EQ(static_cast<double>(fp32[j]), MatmulExpectedAt(n, j, false, true)) << j;
    EXPECT_EQ(tf32[j], MatmulValue(j, kSeedB)) << j;  // B's row 0: what VerifyExact names as TF32
    differ += static_cast<double>(tf32[j]) != MatmulElement(n, 0, j, true);
  }
  // Every element of B's row 0 that is not 0 shows the difference.
  int nonzero = 0;
  for (std::uint64_t j = 0; j < n; ++j) nonzero += MatmulValue(j, kSeedB) != 0.0f;
  EXPECT_EQ(differ, nonzero);
  EXPECT_GT(nonzero, static_cast<int>(n / 2));
  // The other rows are the unprobed product.
  EXPECT_EQ(MatmulElement(n, 5, 7, true), MatmulElement(n, 5, 7, false));
}

TEST(GpuMatmulProbeTest, TheDeviceSumLeavesOutTheFirstRow) {
  for (bool transposed : {false, true}) {
    const std::uint64_t n = 20;
    double rest = 0;
    for (std::uint64_t index = n; index < n * n; ++index) rest += MatmulExpectedAt(n, index, transposed);
    EXPECT_EQ(MatmulTotalBeyondFirstRow(n, transposed), rest) << transposed;
  }
}

// --- timed GEMM inputs with full mantissas -----------------------------------------------------

TEST(GpuGemmInputTest, EveryValueIsExactInItsTypeAndInRange) {
  for (GemmInput t : {GemmInput::kFp32, GemmInput::kTf32, GemmInput::kFp16, GemmInput::kBf16, GemmInput::kFp8E4M3}) {
    const int bits = GemmInputMantissaBits(t);
    for (std::uint64_t i = 0; i < 50000; ++i) {
      const float v = GemmRandomValue(i, kSeedA, t);
      ASSERT_GE(std::fabs(v), 1.0f / 16) << i;
      ASSERT_LT(std::fabs(v), 1.0f) << i;
      int exponent = 0;
      const double mantissa = std::frexp(static_cast<double>(v), &exponent);  // in [0.5, 1)
      const double scaled = std::ldexp(mantissa, bits + 1);
      ASSERT_EQ(scaled, std::floor(scaled)) << "more than " << bits << " mantissa bits: " << v;
      if (t == GemmInput::kBf16) {
        ASSERT_EQ(soft::FromBits(soft::RoundToBits(v, soft::kBf16), soft::kBf16), v);
      }
      if (t == GemmInput::kFp16) {
        ASSERT_EQ(soft::FromBits(soft::RoundToBits(v, soft::kHalf), soft::kHalf), v);
      }
      // e4m3: 3 mantissa bits, and [1/16, 1) lies in its normal range (from 2^-6).
    }
  }
}

TEST(GpuGemmInputTest, EveryMantissaBitSignAndBinadeSwitches) {
  // The point of the random inputs: unlike MatmulValue's {-2, ..., 2}, every stored mantissa bit
  // is set about half the time, and there are no zeros.
  const int samples = 40000;
  for (GemmInput t : {GemmInput::kFp32, GemmInput::kFp16, GemmInput::kBf16, GemmInput::kFp8E4M3}) {
    const int bits = GemmInputMantissaBits(t);
    std::vector<int> set(static_cast<size_t>(bits), 0);
    int negative = 0;
    std::vector<int> binade(4, 0);
    for (int i = 0; i < samples; ++i) {
      const float v = GemmRandomValue(static_cast<std::uint64_t>(i), kSeedB, t);
      ASSERT_NE(v, 0.0f);
      negative += v < 0;
      int exponent = 0;
      const double mantissa = std::frexp(std::fabs(static_cast<double>(v)), &exponent);
      binade[static_cast<size_t>(-exponent)] += 1;  // exponent -3 .. 0
      const auto field = static_cast<std::uint32_t>(std::ldexp(mantissa, bits + 1)) - (1u << bits);
      for (int b = 0; b < bits; ++b) set[static_cast<size_t>(b)] += (field >> b) & 1u;
    }
    for (int b = 0; b < bits; ++b) {
      EXPECT_NEAR(set[static_cast<size_t>(b)], samples / 2, samples / 20) << "mantissa bit " << b << " of type " << static_cast<int>(t);
    }
    EXPECT_NEAR(negative, samples / 2, samples / 20);
    for (int e = 0; e < 4; ++e) EXPECT_NEAR(binade[static_cast<size_t>(e)], samples / 4, samples / 20) << e;
  }
  std::set<int> int8_values;
  for (std::uint64_t i = 0; i < 20000; ++i) {
    const float v = GemmRandomValue(i, kSeedA, GemmInput::kInt8);
    ASSERT_EQ(v, std::round(v));
    ASSERT_GE(v, -128.0f);
    ASSERT_LE(v, 127.0f);
    int8_values.insert(static_cast<int>(v));
  }
  EXPECT_EQ(int8_values.size(), 256u);
  EXPECT_NE(GemmRandomValue(3, kSeedA, GemmInput::kBf16), GemmRandomValue(3, kSeedB, GemmInput::kBf16));
}

TEST(GpuGemmInputTest, TheReferenceIsTheProductInBothLayouts) {
  const std::uint64_t n = 9;
  for (GemmInput t : {GemmInput::kBf16, GemmInput::kInt8}) {
    std::int64_t int_total = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      for (std::uint64_t j = 0; j < n; ++j) {
        double c = 0, d = 0, abs_c = 0;
        for (std::uint64_t k = 0; k < n; ++k) {
          const double a = GemmRandomValue(i * n + k, kSeedA, t);
          c += a * GemmRandomValue(k * n + j, kSeedB, t);
          abs_c += std::fabs(a * GemmRandomValue(k * n + j, kSeedB, t));
          d += a * GemmRandomValue(j * n + k, kSeedB, t);
        }
        GemmReference nn = GemmRandomExpectedAt(t, n, i * n + j, false), tn = GemmRandomExpectedAt(t, n, i + j * n, true);
        EXPECT_EQ(nn.value, c);
        EXPECT_EQ(nn.abs_sum, abs_c);
        EXPECT_EQ(tn.value, d);  // column-major D = A x B^T
        if (t == GemmInput::kInt8) int_total += static_cast<std::int64_t>(d);
      }
    }
    if (t == GemmInput::kInt8) {
      EXPECT_EQ(GemmRandomInt8Total(n, true), int_total);
    }
  }
}

// --- the tolerance -------------------------------------------------------------------------------

TEST(GpuGemmToleranceTest, UnitsFollowTheFormats) {
  GemmNumerics bf16 = GemmNumericsOf(GemmInput::kBf16, GemmAccumulate::kFp32, GemmOutput::kBf16);
  EXPECT_EQ(bf16.input_unit, 0);
  EXPECT_EQ(bf16.accumulate_unit, std::ldexp(1.0, -23));
  EXPECT_EQ(bf16.output_unit, std::ldexp(1.0, -8));
  EXPECT_EQ(GemmNumericsOf(GemmInput::kFp16, GemmAccumulate::kFp32, GemmOutput::kFp16).output_unit, std::ldexp(1.0, -11));
  EXPECT_EQ(GemmNumericsOf(GemmInput::kTf32, GemmAccumulate::kFp32, GemmOutput::kFp32).input_unit, std::ldexp(1.0, -10));
  EXPECT_EQ(GemmNumericsOf(GemmInput::kFp8E4M3, GemmAccumulate::kFp8Fast, GemmOutput::kFp32).accumulate_unit, std::ldexp(1.0, -13));
  EXPECT_EQ(GemmTolerance(GemmNumericsOf(GemmInput::kInt8, GemmAccumulate::kInt32, GemmOutput::kInt32), 8192, 1e6, 1e8), 0);
}

TEST(GpuGemmToleranceTest, TheFormulaWithKnownNumbers) {
  const GemmNumerics m = GemmNumericsOf(GemmInput::kBf16, GemmAccumulate::kFp32, GemmOutput::kBf16);
  const double k = 8192, c = 10, s = 2000;
  const double expected = std::ldexp(1.0, -8) * c + (1 + std::ldexp(1.0, -8)) * (std::pow(1 + std::ldexp(1.0, -23), k) - 1) * s +
                          (std::pow(1 + std::ldexp(1.0, -53), k) - 1) * s;
  EXPECT_NEAR(GemmTolerance(m, 8192, c, s), expected, expected * 1e-9);
  EXPECT_NEAR(GemmTolerance(m, 8192, -c, s), expected, expected * 1e-9);  // |c|
  // It grows with K, with the value and with the products' magnitudes.
  EXPECT_LT(GemmTolerance(m, 1024, c, s), GemmTolerance(m, 8192, c, s));
  EXPECT_LT(GemmTolerance(m, 8192, c, s), GemmTolerance(m, 8192, 2 * c, s));
  // The tf32 GEMM's own rounding of its inputs: about 2 x 2^-10 of the products' sum.
  const GemmNumerics tf32 = GemmNumericsOf(GemmInput::kTf32, GemmAccumulate::kFp32, GemmOutput::kFp32);
  EXPECT_GT(GemmTolerance(tf32, 1, 0, 1), 2 * std::ldexp(1.0, -10));
  EXPECT_LT(GemmTolerance(tf32, 1, 0, 1), 2.1 * std::ldexp(1.0, -10));
  // The output bound holds the largest possible element.
  EXPECT_GT(GemmOutputBound(m, GemmInput::kBf16, 8192), 8192);
  EXPECT_EQ(GemmOutputBound(GemmNumericsOf(GemmInput::kInt8, GemmAccumulate::kInt32, GemmOutput::kInt32), GemmInput::kInt8, 8192),
            8192.0 * 128 * 128);
}

// One output element of a bf16 GEMM replayed on the host: products exact in fp32, summed in
// fp32 in order, rounding to nearest or truncating (what tensor cores do), the result rounded
// to bf16 or kept in fp32.
double ReplayElement(std::uint64_t n, std::uint64_t i, std::uint64_t j, bool truncate, bool bf16_out) {
  float sum = 0;
  for (std::uint64_t k = 0; k < n; ++k) {
    const float p = GemmRandomValue(i * n + k, kSeedA, GemmInput::kBf16) * GemmRandomValue(k * n + j, kSeedB, GemmInput::kBf16);
    const double exact = static_cast<double>(sum) + static_cast<double>(p);
    float r = static_cast<float>(exact);
    if (truncate && std::fabs(static_cast<double>(r)) > std::fabs(exact)) r = std::nextafter(r, 0.0f);
    sum = r;
  }
  return bf16_out ? soft::FromBits(soft::RoundToBits(sum, soft::kBf16), soft::kBf16) : static_cast<double>(sum);
}

TEST(GpuGemmToleranceTest, ACorrectGemmOnRandomInputsStaysWithinIt) {
  for (std::uint64_t n : {64ull, 1024ull, 8192ull}) {
    for (bool bf16_out : {false, true}) {
      const GemmNumerics m = GemmNumericsOf(GemmInput::kBf16, GemmAccumulate::kFp32, bf16_out ? GemmOutput::kBf16 : GemmOutput::kFp32);
      const int elements = n == 8192 ? 6 : 24;
      int sign_flips_caught = 0;
      for (int e = 0; e < elements; ++e) {
        const std::uint64_t i = static_cast<std::uint64_t>(e) * 7 % n, j = static_cast<std::uint64_t>(e) * 13 % n;
        const GemmReference want = GemmRandomExpectedAt(GemmInput::kBf16, n, i * n + j, false);
        const double tolerance = GemmTolerance(m, n, want.value, want.abs_sum);
        for (bool truncate : {false, true}) {
          const double got = ReplayElement(n, i, j, truncate, bf16_out);
          EXPECT_LE(std::fabs(got - want.value), tolerance) << "n=" << n << " element " << e << (truncate ? " truncating" : "");
        }
        // A result of the wrong sign (a wrong operand or layout usually gives an unrelated
        // value of the same size) is outside the tolerance unless the element is tiny.
        sign_flips_caught += std::fabs(-want.value - want.value) > tolerance;
      }
      EXPECT_GE(sign_flips_caught, elements * 2 / 3) << "n=" << n;
    }
  }
}

TEST(GpuBatchTest, RepetitionsReachAHundredMicroseconds) {
  EXPECT_EQ(BatchRepetitions(1e-3), 1);
  EXPECT_EQ(BatchRepetitions(10e-6), 10);
  EXPECT_EQ(BatchRepetitions(1e-9), 256);
  EXPECT_EQ(BatchRepetitions(0), 256);
  EXPECT_EQ(BatchRepetitions(NAN), 256);
}

}  // namespace
}  // namespace gpuprobe::bench::gpu
