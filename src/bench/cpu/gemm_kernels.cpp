#include "bench/cpu/gemm_kernels.h"

#include <cblas.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "bench/cpu/cpu_context.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define GPUPROBE_X86 1
#endif

namespace gpuprobe::bench::gemm {
namespace {

constexpr int kMr = 6, kNr = 16;   // register tile: 12 ymm accumulators + 2 B vectors + 1 A broadcast
constexpr int kMc = 144, kKc = 256, kNc = 3072;

// B[p][j] for p in [pc, pc+kc), j in [jc, jc+nc) -> slivers of kNr columns, zero-padded.
void PackB(const float* b, int ldb, int pc, int kc, int jc, int nc, float* out, int sliver_begin, int sliver_end) {
  for (int s = sliver_begin; s < sliver_end; ++s) {
    int j0 = jc + s * kNr;
    int cols = std::min(kNr, jc + nc - j0);
    float* dst = out + static_cast<std::size_t>(s) * kc * kNr;
    for (int p = 0; p < kc; ++p) {
      const float* src = b + static_cast<std::size_t>(pc + p) * ldb + j0;
      int j = 0;
      for (; j < cols; ++j) dst[p * kNr + j] = src[j];
      for (; j < kNr; ++j) dst[p * kNr + j] = 0.0f;
    }
  }
}

// A[i][p] for i in [ic, ic+mc), p in [pc, pc+kc) -> slivers of kMr rows, zero-padded.
void PackA(const float* a, int lda, int ic, int mc, int pc, int kc, float* out) {
  for (int s = 0; s * kMr < mc; ++s) {
    int i0 = ic + s * kMr;
    int rows = std::min(kMr, ic + mc - i0);
    float* dst = out + static_cast<std::size_t>(s) * kc * kMr;
    for (int p = 0; p < kc; ++p) {
      int r = 0;
      for (; r < rows; ++r) dst[p * kMr + r] = a[static_cast<std::size_t>(i0 + r) * lda + pc + p];
      for (; r < kMr; ++r) dst[p * kMr + r] = 0.0f;
    }
  }
}

void MicroPortable(int kc, const float* ap, const float* bp, float* tile) {
  float acc[kMr][kNr] = {};
  for (int p = 0; p < kc; ++p) {
    for (int r = 0; r < kMr; ++r) {
      float av = ap[p * kMr + r];
      for (int j = 0; j < kNr; ++j) acc[r][j] += av * bp[p * kNr + j];
    }
  }
  std::memcpy(tile, acc, sizeof acc);
}

#ifdef GPUPROBE_X86
__attribute__((target("avx2,fma"))) void MicroAvx2(int kc, const float* ap, const float* bp, float* tile) {
  __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
  __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
  for (int p = 0; p < kc; ++p) {
    __m256 b0 = _mm256_load_ps(bp + p * kNr);
    __m256 b1 = _mm256_load_ps(bp + p * kNr + 8);
    const float* a = ap + p * kMr;
    __m256 a0 = _mm256_broadcast_ss(a + 0);
    c00 = _mm256_fmadd_ps(a0, b0, c00);
    c01 = _mm256_fmadd_ps(a0, b1, c01);
    __m256 a1 = _mm256_broadcast_ss(a + 1);
    c10 = _mm256_fmadd_ps(a1, b0, c10);
    c11 = _mm256_fmadd_ps(a1, b1, c11);
    __m256 a2 = _mm256_broadcast_ss(a + 2);
    c20 = _mm256_fmadd_ps(a2, b0, c20);
    c21 = _mm256_fmadd_ps(a2, b1, c21);
    __m256 a3 = _mm256_broadcast_ss(a + 3);
    c30 = _mm256_fmadd_ps(a3, b0, c30);
    c31 = _mm256_fmadd_ps(a3, b1, c31);
    __m256 a4 = _mm256_broadcast_ss(a + 4);
    c40 = _mm256_fmadd_ps(a4, b0, c40);
    c41 = _mm256_fmadd_ps(a4, b1, c41);
    __m256 a5 = _mm256_broadcast_ss(a + 5);
    c50 = _mm256_fmadd_ps(a5, b0, c50);
    c51 = _mm256_fmadd_ps(a5, b1, c51);
  }
  _mm256_storeu_ps(tile + 0, c00);
  _mm256_storeu_ps(tile + 8, c01);
  _mm256_storeu_ps(tile + 16, c10);
  _mm256_storeu_ps(tile + 24, c11);
  _mm256_storeu_ps(tile + 32, c20);
  _mm256_storeu_ps(tile + 40, c21);
  _mm256_storeu_ps(tile + 48, c30);
  _mm256_storeu_ps(tile + 56, c31);
  _mm256_storeu_ps(tile + 64, c40);
  _mm256_storeu_ps(tile + 72, c41);
  _mm256_storeu_ps(tile + 80, c50);
  _mm256_storeu_ps(tile + 88, c51);
}
#endif

}  // namespace

void NaiveSgemm(const float* a, const float* b, float* c, int m, int n, int k) {
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      float sum = 0;
      for (int p = 0; p < k; ++p) sum += a[static_cast<std::size_t>(i) * k + p] * b[static_cast<std::size_t>(p) * n + j];
      c[static_cast<std::size_t>(i) * n + j] = sum;
    }
  }
}

const char* BlockedSgemm(ThreadPool& pool, int workers, const float* a, const float* b, float* c, int m, int n, int k) {
  bool avx2 = false;
#ifdef GPUPROBE_X86
  avx2 = CpuHasAvx2Fma();
#endif
  auto micro = avx2 ?
#ifdef GPUPROBE_X86
                    &MicroAvx2
#else
                    &MicroPortable
#endif
                    : &MicroPortable;
  workers = std::max(1, std::min(workers, pool.size()));
  std::fill(c, c + static_cast<std::size_t>(m) * n, 0.0f);
  int nc_max = std::min(kNc, n);
  int slivers_max = (nc_max + kNr - 1) / kNr;
  AlignedArray<float> packed_b(static_cast<std::size_t>(slivers_max) * kKc * kNr);
  std::vector<AlignedArray<float>> packed_a;
  for (int w = 0; w < workers; ++w) packed_a.emplace_back(static_cast<std::size_t>((kMc + kMr - 1) / kMr) * kKc * kMr);

  for (int jc = 0; jc < n; jc += kNc) {
    int nc = std::min(kNc, n - jc);
    int slivers = (nc + kNr - 1) / kNr;
    for (int pc = 0; pc < k; pc += kKc) {
      int kc = std::min(kKc, k - pc);
      pool.Run(workers, [&](int w) {
        PackB(b, n, pc, kc, jc, nc, packed_b.data(), slivers * w / workers, slivers * (w + 1) / workers);
      });
      int row_blocks = (m + kMc - 1) / kMc;
      pool.Run(workers, [&](int w) {
        alignas(32) float tile[kMr * kNr];
        float* ap = packed_a[static_cast<std::size_t>(w)].data();
        for (int block = w; block < row_blocks; block += workers) {
          int ic = block * kMc;
          int mc = std::min(kMc, m - ic);
          PackA(a, k, ic, mc, pc, kc, ap);
          for (int s = 0; s < slivers; ++s) {
            int j0 = jc + s * kNr;
            int cols = std::min(kNr, jc + nc - j0);
            const float* bp = packed_b.data() + static_cast<std::size_t>(s) * kc * kNr;
            for (int r0 = 0; r0 < mc; r0 += kMr) {
              micro(kc, ap + static_cast<std::size_t>(r0 / kMr) * kc * kMr, bp, tile);
              int rows = std::min(kMr, mc - r0);
              for (int r = 0; r < rows; ++r) {
                float* crow = c + static_cast<std::size_t>(ic + r0 + r) * n + j0;
                for (int j = 0; j < cols; ++j) crow[j] += tile[r * kNr + j];
              }
            }
          }
        }
      });
    }
  }
  return avx2 ? "AVX2+FMA" : "portable";
}

void OpenBlasSgemm(const float* a, const float* b, float* c, int m, int n, int k, int threads) {
  openblas_set_num_threads(threads);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
}

void OpenBlasDgemm(const double* a, const double* b, double* c, int m, int n, int k, int threads) {
  openblas_set_num_threads(threads);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, k, b, n, 0.0, c, n);
}

}  // namespace gpuprobe::bench::gemm
