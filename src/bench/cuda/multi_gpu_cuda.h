// What the many-GPU CUDA sources share (bench/cuda only: needs <cuda_runtime.h>): the fill
// kernel that writes collective_pattern.h's inputs on the GPU, the compare kernel that checks
// every element of an output against its closed-form value there, and device buffers that
// free themselves on the right device.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bench/collective_pattern.h"
#include "bench/multi_gpu.h"
#include "core/status.h"

namespace gpuprobe::bench::multi_gpu {

/// Writes p[x] = scale x k(x + index_offset) for x < elements (collective_pattern.h's k) on
/// `stream`; returns the launch error.
cudaError_t LaunchFillPattern(float* p, std::uint64_t elements, std::uint64_t index_offset, float scale, cudaStream_t stream);

/// Compares every element of `output` (memory of the current device) with `check`'s
/// closed-form values on the GPU, on `stream`, and waits: how many differ and the first
/// (lowest index) with its value. An error counter and an atomicMin on the device; only the
/// two counters and the first wrong value come back.
core::Result<PatternMismatches> ComparePatternOnDevice(const float* output, std::uint64_t elements, const PatternCheck& check,
                                                       cudaStream_t stream);

/// A device allocation on one GPU, freed there.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept { *this = std::move(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  /// Allocates `bytes` on `device` (the current device is left at `device`).
  cudaError_t Allocate(int device, std::uint64_t bytes);
  float* get() const { return ptr_; }

 private:
  void Release();
  int device_ = -1;
  float* ptr_ = nullptr;
};

/// A stream and two events on one GPU, destroyed there.
struct DeviceTimer {
  int device = -1;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  DeviceTimer() = default;
  ~DeviceTimer();
  DeviceTimer(const DeviceTimer&) = delete;
  DeviceTimer& operator=(const DeviceTimer&) = delete;
  cudaError_t Create(int device_index);
};

/// The Status of a failed CUDA call, naming the call and the GPU.
core::Status CudaCallFailed(const std::string& call, int device, cudaError_t error);

}  // namespace gpuprobe::bench::multi_gpu
