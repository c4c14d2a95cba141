// The fill kernel and the buffer helpers of the many-GPU benchmarks (multi_gpu_cuda.h).
#include <fmt/format.h>

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

}  // namespace

cudaError_t LaunchFillPattern(float* p, std::uint64_t elements, std::uint64_t index_offset, float scale, cudaStream_t stream) {
  if (elements == 0) return cudaSuccess;
  constexpr unsigned kThreads = 256;
  // Enough blocks to fill every SM several times over; the grid-stride loop covers the rest.
  std::uint64_t wanted = (elements + kThreads - 1) / kThreads;
  unsigned blocks = static_cast<unsigned>(wanted < 4096 ? wanted : 4096);
  FillPatternKernel<<<blocks, kThreads, 0, stream>>>(p, elements, index_offset, scale);
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
