// The CUDA context, the gate, event timing and the fill/check kernels (see cuda_context.h).
#include "bench/cuda/cuda_context.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include <fmt/format.h>

#include "bench/cuda/cuda_device.h"
#include "bench/cuda/cuda_status.h"
#include "bench/cuda/nvml_device.h"
#include "bench/gate.h"
#include "knowledge/embedded_knowledge.h"

namespace gpuprobe::bench {
namespace {

constexpr unsigned long long kGateTimeoutNs = static_cast<unsigned long long>(kGateTimeoutSeconds * 1e9);

__device__ unsigned long long GlobalTimerNs() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Holds the stream until the host sets gate[0] (or the timeout passes, so a host that dies
// between queueing and releasing cannot hang the GPU). A timeout is written to gate[1]: the
// batch behind it is then not a valid sample (gate.h).
__global__ void GateKernel(volatile int* gate) {
  unsigned long long start = GlobalTimerNs();
  while (gate[0] == 0) {
    if (GlobalTimerNs() - start > kGateTimeoutNs) {
      gate[1] = 1;
      break;
    }
  }
}

__global__ void FillKernel(float* data, unsigned long long n, unsigned int seed) {
  unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    data[i] = gpu::FillValue(i, seed);
  }
}

__global__ void CountMismatchKernel(const float* data, unsigned long long n, unsigned int seed, int op,
                                    unsigned long long* mismatches) {
  unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    float expected = op < 0 ? gpu::FillValue(i, seed) : gpu::StreamElement(static_cast<gpu::StreamOp>(op), i);
    if (data[i] != expected) ++bad;
  }
  if (bad != 0) atomicAdd(mismatches, bad);
}

core::Result<std::uint64_t> CountMismatches(const float* data, std::uint64_t n, std::uint32_t seed, int op,
                                            const CudaContext& ctx) {
  DeviceArray<unsigned long long> counter;
  cudaError_t e = counter.Allocate(1);
  if (e != cudaSuccess) return CudaFailed("cudaMalloc (check counter)", e);
  if ((e = cudaMemsetAsync(counter.get(), 0, sizeof(unsigned long long), ctx.stream())) != cudaSuccess) {
    return CudaFailed("cudaMemset", e);
  }
  gpu::LaunchGeometry g = Geometry(ctx, n, 1);
  CountMismatchKernel<<<g.blocks, g.threads, 0, ctx.stream()>>>(data, n, seed, op, counter.get());
  unsigned long long bad = 0;
  if ((e = cudaGetLastError()) != cudaSuccess) return CudaFailed("check kernel", e);
  if ((e = cudaMemcpyAsync(&bad, counter.get(), sizeof bad, cudaMemcpyDeviceToHost, ctx.stream())) != cudaSuccess) {
    return CudaFailed("cudaMemcpy (check counter)", e);
  }
  if ((e = cudaStreamSynchronize(ctx.stream())) != cudaSuccess) return CudaFailed("check kernel", e);
  return static_cast<std::uint64_t>(bad);
}

}  // namespace

core::Status CudaFailed(const std::string& what, cudaError_t error) { return StatusFromCuda(what, error); }

gpu::LaunchGeometry Geometry(const CudaContext& ctx, std::uint64_t n, int width, std::uint32_t threads) {
  return gpu::GridStride(n, width, threads, ctx.Figures().sm_count);
}

core::Result<std::unique_ptr<CudaContext>> CudaContext::Open(int index) {
  auto devices = QueryCudaDevices();
  if (!devices.ok()) return devices.status();
  if (index < 0 || index >= static_cast<int>(devices->size())) {
    return core::Status::NotFound("no GPU with index " + std::to_string(index));
  }
  const CudaDeviceInfo& d = (*devices)[static_cast<size_t>(index)];
  std::unique_ptr<CudaContext> ctx(new CudaContext());
  ctx->device_.backend = "cuda";
  ctx->device_.index = index;
  ctx->device_.name = d.name;
  ctx->device_.pci_bus_id = d.pci_bus_id;
  ctx->device_.memory_total_bytes = d.memory_total_bytes;
  ctx->device_.memory_free_bytes = d.memory_free_bytes;
  model::DeviceFigures& f = ctx->figures_;
  f.cc_major = d.compute_capability_major;
  f.cc_minor = d.compute_capability_minor;
  f.sm_count = d.sm_count;
  f.sm_clock_hz = d.sm_clock_max_mhz * 1e6;
  f.memory_clock_hz = d.memory_clock_max_mhz * 1e6;
  f.memory_bus_width_bits = d.memory_bus_width_bits;
  f.l2_bytes = d.l2_cache_bytes;
  // The PCIe link from NVML (the runtime does not report it), and this GPU's handle for the
  // samples after each case; both stay unknown without NVML.
  if (auto nvml = SharedNvml()) {
    auto device = FindNvmlDevice(nvml->fn(), d.pci_bus_id);
    if (device.ok()) {
      PcieLink link = NvmlPcieLink(nvml->fn(), *device);
      f.pcie_generation = link.generation;
      f.pcie_lanes = link.lanes;
      ctx->nvml_ = nvml;
      ctx->nvml_device_ = *device;
    }
  }
  ctx->numa_node_ = PciNumaNode(d.pci_bus_id);
  ctx->spec_ = knowledge::DeviceSpec(d.name);  // the strict device rule (model/device_match.h)

  // The one device that runs gets a context; the query made none.
  cudaError_t e = cudaSetDevice(index);
  if (e != cudaSuccess) return CudaFailed("cudaSetDevice", e);
  ctx->device_.memory_free_bytes = ctx->FreeBytes();
  if ((e = cudaStreamCreateWithFlags(&ctx->stream_, cudaStreamNonBlocking)) != cudaSuccess) return CudaFailed("cudaStreamCreate", e);
  if ((e = cudaEventCreate(&ctx->start_)) != cudaSuccess) return CudaFailed("cudaEventCreate", e);
  if ((e = cudaEventCreate(&ctx->stop_)) != cudaSuccess) return CudaFailed("cudaEventCreate", e);
  void* flag = nullptr;
  if ((e = cudaHostAlloc(&flag, 2 * sizeof(int), cudaHostAllocMapped)) != cudaSuccess) return CudaFailed("cudaHostAlloc (gate)", e);
  ctx->gate_host_ = static_cast<volatile int*>(flag);
  ctx->gate_host_[0] = 0;
  ctx->gate_host_[1] = 0;
  if ((e = cudaHostGetDevicePointer(reinterpret_cast<void**>(&ctx->gate_device_), flag, 0)) != cudaSuccess) {
    return CudaFailed("cudaHostGetDevicePointer (gate)", e);
  }
  return core::Result<std::unique_ptr<CudaContext>>(std::move(ctx));
}

CudaContext::~CudaContext() {
  if (stream_ != nullptr) cudaStreamSynchronize(stream_);
  if (start_ != nullptr) cudaEventDestroy(start_);
  if (stop_ != nullptr) cudaEventDestroy(stop_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
  if (gate_host_ != nullptr) cudaFreeHost(const_cast<int*>(gate_host_));
}

DeviceSample CudaContext::Sample() {
  if (nvml_ == nullptr || nvml_device_ == nullptr) return {};
  return SampleDevice(static_cast<telemetry::NvmlLibrary*>(nvml_.get())->fn(), static_cast<nvmlDevice_t>(nvml_device_));
}

std::uint64_t CudaContext::FreeBytes() const {
  size_t free_bytes = 0, total = 0;
  return cudaMemGetInfo(&free_bytes, &total) == cudaSuccess ? free_bytes : 0;
}

core::Result<double> CudaContext::TimeQueued(int reps, const std::function<cudaError_t(cudaStream_t)>& enqueue) {
  reps = std::clamp(reps, 1, 256);
  gate_host_[0] = 0;
  gate_host_[1] = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  GateKernel<<<1, 1, 0, stream_>>>(gate_device_);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaEventRecord(start_, stream_);
  for (int r = 0; r < reps && e == cudaSuccess; ++r) e = enqueue(stream_);
  if (e == cudaSuccess) e = cudaEventRecord(stop_, stream_);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  gate_host_[0] = 1;  // release: the queued work now runs back to back
  cudaError_t sync = cudaEventSynchronize(stop_);
  if (e != cudaSuccess) {
    cudaStreamSynchronize(stream_);
    return CudaFailed("queueing the timed work", e);
  }
  if (sync != cudaSuccess) return CudaFailed("the timed work", sync);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  bool timed_out = gate_host_[1] != 0;
  float ms = 0;
  if ((e = cudaEventElapsedTime(&ms, start_, stop_)) != cudaSuccess) return CudaFailed("cudaEventElapsedTime", e);
  return GatedSeconds(ms, reps, timed_out);
}

core::Result<int> CudaContext::CalibrateReps(const std::function<cudaError_t(cudaStream_t)>& enqueue) {
  cudaError_t e = enqueue(stream_);  // untimed: first-touch, module load, clocks ramping
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream_);
  if (e != cudaSuccess) return CudaFailed("the first run", e);
  auto one = TimeQueued(1, enqueue);
  if (!one.ok()) return one.status();
  return gpu::BatchRepetitions(*one);
}

core::Result<double> CudaContext::TimeCalibrated(int* reps, const std::function<cudaError_t(cudaStream_t)>& enqueue) {
  if (*reps == 0) {
    auto calibrated = CalibrateReps(enqueue);
    if (!calibrated.ok()) return calibrated.status();
    *reps = *calibrated;
  }
  return TimeQueued(*reps, enqueue);
}

cudaError_t MemsetSync(void* data, int value, std::uint64_t bytes, const CudaContext& ctx) {
  cudaError_t e = cudaMemsetAsync(data, value, bytes, ctx.stream());
  return e != cudaSuccess ? e : cudaStreamSynchronize(ctx.stream());
}

cudaError_t FillDevice(float* data, std::uint64_t n, std::uint32_t seed, const CudaContext& ctx) {
  gpu::LaunchGeometry g = Geometry(ctx, n, 1);
  FillKernel<<<g.blocks, g.threads, 0, ctx.stream()>>>(data, n, seed);
  cudaError_t e = cudaGetLastError();
  return e != cudaSuccess ? e : cudaStreamSynchronize(ctx.stream());
}

core::Result<std::uint64_t> CountFillMismatches(const float* data, std::uint64_t n, std::uint32_t seed, const CudaContext& ctx) {
  return CountMismatches(data, n, seed, -1, ctx);
}

core::Result<std::uint64_t> CountStreamMismatches(const float* data, std::uint64_t n, gpu::StreamOp op, const CudaContext& ctx) {
  return CountMismatches(data, n, 0, static_cast<int>(op), ctx);
}

}  // namespace gpuprobe::bench
