// The fill and compare kernels and the buffer helpers of the many-GPU benchmarks
// (multi_gpu_cuda.h).
#include <fmt/format.h>

#include "bench/collective_pattern.h"
#include "bench/cuda/cuda_status.h"
#include "bench/cuda/multi_gpu_cuda.h"

namespace gpuprobe::bench::multi_gpu {
namespace {

// collective_pattern.cpp's PatternInput, on the GPU: scale x (x mod 251 + 1).
__global__ void FillPatternKernel(float* p, std::uint64_t elements, std::uint64_t index_offset, float scale) {
  std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t x = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; x < elements; x += stride) {
    p[x] = scale * static_cast<float>((x + index_offset) % 251 + 1);
  }
}

// Every element of an output against its closed-form value: result[0] counts the mismatches,
// result[1] keeps the lowest mismatched index (set to all ones before).
__global__ void ComparePatternKernel(const float* out, std::uint64_t elements, PatternCheck check, unsigned long long* result) {
  std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0, first = ~0ull;
  for (std::uint64_t x = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; x < elements; x += stride) {
    if (!PatternElementOk(check, x, out[x])) {
      ++bad;
      first = first < x ? first : x;
    }
  }
  if (bad != 0) {
    atomicAdd(&result[0], bad);
    atomicMin(&result[1], first);
  }
}

unsigned GridFor(std::uint64_t elements, unsigned threads) {
  // Enough blocks to fill every SM several times over; the grid-stride loop covers the rest.
  std::uint64_t wanted = (elements + threads - 1) / threads;
  return static_cast<unsigned>(wanted < 4096 ? (wanted > 0 ? wanted : 1) : 4096);
}

}  // namespace

core::Result<PatternMismatches> ComparePatternOnDevice(const float* output, std::uint64_t elements, const PatternCheck& check,
                                                       cudaStream_t stream) {
  PatternMismatches m;
  if (elements == 0) return m;
  unsigned long long* result = nullptr;
  cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&result), 2 * sizeof(unsigned long long));
  if (e != cudaSuccess) return StatusFromCuda("cudaMalloc (compare counters)", e);
  unsigned long long host[2] = {0, ~0ull};
  e = cudaMemcpyAsync(result, host, sizeof host, cudaMemcpyHostToDevice, stream);
  if (e == cudaSuccess) {
    constexpr unsigned kThreads = 256;
    ComparePatternKernel<<<GridFor(elements, kThreads), kThreads, 0, stream>>>(output, elements, check, result);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpyAsync(host, result, sizeof host, cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  if (e == cudaSuccess && host[0] > 0) e = cudaMemcpy(&m.first_value, output + host[1], sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(result);
  if (e != cudaSuccess) return StatusFromCuda("comparing the output on the GPU", e);
  m.count = host[0];
  m.first_index = host[0] > 0 ? host[1] : 0;
  return m;
}

cudaError_t LaunchFillPattern(float* p, std::uint64_t elements, std::uint64_t index_offset, float scale, cudaStream_t stream) {
  if (elements == 0) return cudaSuccess;
  constexpr unsigned kThreads = 256;
  FillPatternKernel<<<GridFor(elements, kThreads), kThreads, 0, stream>>>(p, elements, index_offset, scale);
  return cudaGetLastError();
}

DeviceBuffer::~DeviceBuffer() { Release(); }

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    Release();
    device_ = other.device_;
    ptr_ = other.ptr_;
    other.ptr_ = nullptr;
  }
  return *this;
}

void DeviceBuffer::Release() {
  if (ptr_ == nullptr) return;
  int current = 0;
  // Freeing needs no particular device in CUDA 13, but older runtimes free on the current one.
  if (cudaGetDevice(&current) == cudaSuccess && cudaSetDevice(device_) == cudaSuccess) {
    cudaFree(ptr_);
    cudaSetDevice(current);
  }
  ptr_ = nullptr;
}

cudaError_t DeviceBuffer::Allocate(int device, std::uint64_t bytes) {
  Release();
  cudaError_t e = cudaSetDevice(device);
  if (e != cudaSuccess) return e;
  device_ = device;
  void* p = nullptr;
  e = cudaMalloc(&p, bytes == 0 ? 4 : bytes);
  if (e == cudaSuccess) ptr_ = static_cast<float*>(p);
  return e;
}

DeviceTimer::~DeviceTimer() {
  if (device < 0) return;
  if (cudaSetDevice(device) != cudaSuccess) return;
  if (start != nullptr) cudaEventDestroy(start);
  if (stop != nullptr) cudaEventDestroy(stop);
  if (stream != nullptr) cudaStreamDestroy(stream);
}

cudaError_t DeviceTimer::Create(int device_index) {
  cudaError_t e = cudaSetDevice(device_index);
  if (e != cudaSuccess) return e;
  device = device_index;
  if ((e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)) != cudaSuccess) return e;
  if ((e = cudaEventCreate(&start)) != cudaSuccess) return e;
  return cudaEventCreate(&stop);
}

core::Status CudaCallFailed(const std::string& call, int device, cudaError_t error) {
  return StatusFromCuda(fmt::format("{} on GPU {}", call, device), error);
}

}  // namespace gpuprobe::bench::multi_gpu
