#include "bench/cpu/cpu_kernels.h"

#include "bench/cpu/cpu_context.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define GPUPROBE_X86 1
#endif

namespace gpuprobe::bench::kernels {
namespace {

void StreamPortable(StreamOp op, double* c, const double* a, const double* b, double s, std::size_t begin,
                    std::size_t end) {
  switch (op) {
    case StreamOp::kCopy:
      for (std::size_t i = begin; i < end; ++i) c[i] = a[i];
      break;
    case StreamOp::kScale:
      for (std::size_t i = begin; i < end; ++i) c[i] = s * a[i];
      break;
    case StreamOp::kAdd:
      for (std::size_t i = begin; i < end; ++i) c[i] = a[i] + b[i];
      break;
    case StreamOp::kTriad:
      for (std::size_t i = begin; i < end; ++i) c[i] = a[i] + s * b[i];
      break;
  }
}

#ifdef GPUPROBE_X86
__attribute__((target("avx2,fma"))) void StreamAvx2(StreamOp op, double* c, const double* a, const double* b,
                                                    double s, std::size_t begin, std::size_t end, bool nt) {
  const __m256d vs = _mm256_set1_pd(s);
  std::size_t i = begin;
  std::size_t vector_end = begin + (end - begin) / 8 * 8;
  // Two vectors per iteration: enough independent loads in flight for the prefetchers.
  for (; i < vector_end; i += 8) {
    __m256d r0, r1;
    switch (op) {
      case StreamOp::kCopy:
        r0 = _mm256_load_pd(a + i);
        r1 = _mm256_load_pd(a + i + 4);
        break;
      case StreamOp::kScale:
        r0 = _mm256_mul_pd(vs, _mm256_load_pd(a + i));
        r1 = _mm256_mul_pd(vs, _mm256_load_pd(a + i + 4));
        break;
      case StreamOp::kAdd:
        r0 = _mm256_add_pd(_mm256_load_pd(a + i), _mm256_load_pd(b + i));
        r1 = _mm256_add_pd(_mm256_load_pd(a + i + 4), _mm256_load_pd(b + i + 4));
        break;
      default:
        r0 = _mm256_fmadd_pd(vs, _mm256_load_pd(b + i), _mm256_load_pd(a + i));
        r1 = _mm256_fmadd_pd(vs, _mm256_load_pd(b + i + 4), _mm256_load_pd(a + i + 4));
        break;
    }
    if (nt) {
      _mm256_stream_pd(c + i, r0);
      _mm256_stream_pd(c + i + 4, r1);
    } else {
      _mm256_store_pd(c + i, r0);
      _mm256_store_pd(c + i + 4, r1);
    }
  }
  if (nt) _mm_sfence();
  StreamPortable(op, c, a, b, s, i, end);
}

__attribute__((target("avx2,fma"))) double DotAvx2(const double* a, const double* b, std::size_t begin,
                                                   std::size_t end) {
  __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
  std::size_t i = begin;
  std::size_t vector_end = begin + (end - begin) / 16 * 16;
  for (; i < vector_end; i += 16) {
    s0 = _mm256_fmadd_pd(_mm256_load_pd(a + i), _mm256_load_pd(b + i), s0);
    s1 = _mm256_fmadd_pd(_mm256_load_pd(a + i + 4), _mm256_load_pd(b + i + 4), s1);
    s2 = _mm256_fmadd_pd(_mm256_load_pd(a + i + 8), _mm256_load_pd(b + i + 8), s2);
    s3 = _mm256_fmadd_pd(_mm256_load_pd(a + i + 12), _mm256_load_pd(b + i + 12), s3);
  }
  __m256d sum = _mm256_add_pd(_mm256_add_pd(s0, s1), _mm256_add_pd(s2, s3));
  alignas(32) double lanes[4];
  _mm256_store_pd(lanes, sum);
  double total = lanes[0] + lanes[1] + lanes[2] + lanes[3];
  for (; i < end; ++i) total += a[i] * b[i];
  return total;
}

__attribute__((target("avx2,fma"))) double SumAvx2(const double* a, std::size_t begin, std::size_t end) {
  __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
  std::size_t i = begin;
  std::size_t vector_end = begin + (end - begin) / 16 * 16;
  for (; i < vector_end; i += 16) {
    s0 = _mm256_add_pd(_mm256_load_pd(a + i), s0);
    s1 = _mm256_add_pd(_mm256_load_pd(a + i + 4), s1);
    s2 = _mm256_add_pd(_mm256_load_pd(a + i + 8), s2);
    s3 = _mm256_add_pd(_mm256_load_pd(a + i + 12), s3);
  }
  __m256d sum = _mm256_add_pd(_mm256_add_pd(s0, s1), _mm256_add_pd(s2, s3));
  alignas(32) double lanes[4];
  _mm256_store_pd(lanes, sum);
  double total = lanes[0] + lanes[1] + lanes[2] + lanes[3];
  for (; i < end; ++i) total += a[i];
  return total;
}
#endif

}  // namespace

const char* Stream(StreamOp op, double* c, const double* a, const double* b, double s, std::size_t begin,
                   std::size_t end, bool non_temporal) {
#ifdef GPUPROBE_X86
  if (CpuHasAvx2Fma()) {
    StreamAvx2(op, c, a, b, s, begin, end, non_temporal);
    return "AVX2";
  }
#endif
  (void)non_temporal;
  StreamPortable(op, c, a, b, s, begin, end);
  return "portable";
}

double Dot(const double* a, const double* b, std::size_t begin, std::size_t end) {
#ifdef GPUPROBE_X86
  if (CpuHasAvx2Fma()) return DotAvx2(a, b, begin, end);
#endif
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::size_t i = begin;
  for (; i + 4 <= end; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < end; ++i) s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

double Sum(const double* a, std::size_t begin, std::size_t end) {
#ifdef GPUPROBE_X86
  if (CpuHasAvx2Fma()) return SumAvx2(a, begin, end);
#endif
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::size_t i = begin;
  for (; i + 4 <= end; i += 4) {
    s0 += a[i];
    s1 += a[i + 1];
    s2 += a[i + 2];
    s3 += a[i + 3];
  }
  for (; i < end; ++i) s0 += a[i];
  return (s0 + s1) + (s2 + s3);
}

}  // namespace gpuprobe::bench::kernels
