// The CUDA backend's context and the measuring tools every GPU suite shares. Only files in
// bench/cuda/ include this header (it needs <cuda_runtime.h>).
//
// How a GPU case is timed (METHOD.md: nvbench's blocking kernel, nvbandwidth's events):
//   1. a gate kernel spins on a flag in mapped host memory, holding the stream;
//   2. the start event, `reps` repetitions of the work and the stop event are queued behind it;
//   3. the flag is set: the queued work runs back to back, with the launch cost of each
//      repetition hidden behind the previous one rather than inside the timed region;
//   4. the time is the events' interval / reps. reps is chosen so a batch lasts >= 100 us.
// A gate that times out (gate.h) makes the batch an error, never a figure; modules are
// loaded eagerly (module_loading.h) so a first launch cannot stall behind the gate.
//
// Thread safety: a context and its buffers belong to the thread that opened it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "bench/backend.h"
#include "bench/gpu_facts.h"
#include "bench/gpu_kernel_math.h"
#include "model/gpu_device_figures.h"
#include "bench/cuda/numa_placement.h"
#include "core/status.h"

namespace gpuprobe::bench {

class CudaContext : public BackendContext, public GpuFacts {
 public:
  /// Opens device `index`: a stream, two events and the gate's mapped flag.
  static core::Result<std::unique_ptr<CudaContext>> Open(int index);
  ~CudaContext() override;
  CudaContext(const CudaContext&) = delete;
  CudaContext& operator=(const CudaContext&) = delete;

  std::string BackendName() const override { return "cuda"; }
  const DeviceInfo& Device() const override { return device_; }
  const model::DeviceFigures& Figures() const override { return figures_; }
  /// The spec database's entry for this GPU's name; nullptr when it is not there.
  const model::GpuSpec* Spec() const override { return spec_; }
  /// The GPU's NUMA node (sysfs), -1 when unknown: pinned host buffers are placed there.
  int numa_node() const { return numa_node_; }
  cudaStream_t stream() const { return stream_; }

  /// SM clock, power, temperature and throttle reasons from NVML now: four calls on this GPU
  /// only, no PCIe counters (nvml_device.h); nothing without NVML.
  DeviceSample Sample() override;

  /// Free device memory now (cudaMemGetInfo); 0 on error.
  std::uint64_t FreeBytes() const override;

  /// Seconds per repetition of `enqueue` (which queues one repetition on stream()), timed
  /// with events behind the gate as described above; Internal when the gate timed out.
  core::Result<double> TimeQueued(int reps, const std::function<cudaError_t(cudaStream_t)>& enqueue);

  /// TimeQueued with a repetition count picked by CalibrateReps on the first call (*reps == 0)
  /// and reused after: what most GPU cases' RunOnce is.
  core::Result<double> TimeCalibrated(int* reps, const std::function<cudaError_t(cudaStream_t)>& enqueue);

  /// Picks a repetition count for `enqueue` so that one batch lasts >= 100 us (at most 256:
  /// the launch queue must not fill behind the gate). Runs it once untimed, once timed.
  core::Result<int> CalibrateReps(const std::function<cudaError_t(cudaStream_t)>& enqueue);

 private:
  CudaContext() = default;
  std::shared_ptr<void> nvml_;   // telemetry::NvmlLibrary, kept opaque to keep NVML out of this header
  void* nvml_device_ = nullptr;  // this GPU's nvmlDevice_t
  DeviceInfo device_;
  model::DeviceFigures figures_;
  const model::GpuSpec* spec_ = nullptr;
  int numa_node_ = -1;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  volatile int* gate_host_ = nullptr;  // [0]: release flag, [1]: set by a gate that timed out
  int* gate_device_ = nullptr;
};

/// Device memory, freed on every path.
template <typename T>
class DeviceArray {
 public:
  DeviceArray() = default;
  ~DeviceArray() { Reset(); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& o) noexcept : ptr_(o.ptr_), count_(o.count_) { o.ptr_ = nullptr; o.count_ = 0; }
  cudaError_t Allocate(std::uint64_t count) {
    Reset();
    cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T));
    if (e == cudaSuccess) count_ = count;
    return e;
  }
  void Reset() {
    if (ptr_ != nullptr) cudaFree(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }
  T* get() const { return ptr_; }
  std::uint64_t size() const { return count_; }
  std::uint64_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::uint64_t count_ = 0;
};

/// Page-locked host memory (cudaMallocHost), on NUMA node `numa_node` where given (pinning
/// touches every page, so the thread's binding decides where they live); freed on every path.
class PinnedBuffer {
 public:
  ~PinnedBuffer() {
    if (ptr_ != nullptr) cudaFreeHost(ptr_);
  }
  cudaError_t Allocate(std::uint64_t bytes, int numa_node = -1) {
    ScopedMemoryNode placement(numa_node);
    cudaError_t e = cudaMallocHost(&ptr_, bytes);
    if (e == cudaSuccess) bytes_ = bytes;
    return e;
  }
  void* get() const { return ptr_; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::uint64_t bytes_ = 0;
};

/// cudaMemset on the context's stream, then waits for it. The context's stream does not
/// synchronise with the legacy default stream, so a plain cudaMemset there could still be
/// running when the next kernel on the context's stream starts.
cudaError_t MemsetSync(void* data, int value, std::uint64_t bytes, const CudaContext& ctx);

/// Fills `n` floats with gpu::FillValue(i, seed) on the device (then synchronises).
cudaError_t FillDevice(float* data, std::uint64_t n, std::uint32_t seed, const CudaContext& ctx);

/// Counts elements of `data` that differ from gpu::FillValue(i, seed) (or, with `op`, from
/// gpu::StreamElement(op, i)); on the device, synchronising.
core::Result<std::uint64_t> CountFillMismatches(const float* data, std::uint64_t n, std::uint32_t seed, const CudaContext& ctx);
core::Result<std::uint64_t> CountStreamMismatches(const float* data, std::uint64_t n, gpu::StreamOp op, const CudaContext& ctx);

/// The launch geometry for `n` elements in vectors of `width` on this device, assuming 8
/// blocks per SM (fill and check kernels, outside any timed region).
gpu::LaunchGeometry Geometry(const CudaContext& ctx, std::uint64_t n, int width, std::uint32_t threads = 256);

/// Blocks of `threads` threads of `kernel` resident on one SM at once, from the occupancy
/// calculator (the kernel's registers and shared memory against the SM's limits); `fallback`
/// when the query fails.
template <typename Kernel>
int ResidentBlocksPerSm(Kernel kernel, std::uint32_t threads, int fallback = 8) {
  int blocks = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, static_cast<int>(threads), 0) != cudaSuccess || blocks < 1) {
    (void)cudaGetLastError();  // the next launch's cudaGetLastError must not report it
    return fallback;
  }
  return blocks;
}

/// The launch geometry of a timed grid-stride kernel: one full wave of the blocks that fit on
/// every SM (ResidentBlocksPerSm), not an assumed 8 per SM. A kernel that fits only 6 would
/// otherwise run 1.33 waves, the last third of the time on a quarter of the SMs' threads.
template <typename Kernel>
gpu::LaunchGeometry KernelGeometry(const CudaContext& ctx, Kernel kernel, std::uint64_t n, int width, std::uint32_t threads = 256) {
  return gpu::GridStride(n, width, threads, ctx.Figures().sm_count, ResidentBlocksPerSm(kernel, threads));
}

/// An error Status naming the call, from a cudaError_t (see cuda_status.h).
core::Status CudaFailed(const std::string& what, cudaError_t error);

}  // namespace gpuprobe::bench
