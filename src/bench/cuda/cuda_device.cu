// Device query and the smoke-test kernel (see cuda_device.h for the contracts).
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "bench/cuda/cuda_device.h"
#include "bench/cuda/cuda_status.h"
#include "bench/cuda/module_loading.h"
#include "bench/cuda/nvml_device.h"

namespace gpuprobe::bench {
namespace {

__global__ void AffineKernel(const float* x, float* y, float a, float b, unsigned long long n) {
  unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (; i < n; i += stride) y[i] = a * x[i] + b;
}

// A pattern whose values are exact in float, so host and device must agree bit for bit.
float Pattern(unsigned long long i) { return static_cast<float>(static_cast<int>(i % 2048) - 1024); }

// Frees device buffers on every return path.
struct DeviceBuffer {
  float* ptr = nullptr;
  ~DeviceBuffer() {
    if (ptr != nullptr) cudaFree(ptr);
  }
};

}  // namespace

bool CudaBuilt() { return true; }

int CudaRuntimeVersion() { return CUDART_VERSION; }

int CudaDriverVersion() {
  RequestEagerModuleLoading();
  int version = 0;
  if (cudaDriverGetVersion(&version) != cudaSuccess) return 0;
  return version;
}

core::Result<std::vector<CudaDeviceInfo>> QueryCudaDevices() {
  RequestEagerModuleLoading();  // before the first call that initialises the driver
  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) return StatusFromCuda("cudaGetDeviceCount", error);
  if (count == 0) return StatusFromCuda("cudaGetDeviceCount", cudaErrorNoDevice);
  std::vector<CudaDeviceInfo> devices;
  auto nvml = SharedNvml();
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    error = cudaGetDeviceProperties(&prop, i);
    if (error != cudaSuccess) return StatusFromCuda("cudaGetDeviceProperties", error);
    CudaDeviceInfo info;
    info.index = i;
    info.name = prop.name;
    info.compute_capability_major = prop.major;
    info.compute_capability_minor = prop.minor;
    info.sm_count = prop.multiProcessorCount;
    info.memory_bus_width_bits = prop.memoryBusWidth;
    info.memory_total_bytes = prop.totalGlobalMem;
    info.l2_cache_bytes = static_cast<std::uint64_t>(prop.l2CacheSize);
    // CUDA 13 removed the clock fields from cudaDeviceProp; the attributes remain (kHz).
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, i) == cudaSuccess) info.sm_clock_max_mhz = khz / 1000.0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, i) == cudaSuccess) {
      info.memory_clock_max_mhz = khz / 1000.0;
    }
    char bus_id[32] = {};
    if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, i) == cudaSuccess) info.pci_bus_id = bus_id;
    // Free memory from NVML: cudaMemGetInfo would need a context on every GPU (~300 MB and
    // ~0.3 s each) when at most one will run. Without NVML it stays unknown.
    if (nvml != nullptr) {
      auto device = FindNvmlDevice(nvml->fn(), info.pci_bus_id);
      if (device.ok()) info.memory_free_bytes = NvmlFreeBytes(nvml->fn(), *device).value_or(0);
    }
    devices.push_back(info);
  }
  return devices;
}

core::Result<SmokeTestResult> RunSmokeTest(int device_index) {
  auto devices = QueryCudaDevices();
  if (!devices.ok()) return devices.status();
  if (device_index < 0 || device_index >= static_cast<int>(devices->size())) {
    return core::Status::NotFound("no GPU with index " + std::to_string(device_index));
  }
  cudaError_t error = cudaSetDevice(device_index);
  if (error != cudaSuccess) return StatusFromCuda("cudaSetDevice", error);

  SmokeTestResult result;
  result.elements = 1ull << 20;
  const float a = 3.0f, b = 0.5f;
  std::vector<float> host_x(result.elements), host_y(result.elements, 0.0f);
  for (unsigned long long i = 0; i < result.elements; ++i) host_x[i] = Pattern(i);

  DeviceBuffer x, y;
  size_t bytes = result.elements * sizeof(float);
  if ((error = cudaMalloc(&x.ptr, bytes)) != cudaSuccess) return StatusFromCuda("cudaMalloc", error);
  if ((error = cudaMalloc(&y.ptr, bytes)) != cudaSuccess) return StatusFromCuda("cudaMalloc", error);
  if ((error = cudaMemcpy(x.ptr, host_x.data(), bytes, cudaMemcpyHostToDevice)) != cudaSuccess) {
    return StatusFromCuda("cudaMemcpy host to device", error);
  }
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  AffineKernel<<<256, 256>>>(x.ptr, y.ptr, a, b, result.elements);
  cudaEventRecord(stop);
  error = cudaGetLastError();
  if (error == cudaSuccess) error = cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (error != cudaSuccess) return StatusFromCuda("smoke-test kernel", error);
  result.kernel_seconds = ms / 1e3;
  if ((error = cudaMemcpy(host_y.data(), y.ptr, bytes, cudaMemcpyDeviceToHost)) != cudaSuccess) {
    return StatusFromCuda("cudaMemcpy device to host", error);
  }
  for (unsigned long long i = 0; i < result.elements; ++i) {
    if (host_y[i] != a * host_x[i] + b) ++result.mismatches;
  }
  result.verified = result.mismatches == 0;
  return result;
}

}  // namespace gpuprobe::bench
