// MatmulInstance's checks (matmul_instance.h): the sum of every element and 64 sampled
// elements against the host's exact figures; for the 16-bit outputs (the fp16 and bf16
// tensor peaks write what torch.mm writes), every element against the same GEMM with fp32
// output, itself exact, rounded once on the device.
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

// One result's verdict, on the device: the sum against the exact one.
__global__ void CheckTotalKernel(const double* total, double expected, unsigned long long* errors) {
  if (*total != expected) atomicAdd(errors, 1ull);
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

// 64 sampled positions, the corners included (the tails of odd sizes live there).
std::uint64_t SampleIndex(int s, std::uint64_t n) {
  std::uint64_t row = s == 0 ? 0 : s == 1 ? n - 1 : (static_cast<std::uint64_t>(s) * 2654435761u) % n;
  std::uint64_t col = s == 0 ? 0 : s == 1 ? n - 1 : (static_cast<std::uint64_t>(s) * 40503u + 17) % n;
  return row * n + col;
}

}  // namespace

// The int8 rung's int32 results are converted to float first (exact, since |c| <= 4n).
core::Result<double> MatmulInstance::DeviceTotal() {
  std::uint64_t count = static_cast<std::uint64_t>(n_) * n_;
  gpu::LaunchGeometry g = Geometry(ctx_, count, 1);
  if (rung_ == Rung::kCublasInt8) Int32ToFloatKernel<<<g.blocks, g.threads, 0, ctx_.stream()>>>(c32_.get(), c_.get(), count);
  cudaError_t e = cudaMemsetAsync(total_.get(), 0, sizeof(double), ctx_.stream());
  if (e == cudaSuccess) {
    SumKernel<<<g.blocks, g.threads, 0, ctx_.stream()>>>(c_.get(), count, total_.get());
    e = cudaGetLastError();
  }
  double total = 0;
  if (e == cudaSuccess) e = cudaMemcpyAsync(&total, total_.get(), sizeof total, cudaMemcpyDeviceToHost, ctx_.stream());
  if (e == cudaSuccess) e = cudaStreamSynchronize(ctx_.stream());
  if (e != cudaSuccess) return CudaFailed("verifying", e);
  return total;
}

cudaError_t MatmulInstance::EnqueueCheck(cudaStream_t s, unsigned long long* errors) {
  std::uint64_t count = static_cast<std::uint64_t>(n_) * n_;
  gpu::LaunchGeometry g = Geometry(ctx_, count, 1);
  if (rung_ == Rung::kCublasInt8) Int32ToFloatKernel<<<g.blocks, g.threads, 0, s>>>(c32_.get(), c_.get(), count);
  cudaError_t e = cudaMemsetAsync(total_.get(), 0, sizeof(double), s);
  if (e != cudaSuccess) return e;
  SumKernel<<<g.blocks, g.threads, 0, s>>>(c_.get(), count, total_.get());
  CheckTotalKernel<<<1, 1, 0, s>>>(total_.get(), ExpectedTotal(), errors);
  return cudaGetLastError();
}

double MatmulInstance::ExpectedTotal() {
  const auto n = static_cast<std::uint64_t>(n_);
  if (!expected_total_) expected_total_ = TransposedB() ? gpu::MatmulAbtTotal(n) : gpu::MatmulTotal(n);
  return *expected_total_;
}

Verification MatmulInstance::VerifyExact() {
  Verification v;
  auto device_total = DeviceTotal();
  if (!device_total.ok()) {
    v.detail = device_total.status().message();
    return v;
  }
  double total = *device_total;
  double expected_total = ExpectedTotal();
  const auto n = static_cast<std::uint64_t>(n_);
  int bad = 0;
  for (int s = 0; s < 64; ++s) {
    std::uint64_t index = SampleIndex(s, n);
    float got = 0;
    if (cudaMemcpy(&got, c_.get() + index, sizeof got, cudaMemcpyDeviceToHost) != cudaSuccess) ++bad;
    if (static_cast<double>(got) != gpu::MatmulExpectedAt(n, index, TransposedB())) ++bad;
  }
  v.checksum = expected_total;
  v.verified = bad == 0 && total == expected_total;
  v.detail = v.verified ? (TransposedB() ? "64 sampled elements and the sum of all elements exact (A x B^T: the TN layout)"
                                         : "64 sampled elements and the sum of all elements exact (the same on every rung)")
                        : fmt::format("{} sampled elements wrong; sum {} instead of {}", bad, total, expected_total);
  return v;
}

Verification MatmulInstance::Verify() {
  if (!half_output_) return VerifyExact();
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
    std::uint64_t index = SampleIndex(s, n);
    std::uint16_t got = 0;
    if (cudaMemcpy(&got, c16_.get() + index, sizeof got, cudaMemcpyDeviceToHost) != cudaSuccess) ++sampled_off;
    std::uint16_t want = soft::RoundToBits(gpu::MatmulExpectedAt(n, index, false), bf16 ? soft::kBf16 : soft::kHalf);
    sampled_off += soft::UlpDistance(got, want) > 1;
  }
  v.checksum = reference.checksum;
  v.verified = host_counts[1] == 0 && sampled_off == 0;
  const char* type = bf16 ? "bf16" : "fp16";
  v.detail = !v.verified ? fmt::format("{} of {} {} outputs more than one unit from the exact product ({} sampled)", host_counts[1],
                                       count, type, sampled_off)
             : host_counts[0] == 0 ? fmt::format("every {} output is the exact product rounded once (fp32-output reference exact)", type)
                                   : fmt::format("every {} output within one unit of the exact product, {} not rounded once "
                                                 "(a reduction rounded twice)", type, host_counts[0]);
  return v;
}

bool MatmulInstance::CorruptForTest() {
  std::uint64_t middle = static_cast<std::uint64_t>(n_) * n_ / 2;
  if (half_output_) {
    unsigned short wrong = 0x7C00;  // +infinity in fp16, 2^121 in bf16: far from any product either way
    return cudaMemcpy(c16_.get() + middle, &wrong, sizeof wrong, cudaMemcpyHostToDevice) == cudaSuccess;
  }
  if (rung_ == Rung::kCublasInt8) {
    int wrong = 1000000;
    return cudaMemcpy(c32_.get() + middle, &wrong, sizeof wrong, cudaMemcpyHostToDevice) == cudaSuccess;
  }
  float wrong = 1e6f;
  return cudaMemcpy(c_.get() + middle, &wrong, sizeof wrong, cudaMemcpyHostToDevice) == cudaSuccess;
}

}  // namespace gpuprobe::bench
