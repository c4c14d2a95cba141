// Moving data between host and GPU: host->device and device->host from pinned and from
// pageable memory, device->device, and both directions at once, across sizes from 4 KiB
// (all latency) to 256 MiB or more (all bandwidth), each beside the PCIe link's prediction.
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "bench/copy_prediction.h"
#include "bench/cuda/cuda_context.h"
#include "bench/registry.h"
#include "core/units.h"
#include "model/advisor.h"

namespace gpuprobe::bench {
namespace {

enum class Direction { kHostToDevice, kDeviceToHost, kDeviceToDevice, kBidirectional };

struct TransferKind {
  const char* name;
  Direction direction;
  bool pinned;
  const char* description;
};

const TransferKind kKinds[] = {
    {"h2d_pinned", Direction::kHostToDevice, true, "host to GPU from page-locked (pinned) memory (bytes/s)"},
    {"d2h_pinned", Direction::kDeviceToHost, true, "GPU to host into pinned memory (bytes/s)"},
    {"h2d_pageable", Direction::kHostToDevice, false, "host to GPU from ordinary (pageable) memory: staged by the driver (bytes/s)"},
    {"d2h_pageable", Direction::kDeviceToHost, false, "GPU to ordinary host memory (bytes/s)"},
    {"bidirectional", Direction::kBidirectional, true, "both directions at once, pinned, two streams (bytes/s, both counted)"},
    {"d2d", Direction::kDeviceToDevice, true,
     "GPU memory to GPU memory with the copy engine (bytes copied/s; each byte is read and written, so at most half the "
     "memory bandwidth)"},
};

class TransferInstance : public BenchmarkInstance {
 public:
  TransferInstance(CudaContext& ctx, const TransferKind& kind, std::uint64_t bytes) : ctx_(ctx), kind_(kind), bytes_(bytes) {}
  ~TransferInstance() override {
    if (second_ != nullptr) cudaStreamDestroy(second_);
  }

  core::Status Prepare() {
    std::uint64_t n = bytes_ / 4;
    cudaError_t e;
    if ((e = device_.Allocate(n)) != cudaSuccess) return CudaFailed("cudaMalloc", e);
    if (kind_.direction == Direction::kDeviceToDevice || kind_.direction == Direction::kBidirectional) {
      if ((e = device2_.Allocate(n)) != cudaSuccess) return CudaFailed("cudaMalloc", e);
      if ((e = FillDevice(device2_.get(), n, gpu::kSeedB, ctx_)) != cudaSuccess) return CudaFailed("fill", e);
    }
    if (kind_.direction != Direction::kDeviceToDevice) {
      if (kind_.pinned) {
        if ((e = pinned_.Allocate(bytes_, ctx_.numa_node())) != cudaSuccess) return CudaFailed("cudaMallocHost", e);
        if (kind_.direction == Direction::kBidirectional && (e = pinned2_.Allocate(bytes_, ctx_.numa_node())) != cudaSuccess) {
          return CudaFailed("cudaMallocHost", e);
        }
        host_ = static_cast<float*>(pinned_.get());
        host2_ = static_cast<float*>(pinned2_.get());
      } else {
        ScopedMemoryNode placement(ctx_.numa_node());  // the pages are first touched here
        pageable_.resize(n);
        host_ = pageable_.data();
      }
      for (std::uint64_t i = 0; i < n; ++i) host_[i] = gpu::FillValue(i, gpu::kSeedA);  // also touches every page
      if (host2_ != nullptr) std::memset(host2_, 0, bytes_);
    }
    if (kind_.direction == Direction::kDeviceToHost) {
      if ((e = FillDevice(device_.get(), n, gpu::kSeedA, ctx_)) != cudaSuccess) return CudaFailed("fill", e);
      std::memset(host_, 0, bytes_);
    }
    if (kind_.direction == Direction::kBidirectional &&
        (e = cudaStreamCreateWithFlags(&second_, cudaStreamNonBlocking)) != cudaSuccess) {
      return CudaFailed("cudaStreamCreate", e);
    }
    return core::Status::Ok();
  }

  cudaError_t Enqueue(cudaStream_t s) {
    switch (kind_.direction) {
      case Direction::kHostToDevice: return cudaMemcpyAsync(device_.get(), host_, bytes_, cudaMemcpyHostToDevice, s);
      case Direction::kDeviceToHost: return cudaMemcpyAsync(host_, device_.get(), bytes_, cudaMemcpyDeviceToHost, s);
      case Direction::kDeviceToDevice: return cudaMemcpyAsync(device_.get(), device2_.get(), bytes_, cudaMemcpyDeviceToDevice, s);
      case Direction::kBidirectional: {
        // The second stream joins the timed stream's order through events both ways.
        cudaEvent_t fork = nullptr, join = nullptr;
        cudaError_t e = cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&join, cudaEventDisableTiming);
        if (e == cudaSuccess) e = cudaEventRecord(fork, s);
        if (e == cudaSuccess) e = cudaStreamWaitEvent(second_, fork, 0);
        if (e == cudaSuccess) e = cudaMemcpyAsync(device_.get(), host_, bytes_, cudaMemcpyHostToDevice, s);
        if (e == cudaSuccess) e = cudaMemcpyAsync(host2_, device2_.get(), bytes_, cudaMemcpyDeviceToHost, second_);
        if (e == cudaSuccess) e = cudaEventRecord(join, second_);
        if (e == cudaSuccess) e = cudaStreamWaitEvent(s, join, 0);
        if (fork != nullptr) cudaEventDestroy(fork);
        if (join != nullptr) cudaEventDestroy(join);
        return e;
      }
    }
    return cudaErrorInvalidValue;
  }

  core::Result<double> RunOnce() override {
    auto enqueue = [this](cudaStream_t s) { return Enqueue(s); };
    if (reps_ == 0) {
      if (!kind_.pinned) {
        // Pageable copies synchronise with the host: they cannot be queued behind the gate.
        reps_ = 1;
      } else {
        auto reps = ctx_.CalibrateReps(enqueue);
        if (!reps.ok()) return reps.status();
        reps_ = *reps;
      }
    }
    if (!kind_.pinned) {
      cudaEvent_t start, stop;
      cudaEventCreate(&start);
      cudaEventCreate(&stop);
      cudaEventRecord(start, ctx_.stream());
      cudaError_t e = Enqueue(ctx_.stream());
      cudaEventRecord(stop, ctx_.stream());
      if (e == cudaSuccess) e = cudaEventSynchronize(stop);
      float ms = 0;
      if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, start, stop);
      cudaEventDestroy(start);
      cudaEventDestroy(stop);
      if (e != cudaSuccess) return CudaFailed("pageable copy", e);
      return static_cast<double>(ms) * 1e-3;
    }
    return ctx_.TimeQueued(reps_, enqueue);
  }

  Verification Verify() override {
    Verification v;
    std::uint64_t n = bytes_ / 4;
    std::uint64_t bad = 0;
    cudaError_t e = cudaStreamSynchronize(ctx_.stream());
    if (e == cudaSuccess && second_ != nullptr) e = cudaStreamSynchronize(second_);
    if (e != cudaSuccess) {
      v.detail = CudaFailed("copy", e).message();
      return v;
    }
    switch (kind_.direction) {
      case Direction::kHostToDevice:
      case Direction::kBidirectional: {
        auto mismatches = CountFillMismatches(device_.get(), n, gpu::kSeedA, ctx_);
        if (!mismatches.ok()) {
          v.detail = mismatches.status().message();
          return v;
        }
        bad = *mismatches;
        if (kind_.direction == Direction::kBidirectional) {
          for (std::uint64_t i = 0; i < n; ++i) bad += host2_[i] != gpu::FillValue(i, gpu::kSeedB);
        }
        break;
      }
      case Direction::kDeviceToHost:
        for (std::uint64_t i = 0; i < n; ++i) bad += host_[i] != gpu::FillValue(i, gpu::kSeedA);
        break;
      case Direction::kDeviceToDevice: {
        auto mismatches = CountFillMismatches(device_.get(), n, gpu::kSeedB, ctx_);
        if (!mismatches.ok()) {
          v.detail = mismatches.status().message();
          return v;
        }
        bad = *mismatches;
        break;
      }
    }
    v.verified = bad == 0;
    v.checksum = static_cast<double>(bytes_);
    v.detail = v.verified ? fmt::format("every byte of {} arrived", core::FormatBytesBinary(static_cast<double>(bytes_)))
                          : fmt::format("{} of {} values differ after the copy", bad, n);
    return v;
  }

  bool CorruptForTest() override {
    float wrong = 4242.0f;
    if (kind_.direction == Direction::kDeviceToHost) {
      host_[0] = wrong;
      return true;
    }
    return cudaMemcpy(device_.get(), &wrong, sizeof wrong, cudaMemcpyHostToDevice) == cudaSuccess;
  }

  std::string Note() const override {
    std::string note = kind_.pinned ? fmt::format("{} copies per timed batch", reps_) : "one synchronous copy per sample";
    if (ctx_.numa_node() >= 0) note += fmt::format(", host memory on NUMA node {} (the GPU's)", ctx_.numa_node());
    return note;
  }

 private:
  CudaContext& ctx_;
  const TransferKind& kind_;
  std::uint64_t bytes_;
  DeviceArray<float> device_, device2_;
  PinnedBuffer pinned_, pinned2_;
  std::vector<float> pageable_;
  float* host_ = nullptr;
  float* host2_ = nullptr;
  cudaStream_t second_ = nullptr;
  int reps_ = 0;
};

class TransferBenchmark : public Benchmark {
 public:
  explicit TransferBenchmark(const TransferKind& kind) : kind_(kind) {
    info_ = MakeBenchmarkInfo("transfer", kind.name, kind.name, kind.description,
                              "the host link is far slower than GPU memory, and small copies are all latency",
                              Metric::kBandwidth, {"cuda"});
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext&, const model::CpuSpec&, bool full, std::uint64_t size_override) const override {
    std::vector<std::uint64_t> sizes;
    if (size_override > 0) {
      sizes = {size_override / 4 * 4};
    } else if (full) {
      for (std::uint64_t b = 4096; b <= (1ull << 30); b *= 4) sizes.push_back(b);
    } else {
      sizes = {64ull << 10, 1ull << 20, 16ull << 20, 256ull << 20};
    }
    std::vector<BenchCase> cases;
    for (std::uint64_t b : sizes) cases.push_back({core::FormatBytesBinary(static_cast<double>(b)), b, 0, static_cast<double>(b), ""});
    return cases;
  }
  // What TransferInstance::Prepare allocates: one device buffer (two for device-to-device and
  // both directions at once) and, unless device-to-device, a host buffer of the copy's size
  // (two pinned ones for both directions).
  std::optional<Footprint> FootprintFor(const BackendContext&, const BenchCase& c) const override {
    const double bytes = static_cast<double>(c.size);
    const bool two_device = kind_.direction == Direction::kDeviceToDevice || kind_.direction == Direction::kBidirectional;
    Footprint f;
    f.device_bytes = (two_device ? 2 : 1) * bytes;
    f.host_bytes = kind_.direction == Direction::kDeviceToDevice ? 0 : (kind_.direction == Direction::kBidirectional && kind_.pinned ? 2 : 1) * bytes;
    return f;
  }
  Availability Check(const BackendContext& context, const BenchCase& c) const override {
    if (c.size < 4) return Availability::No("a copy needs at least 4 bytes");
    // Two device buffers at most; a size that does not fit is skipped and says so.
    if (c.size * 2 > FactsOf(context).FreeBytes()) {
      return Availability::No(fmt::format("{} twice does not fit in the GPU's free memory", core::FormatBytesBinary(static_cast<double>(c.size))));
    }
    return Availability::Yes();
  }
  Work WorkFor(const BenchCase& c) const override {
    Work w;
    double bytes = static_cast<double>(c.size);
    if (kind_.direction == Direction::kBidirectional) {
      w.bytes_read = bytes;     // both directions at once: each counted
      w.bytes_written = bytes;
    } else {
      w.bytes_read = bytes;     // bytes copied, once (as nvbandwidth counts them)
    }
    return w;
  }
  PlanEstimate Plan(const PredictionContext& pc, const BenchCase& c) const override {
    PlanEstimate plan = Benchmark::Plan(pc, c);
    // Host buffers filled (and, from the GPU, checked) element by element; d2d stays on the GPU.
    if (kind_.direction != Direction::kDeviceToDevice) plan.host_elements = 2.0 * static_cast<double>(c.size / 4);
    return plan;
  }
  Prediction Predict(const PredictionContext& pc, const BenchCase& c) const override {
    Prediction p;
    const auto* ctx = GpuFactsOf(pc.context);
    if (ctx == nullptr) return p;
    const auto& f = ctx->Figures();
    const double bytes = static_cast<double>(c.size), setup = model::kCopyLatencySeconds / 4;
    if (kind_.direction == Direction::kDeviceToDevice) {
      if (auto bw = model::TheoreticalBandwidth(f)) {
        p.value = gpu::PredictedCopyRate(gpu::CopyPath::kDeviceToDevice, bytes, *bw, setup);
        p.basis = fmt::format("half the memory bandwidth ({}): every byte is read and written through HBM; plus ~{} per copy",
                              core::FormatBytesPerSecond(*bw), core::FormatSeconds(setup));
      }
      return p;
    }
    auto link = model::PinnedCopyBandwidth(f);
    if (!link) {
      p.basis = "the PCIe generation and width are unknown (NVML not available)";
      return p;
    }
    double bw = *link;
    if (!kind_.pinned) bw *= 0.5;  // staged through a pinned bounce buffer: about half
    // Queued copies overlap part of the setup; both directions run at once on their own lanes
    // (the old formula doubled the link and counted both directions too: 4x the link).
    p.value = gpu::PredictedCopyRate(kind_.direction == Direction::kBidirectional ? gpu::CopyPath::kBothWays : gpu::CopyPath::kOneWay,
                                     bytes, bw, setup);
    p.basis = fmt::format("PCIe Gen{} x{}: 80% of the encoded rate{}{}, plus ~{} per copy", f.pcie_generation, f.pcie_lanes,
                          kind_.direction == Direction::kBidirectional ? " in each direction" : "",
                          kind_.pinned ? "" : ", halved for pageable staging",
                          core::FormatSeconds(model::kCopyLatencySeconds / 4));
    return p;
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& context, const BenchCase& c) const override {
    auto instance = std::make_unique<TransferInstance>(static_cast<CudaContext&>(context), kind_, c.size);
    GPUPROBE_RETURN_IF_ERROR(instance->Prepare());
    return std::unique_ptr<BenchmarkInstance>(std::move(instance));
  }

 private:
  const TransferKind& kind_;
  BenchmarkInfo info_;
};

}  // namespace

void RegisterCudaTransferBenchmarks(BenchmarkRegistry* registry) {
  for (const auto& kind : kKinds) registry->Add(std::make_unique<TransferBenchmark>(kind));
}

}  // namespace gpuprobe::bench
