// The GPU kernels' arithmetic, checked without a GPU: the kernels include the same header.
#include "bench/gpu_kernel_math.h"

#include <cmath>
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

TEST(GpuBatchTest, RepetitionsReachAHundredMicroseconds) {
  EXPECT_EQ(BatchRepetitions(1e-3), 1);
  EXPECT_EQ(BatchRepetitions(10e-6), 10);
  EXPECT_EQ(BatchRepetitions(1e-9), 256);
  EXPECT_EQ(BatchRepetitions(0), 256);
  EXPECT_EQ(BatchRepetitions(NAN), 256);
}

}  // namespace
}  // namespace gpuprobe::bench::gpu
