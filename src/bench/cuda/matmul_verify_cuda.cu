// MatmulInstance's checks (matmul_instance.h). The timed output, on random inputs: every
// element finite and within the largest value a correct GEMM can give (on the device), 64
// sampled elements within the formats' tolerance of the host's reference (int8: exact, and
// the exact sum of every element). Then the exact-integer GEMM, untimed: C's first row (the
// fp32 rungs' TF32 probe) element by element, the sum of every other element and 64 sampled
// elements against the host's exact figures; for the 16-bit outputs (the fp16 and bf16
// tensor peaks write what torch.mm writes), every element against the same GEMM with fp32
// output, itself exact, rounded once on the device.
#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "bench/cuda/matmul_instance.h"
#include "bench/soft_float.h"

namespace gpuprobe::bench {
namespace {

__global__ void Int32ToFloatKernel(const int* in, float* out, unsigned long long count) {
  unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < count; i += stride) {
    out[i] = static_cast<float>(in[i]);
  }
}

__global__ void SumKernel(const float* c, unsigned long long count, double* total) {
  unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  double sum = 0;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < count; i += stride) sum += c[i];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if ((threadIdx.x & 31) == 0) atomicAdd(total, sum);
}

// The sum of int32 elements as 64-bit integers (exact; unsigned adds wrap like the host's).
__global__ void SumInt32Kernel(const int* c, unsigned long long count, unsigned long long* total) {
  unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  unsigned long long sum = 0;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < count; i += stride) {
    sum += static_cast<unsigned long long>(static_cast<long long>(c[i]));
  }
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if ((threadIdx.x & 31) == 0) atomicAdd(total, sum);
}

// The fingerprint of an output: its 32-bit words summed modulo 2^64.
__global__ void WordSumKernel(const unsigned int* words, unsigned long long count, unsigned long long* total) {
  unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  unsigned long long sum = 0;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < count; i += stride) sum += words[i];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if ((threadIdx.x & 31) == 0) atomicAdd(total, sum);
}

__global__ void CompareFingerprintKernel(const unsigned long long* got, const unsigned long long* reference, unsigned long long* errors) {
  if (*got != *reference) atomicAdd(errors, 1ull);
}

__device__ __forceinline__ float Decode(float v) { return v; }
__device__ __forceinline__ float Decode(int v) { return static_cast<float>(v); }

// Elements that are not finite or beyond `bound` (NaN fails the comparison too).
template <typename T>
__global__ void CountBeyondKernel(const T* c, unsigned long long count, float bound, unsigned long long* bad) {
  unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  unsigned long long n = 0;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < count; i += stride) {
    n += !(fabsf(Decode(c[i])) <= bound);
  }
  if (n != 0) atomicAdd(bad, n);
}

__global__ void CountBeyond16Kernel(const unsigned short* c, unsigned long long count, bool bf16, float bound, unsigned long long* bad) {
  unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  unsigned long long n = 0;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < count; i += stride) {
    float v = bf16 ? __bfloat162float(__ushort_as_bfloat16(c[i])) : __half2float(__ushort_as_half(c[i]));
    n += !(fabsf(v) <= bound);
  }
  if (n != 0) atomicAdd(bad, n);
}

// counts[0]: elements not the exact value rounded once; counts[1]: more than one unit off.
__global__ void CompareHalfKernel(const unsigned short* got, const float* exact, unsigned long long count, bool bf16,
                                  unsigned long long* counts) {
  unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  unsigned long long inexact = 0, wrong = 0;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < count; i += stride) {
    unsigned short want = bf16 ? __bfloat16_as_ushort(__float2bfloat16_rn(exact[i])) : __half_as_ushort(__float2half_rn(exact[i]));
    std::uint32_t d = soft::UlpDistance(got[i], want);
    inexact += d != 0;
    wrong += d > 1;
  }
  if (inexact != 0) atomicAdd(&counts[0], inexact);
  if (wrong != 0) atomicAdd(&counts[1], wrong);
}

// One counter on the device, zeroed, a kernel that adds to it, read back (synchronising).
template <typename Launch>
core::Result<std::uint64_t> CountOnDevice(const CudaContext& ctx, Launch launch) {
  DeviceArray<unsigned long long> counter;
  cudaError_t e = counter.Allocate(1);
  if (e == cudaSuccess) e = cudaMemsetAsync(counter.get(), 0, sizeof(unsigned long long), ctx.stream());
  if (e == cudaSuccess) {
    launch(counter.get());
    e = cudaGetLastError();
  }
  unsigned long long count = 0;
  if (e == cudaSuccess) e = cudaMemcpyAsync(&count, counter.get(), sizeof count, cudaMemcpyDeviceToHost, ctx.stream());
  if (e == cudaSuccess) e = cudaStreamSynchronize(ctx.stream());
  if (e != cudaSuccess) return CudaFailed("checking the output on the device", e);
  return static_cast<std::uint64_t>(count);
}

double ExpectedTotalOf(std::optional<double>* cache, std::uint64_t n, bool transposed) {
  if (!*cache) *cache = gpu::MatmulTotalBeyondFirstRow(n, transposed);
  return **cache;
}

template <typename T>
cudaError_t ReadElement(const T* device, std::uint64_t index, T* host) {
  return cudaMemcpy(host, device + index, sizeof(T), cudaMemcpyDeviceToHost);
}

}  // namespace

core::Result<std::uint64_t> CountBeyondBound(const CudaContext& ctx, const float* c, std::uint64_t count, double bound) {
  gpu::LaunchGeometry g = Geometry(ctx, count, 1);
  return CountOnDevice(ctx, [&](unsigned long long* bad) {
    CountBeyondKernel<float><<<g.blocks, g.threads, 0, ctx.stream()>>>(c, count, static_cast<float>(bound), bad);
  });
}

core::Result<std::uint64_t> CountBeyondBound(const CudaContext& ctx, const unsigned short* c, std::uint64_t count, bool bf16,
                                             double bound) {
  gpu::LaunchGeometry g = Geometry(ctx, count, 1);
  return CountOnDevice(ctx, [&](unsigned long long* bad) {
    CountBeyond16Kernel<<<g.blocks, g.threads, 0, ctx.stream()>>>(c, count, bf16, static_cast<float>(bound), bad);
  });
}

core::Result<std::uint64_t> CountBeyondBound(const CudaContext& ctx, const int* c, std::uint64_t count, double bound) {
  gpu::LaunchGeometry g = Geometry(ctx, count, 1);
  return CountOnDevice(ctx, [&](unsigned long long* bad) {
    CountBeyondKernel<int><<<g.blocks, g.threads, 0, ctx.stream()>>>(c, count, static_cast<float>(bound), bad);
  });
}

// 64 sampled positions, the corners included (the tails of odd sizes live there).
std::uint64_t GemmSampleIndex(int s, std::uint64_t n) {
  std::uint64_t row = s == 0 ? 0 : s == 1 ? n - 1 : (static_cast<std::uint64_t>(s) * 2654435761u) % n;
  std::uint64_t col = s == 0 ? 0 : s == 1 ? n - 1 : (static_cast<std::uint64_t>(s) * 40503u + 17) % n;
  return row * n + col;
}

// The int8 rung's int32 results are converted to float first (exact, since |c| <= 4n).
core::Result<double> MatmulInstance::DeviceTotalBeyondFirstRow() {
  const std::uint64_t n = static_cast<std::uint64_t>(n_), count = n * n;
  gpu::LaunchGeometry g = Geometry(ctx_, count, 1);
  if (rung_ == Rung::kCublasInt8) Int32ToFloatKernel<<<g.blocks, g.threads, 0, ctx_.stream()>>>(c32_.get(), c_.get(), count);
  cudaError_t e = cudaMemsetAsync(total_.get(), 0, sizeof(double), ctx_.stream());
  if (e == cudaSuccess) {
    SumKernel<<<g.blocks, g.threads, 0, ctx_.stream()>>>(c_.get() + n, count - n, total_.get());
    e = cudaGetLastError();
  }
  double total = 0;
  if (e == cudaSuccess) e = cudaMemcpyAsync(&total, total_.get(), sizeof total, cudaMemcpyDeviceToHost, ctx_.stream());
  if (e == cudaSuccess) e = cudaStreamSynchronize(ctx_.stream());
  if (e != cudaSuccess) return CudaFailed("verifying", e);
  return total;
}

cudaError_t MatmulInstance::EnqueueFingerprint(cudaStream_t s, unsigned long long* sum) {
  const std::uint64_t count = static_cast<std::uint64_t>(n_) * n_;
  // The output the GEMM wrote: 32-bit words of fp32 or int32 C, 16-bit C as pairs.
  const unsigned int* words = rung_ == Rung::kCublasInt8 ? reinterpret_cast<const unsigned int*>(c32_.get())
                              : half_output_             ? reinterpret_cast<const unsigned int*>(c16_.get())
                                                         : reinterpret_cast<const unsigned int*>(c_.get());
  const std::uint64_t word_count = half_output_ ? count / 2 : count;
  cudaError_t e = cudaMemsetAsync(sum, 0, sizeof(unsigned long long), s);
  if (e != cudaSuccess) return e;
  gpu::LaunchGeometry g = Geometry(ctx_, word_count, 1);
  WordSumKernel<<<g.blocks, g.threads, 0, s>>>(words, word_count, sum);
  return cudaGetLastError();
}

cudaError_t MatmulInstance::EnqueueFingerprintCheck(cudaStream_t s, const unsigned long long* reference, unsigned long long* scratch,
                                                    unsigned long long* errors) {
  cudaError_t e = EnqueueFingerprint(s, scratch);
  if (e != cudaSuccess) return e;
  CompareFingerprintKernel<<<1, 1, 0, s>>>(scratch, reference, errors);
  return cudaGetLastError();
}

Verification MatmulInstance::VerifyRandom() {
  Verification v;
  const std::uint64_t n = static_cast<std::uint64_t>(n_), count = n * n;
  const gpu::GemmInput type = InputType();
  const gpu::GemmNumerics numerics = Numerics();
  const bool bf16 = rung_ == Rung::kCublasBf16;
  const double bound = gpu::GemmOutputBound(numerics, type, n);
  auto beyond = rung_ == Rung::kCublasInt8 ? CountBeyondBound(ctx_, c32_.get(), count, bound)
                : half_output_            ? CountBeyondBound(ctx_, c16_.get(), count, bf16, bound)
                                          : CountBeyondBound(ctx_, c_.get(), count, bound);
  if (!beyond.ok()) {
    v.detail = beyond.status().message();
    return v;
  }
  int off = 0;
  double worst = 0;  // the largest error, as a share of its element's tolerance
  for (int s = 0; s < 64; ++s) {
    const std::uint64_t index = GemmSampleIndex(s, n);
    double got = 0;
    cudaError_t e = cudaSuccess;
    if (rung_ == Rung::kCublasInt8) {
      int x = 0;
      e = ReadElement(c32_.get(), index, &x);
      got = x;
    } else if (half_output_) {
      unsigned short x = 0;
      e = ReadElement(c16_.get(), index, &x);
      got = soft::FromBits(x, bf16 ? soft::kBf16 : soft::kHalf);
    } else {
      float x = 0;
      e = ReadElement(c_.get(), index, &x);
      got = x;
    }
    const gpu::GemmReference want = gpu::GemmRandomExpectedAt(type, n, index, TransposedB());
    const double tolerance = gpu::GemmTolerance(numerics, n, want.value, want.abs_sum);
    const double error = std::fabs(got - want.value);
    if (e != cudaSuccess || !(error <= tolerance)) ++off;
    if (tolerance > 0) worst = std::max(worst, error / tolerance);
  }
  // int8 into int32 is exact: the sum of every element too.
  std::int64_t total = 0, expected_total = 0;
  bool total_ok = true;
  if (rung_ == Rung::kCublasInt8) {
    gpu::LaunchGeometry g = Geometry(ctx_, count, 1);
    unsigned long long sum = 0;
    cudaError_t e = cudaMemsetAsync(int_total_.get(), 0, sizeof sum, ctx_.stream());
    if (e == cudaSuccess) {
      SumInt32Kernel<<<g.blocks, g.threads, 0, ctx_.stream()>>>(c32_.get(), count, int_total_.get());
      e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaMemcpyAsync(&sum, int_total_.get(), sizeof sum, cudaMemcpyDeviceToHost, ctx_.stream());
    if (e == cudaSuccess) e = cudaStreamSynchronize(ctx_.stream());
    total = static_cast<std::int64_t>(sum);
    expected_total = gpu::GemmRandomInt8Total(n, TransposedB());
    total_ok = e == cudaSuccess && total == expected_total;
  }
  v.verified = *beyond == 0 && off == 0 && total_ok;
  if (!v.verified) {
    v.detail = fmt::format("on the random inputs: {} of {} elements not finite or beyond {:.6g}, {} of 64 sampled elements outside the "
                           "tolerance{}",
                           *beyond, count, bound, off,
                           total_ok ? "" : fmt::format(", the sum of every element {} instead of {}", total, expected_total));
  } else if (rung_ == Rung::kCublasInt8) {
    v.detail = "on random int8 inputs: 64 sampled elements and the sum of every element exact";
  } else {
    v.detail = fmt::format("on random inputs: every element finite and in range, 64 sampled elements within the tolerance "
                           "(largest error {:.2g} of it)", worst);
  }
  return v;
}

Verification MatmulInstance::VerifyExact() {
  Verification v;
  auto device_total = DeviceTotalBeyondFirstRow();  // the int8 rung's C is in c_ from here on
  if (!device_total.ok()) {
    v.detail = device_total.status().message();
    return v;
  }
  const double total = *device_total;
  const std::uint64_t n = static_cast<std::uint64_t>(n_);
  const double expected_total = ExpectedTotalOf(&expected_total_, n, TransposedB());
  // C's first row, element by element: where the fp32 rungs' probe lives.
  std::vector<float> row(n);
  int row_off = 0, probe_lost = 0;
  if (cudaMemcpy(row.data(), c_.get(), n * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) row_off = static_cast<int>(n);
  for (std::uint64_t j = 0; j < n && row_off < static_cast<int>(n); ++j) {
    if (static_cast<double>(row[j]) != gpu::MatmulExpectedAt(n, j, TransposedB(), Probed())) {
      ++row_off;
      // What a GEMM that rounded the probe to TF32 gives: B's row 0 itself.
      probe_lost += Probed() && static_cast<double>(row[j]) == static_cast<double>(gpu::MatmulValue(j, gpu::kSeedB));
    }
  }
  int bad = 0;
  for (int s = 0; s < 64; ++s) {
    std::uint64_t index = GemmSampleIndex(s, n);
    float got = 0;
    if (ReadElement(c_.get(), index, &got) != cudaSuccess) ++bad;
    if (static_cast<double>(got) != gpu::MatmulExpectedAt(n, index, TransposedB(), Probed())) ++bad;
  }
  v.checksum = expected_total;
  v.verified = bad == 0 && row_off == 0 && total == expected_total;
  if (v.verified) {
    v.detail = TransposedB() ? "exact-integer GEMM: C's first row, 64 sampled elements and the sum of all elements exact (A x B^T: the TN layout)"
               : Probed()    ? "exact-integer GEMM: 64 sampled elements and the sum of all elements exact, and the first row kept its "
                               "probe's 2^-20 (fp32, not TF32)"
                             : "exact-integer GEMM: C's first row, 64 sampled elements and the sum of all elements exact (the same on every rung)";
  } else if (probe_lost > 0 && probe_lost == row_off) {
    v.detail = fmt::format("exact-integer GEMM: the first row lost its probe's 2^-20 in {} of {} elements: this fp32 GEMM rounds its "
                           "inputs to TF32 (is NVIDIA_TF32_OVERRIDE=1 set, or TF32 math mode?)", probe_lost, n);
  } else {
    v.detail = fmt::format("exact-integer GEMM: {} of {} first-row elements and {} sampled elements wrong; sum {} instead of {}", row_off, n,
                           bad, total, expected_total);
  }
  return v;
}

Verification MatmulInstance::VerifyHalf() {
  // The same GEMM with fp32 output is exact (integer products, sums below 2^24): check it,
  // then every 16-bit element against it rounded once to nearest even.
  Verification v;
  half_reference_ = true;
  cudaError_t e = Enqueue(ctx_.stream());
  half_reference_ = false;
  if (e != cudaSuccess) {
    v.detail = blas_error_.empty() ? CudaFailed("the fp32-output reference GEMM", e).message() : blas_error_;
    return v;
  }
  Verification reference = VerifyExact();
  if (!reference.verified) {
    v.detail = "the fp32-output reference GEMM is wrong: " + reference.detail;
    return v;
  }
  const std::uint64_t n = static_cast<std::uint64_t>(n_), count = n * n;
  const bool bf16 = rung_ == Rung::kCublasBf16;
  DeviceArray<unsigned long long> counts;
  unsigned long long host_counts[2] = {0, 0};
  if ((e = counts.Allocate(2)) == cudaSuccess) e = cudaMemsetAsync(counts.get(), 0, 2 * sizeof(unsigned long long), ctx_.stream());
  if (e == cudaSuccess) {
    gpu::LaunchGeometry g = Geometry(ctx_, count, 1);
    CompareHalfKernel<<<g.blocks, g.threads, 0, ctx_.stream()>>>(c16_.get(), c_.get(), count, bf16, counts.get());
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpyAsync(host_counts, counts.get(), sizeof host_counts, cudaMemcpyDeviceToHost, ctx_.stream());
  if (e == cudaSuccess) e = cudaStreamSynchronize(ctx_.stream());
  if (e != cudaSuccess) {
    v.detail = CudaFailed("comparing the 16-bit output", e).message();
    return v;
  }
  // The host's own rounding of the exact value (soft_float.h) on the sampled elements.
  int sampled_off = 0;
  for (int s = 0; s < 64; ++s) {
    std::uint64_t index = GemmSampleIndex(s, n);
    std::uint16_t got = 0;
    if (ReadElement(c16_.get(), index, &got) != cudaSuccess) ++sampled_off;
    std::uint16_t want = soft::RoundToBits(gpu::MatmulExpectedAt(n, index, false), bf16 ? soft::kBf16 : soft::kHalf);
    sampled_off += soft::UlpDistance(got, want) > 1;
  }
  v.checksum = reference.checksum;
  v.verified = host_counts[1] == 0 && sampled_off == 0;
  const char* type = bf16 ? "bf16" : "fp16";
  v.detail = !v.verified ? fmt::format("exact-integer GEMM: {} of {} {} outputs more than one unit from the exact product ({} sampled)",
                                       host_counts[1], count, type, sampled_off)
             : host_counts[0] == 0
                 ? fmt::format("exact-integer GEMM: every {} output is the exact product rounded once (fp32-output reference exact)", type)
                 : fmt::format("exact-integer GEMM: every {} output within one unit of the exact product, {} not rounded once "
                               "(a reduction rounded twice)", type, host_counts[0]);
  return v;
}

Verification MatmulInstance::Verify() {
  Verification random = VerifyRandom();  // the last timed GEMM's output
  Verification exact;
  core::Status filled = Fill(GemmInputs::kExact);
  cudaError_t e = cudaErrorInvalidValue;
  if (filled.ok()) {
    e = Enqueue(ctx_.stream());
    if (e == cudaSuccess) e = cudaStreamSynchronize(ctx_.stream());
  }
  if (!filled.ok()) {
    exact.detail = filled.message();
  } else if (e != cudaSuccess) {
    exact.detail = blas_error_.empty() ? CudaFailed("the exact-integer GEMM", e).message() : blas_error_;
  } else {
    if (corrupted_) Damage();  // the test hook's damage, on this output too
    exact = half_output_ ? VerifyHalf() : VerifyExact();
  }
  // Random inputs again, and their product in C: a later timed run, or a later Verify, sees
  // what the timed runs see.
  core::Status filled_again = Fill(GemmInputs::kRandom);
  cudaError_t again = filled_again.ok() ? Enqueue(ctx_.stream()) : cudaSuccess;
  if (filled_again.ok() && again == cudaSuccess) again = cudaStreamSynchronize(ctx_.stream());
  const std::string restore_error = !filled_again.ok()    ? filled_again.message()
                                    : again != cudaSuccess ? CudaFailed("the GEMM on the random inputs again", again).message()
                                                           : std::string();
  Verification v;
  v.checksum = exact.checksum;
  v.verified = random.verified && exact.verified && restore_error.empty();
  v.detail = !random.verified          ? random.detail + "; " + exact.detail
             : !restore_error.empty() ? restore_error
                                      : exact.detail + "; " + random.detail;
  return v;
}

bool MatmulInstance::Damage() {
  std::uint64_t middle = static_cast<std::uint64_t>(n_) * n_ / 2;
  if (half_output_) {
    unsigned short wrong = 0x7C00;  // +infinity in fp16, 2^121 in bf16: far from any product either way
    return cudaMemcpy(c16_.get() + middle, &wrong, sizeof wrong, cudaMemcpyHostToDevice) == cudaSuccess;
  }
  if (rung_ == Rung::kCublasInt8) {
    int wrong = 1 << 30;  // beyond any sum of n products of int8 values
    return cudaMemcpy(c32_.get() + middle, &wrong, sizeof wrong, cudaMemcpyHostToDevice) == cudaSuccess;
  }
  float wrong = 1e30f;
  return cudaMemcpy(c_.get() + middle, &wrong, sizeof wrong, cudaMemcpyHostToDevice) == cudaSuccess;
}

bool MatmulInstance::CorruptForTest() {
  corrupted_ = true;
  return Damage();
}

}  // namespace gpuprobe::bench
