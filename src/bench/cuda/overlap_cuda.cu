// Keeping the GPU and the host link busy at the same time, and not waiting when there is no
// need to: (1) a large array processed in chunks (copy in, compute, copy out) on one stream
// against two and four streams whose copies and kernels overlap; (2) a multi-step pipeline
// kept on the device, synchronised once or after every step, against a round trip to the
// host after every step.
#include <chrono>
#include <vector>

#include <fmt/format.h>

#include "bench/cuda/cuda_context.h"
#include "bench/registry.h"
#include "core/units.h"

namespace gpuprobe::bench {
namespace {

constexpr int kAdds = 256;        // per element per kernel: x + 256, exact in fp32
constexpr int kChunks = 16;
constexpr int kPipelineSteps = 20;

__global__ void AddKernel(float* x, unsigned long long n, int adds) {
  unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    float v = x[i];
    for (int a = 0; a < adds; ++a) v += 1.0f;
    x[i] = v;
  }
}

double Now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

class Streams {
 public:
  ~Streams() {
    for (auto s : streams_) cudaStreamDestroy(s);
  }
  cudaError_t Create(int count) {
    for (int i = 0; i < count; ++i) {
      cudaStream_t s = nullptr;
      cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
      if (e != cudaSuccess) return e;
      streams_.push_back(s);
    }
    return cudaSuccess;
  }
  cudaStream_t operator[](size_t i) const { return streams_[i % streams_.size()]; }
  cudaError_t SyncAll() {
    for (auto s : streams_) {
      cudaError_t e = cudaStreamSynchronize(s);
      if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
  }

 private:
  std::vector<cudaStream_t> streams_;
};

// Host data: FillValue(i) rounded to a multiple of 1/1024 in [-512, 512): adding a few
// thousand ones stays exact in fp32.
class ChunkedInstance : public BenchmarkInstance {
 public:
  ChunkedInstance(CudaContext& ctx, std::uint64_t n, int streams) : ctx_(ctx), n_(n), streams_count_(streams) {}
  core::Status Prepare() {
    cudaError_t e;
    if ((e = host_in_.Allocate(n_ * 4, ctx_.numa_node())) != cudaSuccess || (e = host_out_.Allocate(n_ * 4, ctx_.numa_node())) != cudaSuccess) return CudaFailed("cudaMallocHost", e);
    if ((e = device_.Allocate(n_)) != cudaSuccess) return CudaFailed("cudaMalloc", e);
    if ((e = streams_.Create(streams_count_)) != cudaSuccess) return CudaFailed("cudaStreamCreate", e);
    float* in = static_cast<float*>(host_in_.get());
    for (std::uint64_t i = 0; i < n_; ++i) in[i] = gpu::FillValue(i, gpu::kSeedA);
    return core::Status::Ok();
  }
  core::Result<double> RunOnce() override {
    const std::uint64_t chunk = (n_ + kChunks - 1) / kChunks;
    float* in = static_cast<float*>(host_in_.get());
    float* out = static_cast<float*>(host_out_.get());
    double start = Now();
    cudaError_t e = cudaSuccess;
    for (int c = 0; c < kChunks && e == cudaSuccess; ++c) {
      std::uint64_t first = c * chunk, count = std::min<std::uint64_t>(chunk, n_ - std::min(n_, first));
      if (count == 0) break;
      cudaStream_t s = streams_[static_cast<size_t>(c)];
      e = cudaMemcpyAsync(device_.get() + first, in + first, count * 4, cudaMemcpyHostToDevice, s);
      if (e != cudaSuccess) break;
      gpu::LaunchGeometry g = Geometry(ctx_, count, 1);
      AddKernel<<<g.blocks, g.threads, 0, s>>>(device_.get() + first, count, kAdds);
      e = cudaGetLastError();
      if (e == cudaSuccess) e = cudaMemcpyAsync(out + first, device_.get() + first, count * 4, cudaMemcpyDeviceToHost, s);
    }
    if (e == cudaSuccess) e = streams_.SyncAll();
    double end = Now();
    if (e != cudaSuccess) return CudaFailed("chunked copy, compute, copy back", e);
    return end - start;
  }
  Verification Verify() override {
    const float* out = static_cast<const float*>(host_out_.get());
    std::uint64_t bad = 0;
    for (std::uint64_t i = 0; i < n_; ++i) bad += out[i] != gpu::FillValue(i, gpu::kSeedA) + static_cast<float>(kAdds);
    Verification v;
    v.checksum = static_cast<double>(n_);
    v.verified = bad == 0;
    v.detail = v.verified ? fmt::format("every element came back as x + {}", kAdds) : fmt::format("{} elements wrong", bad);
    return v;
  }
  bool CorruptForTest() override {
    static_cast<float*>(host_out_.get())[0] += 1.0f;
    return true;
  }
  std::string Note() const override { return fmt::format("{} chunks over {} stream{}", kChunks, streams_count_, streams_count_ > 1 ? "s" : ""); }

 private:
  CudaContext& ctx_;
  std::uint64_t n_;
  int streams_count_;
  PinnedBuffer host_in_, host_out_;
  DeviceArray<float> device_;
  Streams streams_;
};

class ChunkedBenchmark : public Benchmark {
 public:
  ChunkedBenchmark() {
    info_ = MakeBenchmarkInfo("overlap", "streams", "Copy, compute, copy back: streams",
                              "a large array in 16 chunks: copy in, compute, copy out, on 1, 2 or 4 streams (bytes/s over the link)",
                              "with several streams the copy engines and the SMs work at the same time", Metric::kBandwidth, {"cuda"});
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext& context, const model::CpuSpec&, bool, std::uint64_t size_override) const override {
    const auto& ctx = FactsOf(context);
    std::uint64_t bytes = size_override > 0 ? size_override : std::min<std::uint64_t>(256ull << 20, ctx.FreeBytes() / 4);
    std::vector<BenchCase> cases;
    for (int s : {1, 2, 4}) cases.push_back(BenchCase(fmt::format("{} stream{}", s, s > 1 ? "s" : ""), bytes / 4, 0, s, ""));
    return cases;
  }
  Work WorkFor(const BenchCase& c) const override {
    Work w;
    w.bytes_read = 4.0 * static_cast<double>(c.size);     // host to device
    w.bytes_written = 4.0 * static_cast<double>(c.size);  // device to host
    return w;
  }
  Prediction Predict(const PredictionContext& pc, const BenchCase& c) const override {
    Prediction p;
    const EarlierResult* one = pc.Find("overlap.streams", "cuda", "1 stream");
    if (one != nullptr && c.param > 1) {
      p.value = one->value * 2;
      p.basis = "the 1-stream rate x 2: copies in both directions (and the kernels) overlap";
    } else {
      p.basis = "the baseline: each chunk's copies and kernel run one after another";
    }
    return p;
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& context, const BenchCase& c) const override {
    auto instance = std::make_unique<ChunkedInstance>(static_cast<CudaContext&>(context), c.size, static_cast<int>(c.param));
    GPUPROBE_RETURN_IF_ERROR(instance->Prepare());
    return std::unique_ptr<BenchmarkInstance>(std::move(instance));
  }

 private:
  BenchmarkInfo info_;
};

enum class PipelineMode { kDeviceSyncOnce, kDeviceSyncEveryStep, kHostRoundTrip };

class PipelineInstance : public BenchmarkInstance {
 public:
  PipelineInstance(CudaContext& ctx, std::uint64_t n, PipelineMode mode) : ctx_(ctx), n_(n), mode_(mode) {}
  core::Status Prepare() {
    cudaError_t e;
    if ((e = host_.Allocate(n_ * 4, ctx_.numa_node())) != cudaSuccess) return CudaFailed("cudaMallocHost", e);
    if ((e = device_.Allocate(n_)) != cudaSuccess) return CudaFailed("cudaMalloc", e);
    return core::Status::Ok();
  }
  core::Result<double> RunOnce() override {
    float* h = static_cast<float*>(host_.get());
    for (std::uint64_t i = 0; i < n_; ++i) h[i] = gpu::FillValue(i, gpu::kSeedB);  // untimed reset
    cudaStream_t s = ctx_.stream();
    gpu::LaunchGeometry g = Geometry(ctx_, n_, 1);
    double start = Now();
    cudaError_t e = cudaMemcpyAsync(device_.get(), h, n_ * 4, cudaMemcpyHostToDevice, s);
    for (int step = 0; step < kPipelineSteps && e == cudaSuccess; ++step) {
      AddKernel<<<g.blocks, g.threads, 0, s>>>(device_.get(), n_, 1);
      e = cudaGetLastError();
      if (e != cudaSuccess) break;
      if (mode_ == PipelineMode::kDeviceSyncEveryStep) e = cudaStreamSynchronize(s);
      if (mode_ == PipelineMode::kHostRoundTrip && step + 1 < kPipelineSteps) {
        // The anti-pattern: look at the data on the host between steps.
        e = cudaMemcpyAsync(h, device_.get(), n_ * 4, cudaMemcpyDeviceToHost, s);
        if (e == cudaSuccess) e = cudaStreamSynchronize(s);
        if (e == cudaSuccess) e = cudaMemcpyAsync(device_.get(), h, n_ * 4, cudaMemcpyHostToDevice, s);
      }
    }
    if (e == cudaSuccess) e = cudaMemcpyAsync(h, device_.get(), n_ * 4, cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    double end = Now();
    if (e != cudaSuccess) return CudaFailed("pipeline", e);
    return end - start;
  }
  Verification Verify() override {
    const float* h = static_cast<const float*>(host_.get());
    std::uint64_t bad = 0;
    for (std::uint64_t i = 0; i < n_; ++i) bad += h[i] != gpu::FillValue(i, gpu::kSeedB) + static_cast<float>(kPipelineSteps);
    Verification v;
    v.checksum = static_cast<double>(n_);
    v.verified = bad == 0;
    v.detail = v.verified ? fmt::format("every element went through all {} steps", kPipelineSteps) : fmt::format("{} elements wrong", bad);
    return v;
  }
  bool CorruptForTest() override {
    static_cast<float*>(host_.get())[0] -= 1.0f;
    return true;
  }

 private:
  CudaContext& ctx_;
  std::uint64_t n_;
  PipelineMode mode_;
  PinnedBuffer host_;
  DeviceArray<float> device_;
};

class PipelineBenchmark : public Benchmark {
 public:
  PipelineBenchmark() {
    info_ = MakeBenchmarkInfo("overlap", "pipeline", "Multi-step pipeline",
                              "20 kernel steps on 16 MiB: kept on the device (sync once / every step) or back to the host every step (s per step)",
                              "data that stays on the GPU between steps never pays the host link; waiting after every step "
                              "adds a round trip each time",
                              Metric::kLatency, {"cuda"});
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext&, const model::CpuSpec&, bool, std::uint64_t size_override) const override {
    std::uint64_t n = (size_override > 0 ? size_override : (16ull << 20)) / 4;
    return {BenchCase("on the device, sync once", n, 0, 0, ""), BenchCase("on the device, sync every step", n, 0, 1, ""),
            BenchCase("round trip to the host every step", n, 0, 2, "")};
  }
  Work WorkFor(const BenchCase&) const override {
    Work w;
    w.items = kPipelineSteps;
    return w;
  }
  Prediction Predict(const PredictionContext& pc, const BenchCase& c) const override {
    Prediction p;
    const auto* ctx = GpuFactsOf(pc.context);
    auto link = ctx != nullptr ? model::PinnedCopyBandwidth(ctx->Figures()) : std::nullopt;
    if (c.param == 2 && link) {
      double bytes = 4.0 * static_cast<double>(c.size);
      p.value = 2 * bytes / *link;  // per step: a copy out and a copy back in
      p.basis = "two copies of the data per step over the host link (80% of its encoded rate)";
    } else {
      p.basis = "a kernel per step plus, when synchronising, a launch round trip per step";
    }
    return p;
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& context, const BenchCase& c) const override {
    auto instance = std::make_unique<PipelineInstance>(static_cast<CudaContext&>(context), c.size,
                                                       static_cast<PipelineMode>(static_cast<int>(c.param)));
    GPUPROBE_RETURN_IF_ERROR(instance->Prepare());
    return std::unique_ptr<BenchmarkInstance>(std::move(instance));
  }

 private:
  BenchmarkInfo info_;
};

}  // namespace

void RegisterCudaOverlapBenchmarks(BenchmarkRegistry* registry) {
  registry->Add(std::make_unique<ChunkedBenchmark>());
  registry->Add(std::make_unique<PipelineBenchmark>());
}

}  // namespace gpuprobe::bench
