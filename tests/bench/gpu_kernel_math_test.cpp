// The GPU kernels' arithmetic, checked without a GPU: the kernels include the same header.
#include "bench/gpu_kernel_math.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

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
  // Against an exact 128-bit sum, and the kernel's order (threads striding over float4s,
  // then a warp's shuffle tree): integer additions, so every order gives the same bits.
  const std::uint64_t n = 100003;
  __int128 exact = 0;
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

TEST(GpuBatchTest, RepetitionsReachAHundredMicroseconds) {
  EXPECT_EQ(BatchRepetitions(1e-3), 1);
  EXPECT_EQ(BatchRepetitions(10e-6), 10);
  EXPECT_EQ(BatchRepetitions(1e-9), 256);
  EXPECT_EQ(BatchRepetitions(0), 256);
  EXPECT_EQ(BatchRepetitions(NAN), 256);
}

}  // namespace
}  // namespace gpuprobe::bench::gpu
