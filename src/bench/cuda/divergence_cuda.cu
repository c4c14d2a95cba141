// Branch divergence: the 32 lanes of a warp share one instruction stream, so when lanes take
// k different paths the warp runs the k paths one after the other, each lane idle for the
// others: throughput falls as 1/k. And the other end: one GPU thread running serial,
// branchy code against one CPU core (the same function on both: divergence.serial_thread).
#include <vector>

#include <fmt/format.h>

#include "bench/cuda/cuda_context.h"
#include "bench/registry.h"
#include "core/units.h"

namespace gpuprobe::bench {
namespace {

constexpr int kPathSteps = 2048;       // dependent FMAs on each lane's path
constexpr int kBlocksPerSm = 8;
constexpr std::uint32_t kThreads = 256;
constexpr std::uint64_t kSerialNumbers = 20000;

// Each lane reads its path from memory and runs that path's chain; the loop over q visits
// every path present in the warp, in turn.
__global__ void DivergentKernel(const int* __restrict__ paths, float* out) {
  unsigned long long t = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  int path = paths[t];
  float x = 1.0f;
  for (int q = 0; q < 32; ++q) {
    if (path == q) {
      const float a = gpu::PathMultiplier(q);
      for (int s = 0; s < kPathSteps; ++s) x = fmaf(x, a, gpu::kPathAddend);
    }
  }
  out[t] = x;
}

__global__ void CollatzKernel(unsigned long long first, unsigned long long count, unsigned long long* total) {
  unsigned long long sum = 0;
  for (unsigned long long x = first; x < first + count; ++x) sum += gpu::CollatzSteps(x);
  *total = sum;
}

class DivergenceInstance : public BenchmarkInstance {
 public:
  DivergenceInstance(CudaContext& ctx, int paths, std::uint32_t blocks) : ctx_(ctx), paths_(paths), blocks_(blocks) {}
  std::uint64_t Threads() const { return static_cast<std::uint64_t>(blocks_) * kThreads; }
  core::Status Prepare() {
    std::vector<int> host(Threads());
    for (std::uint64_t t = 0; t < host.size(); ++t) host[t] = gpu::DivergencePath(t, paths_);
    cudaError_t e;
    if ((e = paths_dev_.Allocate(Threads())) != cudaSuccess || (e = out_.Allocate(Threads())) != cudaSuccess) return CudaFailed("cudaMalloc", e);
    if ((e = cudaMemcpy(paths_dev_.get(), host.data(), host.size() * sizeof(int), cudaMemcpyHostToDevice)) != cudaSuccess) {
      return CudaFailed("cudaMemcpy", e);
    }
    return core::Status::Ok();
  }
  core::Result<double> RunOnce() override {
    auto enqueue = [this](cudaStream_t s) {
      DivergentKernel<<<blocks_, kThreads, 0, s>>>(paths_dev_.get(), out_.get());
      return cudaGetLastError();
    };
    if (reps_ == 0) {
      auto reps = ctx_.CalibrateReps(enqueue);
      if (!reps.ok()) return reps.status();
      reps_ = *reps;
    }
    return ctx_.TimeQueued(reps_, enqueue);
  }
  Verification Verify() override {
    std::vector<float> got(Threads());
    cudaError_t e = cudaMemcpy(got.data(), out_.get(), got.size() * sizeof(float), cudaMemcpyDeviceToHost);
    std::vector<float> expected(32);
    for (int q = 0; q < 32; ++q) expected[static_cast<size_t>(q)] = gpu::ReplayPath(q, kPathSteps);
    std::uint64_t bad = 0;
    for (std::uint64_t t = 0; t < got.size() && e == cudaSuccess; ++t) {
      bad += got[t] != expected[static_cast<size_t>(gpu::DivergencePath(t, paths_))];
    }
    Verification v;
    v.checksum = static_cast<double>(Threads());
    v.verified = e == cudaSuccess && bad == 0;
    v.detail = v.verified ? fmt::format("every lane's path replayed on the host ({} paths per warp)", paths_)
                          : fmt::format("{} lanes differ from the host's replay", bad);
    return v;
  }
  bool CorruptForTest() override { return MemsetSync(out_.get(), 0x7f, sizeof(float), ctx_) == cudaSuccess; }

 private:
  CudaContext& ctx_;
  int paths_;
  std::uint32_t blocks_;
  DeviceArray<int> paths_dev_;
  DeviceArray<float> out_;
  int reps_ = 0;
};

class DivergenceBenchmark : public Benchmark {
 public:
  DivergenceBenchmark() {
    info_ = MakeBenchmarkInfo("divergence", "paths", "Divergent warps",
                              "lanes of each warp split over 1, 2, 4 ... 32 data-dependent paths (FLOP/s of useful work)",
                              "a warp runs its different paths one after another: k paths, 1/k of the speed",
                              Metric::kFlops, {"cuda"});
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext& context, const model::CpuSpec&, bool full, std::uint64_t) const override {
    const auto& ctx = FactsOf(context);
    std::uint64_t blocks = static_cast<std::uint64_t>(std::max(1, ctx.Figures().sm_count)) * kBlocksPerSm;
    std::vector<int> ks = full ? std::vector<int>{1, 2, 4, 8, 16, 32} : std::vector<int>{1, 4, 32};
    std::vector<BenchCase> cases;
    for (int k : ks) cases.push_back(BenchCase(fmt::format("{} path{}", k, k > 1 ? "s" : ""), blocks, 0, k, ""));
    return cases;
  }
  Work WorkFor(const BenchCase& c) const override {
    Work w;
    w.flops = 2.0 * static_cast<double>(c.size) * kThreads * kPathSteps;  // each lane's own path only
    return w;
  }
  Prediction Predict(const PredictionContext& pc, const BenchCase& c) const override {
    Prediction p;
    const EarlierResult* one = pc.Find("divergence.paths", "cuda", "1 path");
    if (one != nullptr && c.param > 1) {
      p.value = one->value / c.param;
      p.basis = fmt::format("the 1-path rate / {:.0f}: the warp runs each path in turn", c.param);
    } else {
      p.basis = "the baseline: the other cases are predicted from it";
    }
    return p;
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& context, const BenchCase& c) const override {
    auto instance = std::make_unique<DivergenceInstance>(static_cast<CudaContext&>(context), static_cast<int>(c.param),
                                                         static_cast<std::uint32_t>(c.size));
    GPUPROBE_RETURN_IF_ERROR(instance->Prepare());
    return std::unique_ptr<BenchmarkInstance>(std::move(instance));
  }

 private:
  BenchmarkInfo info_;
};

class SerialInstance : public BenchmarkInstance {
 public:
  explicit SerialInstance(CudaContext& ctx) : ctx_(ctx) {}
  core::Status Prepare() {
    cudaError_t e = total_.Allocate(1);
    if (e != cudaSuccess) return CudaFailed("cudaMalloc", e);
    // An empty first run outside the gated region: the kernel is loaded before any timing.
    CollatzKernel<<<1, 1, 0, ctx_.stream()>>>(gpu::kCollatzFirst, 0, total_.get());
    if ((e = cudaGetLastError()) == cudaSuccess) e = cudaStreamSynchronize(ctx_.stream());
    return e == cudaSuccess ? core::Status::Ok() : CudaFailed("the first Collatz run", e);
  }
  core::Result<double> RunOnce() override {
    return ctx_.TimeQueued(1, [this](cudaStream_t s) {
      CollatzKernel<<<1, 1, 0, s>>>(gpu::kCollatzFirst, kSerialNumbers, total_.get());
      return cudaGetLastError();
    });
  }
  Verification Verify() override {
    unsigned long long got = 0;
    cudaError_t e = cudaMemcpy(&got, total_.get(), sizeof got, cudaMemcpyDeviceToHost);
    std::uint64_t expected = gpu::CollatzTotal(kSerialNumbers);
    Verification v;
    v.checksum = static_cast<double>(expected);
    v.verified = e == cudaSuccess && got == expected;
    v.detail = v.verified ? fmt::format("{} Collatz steps, as on the CPU", expected) : "the step count differs from the CPU's";
    return v;
  }
  bool CorruptForTest() override { return MemsetSync(total_.get(), 0, sizeof(unsigned long long), ctx_) == cudaSuccess; }

 private:
  CudaContext& ctx_;
  DeviceArray<unsigned long long> total_;
};

class SerialBenchmark : public Benchmark {
 public:
  SerialBenchmark() {
    info_ = MakeBenchmarkInfo("divergence", "serial_thread", "One thread, serial branchy code",
                              "Collatz step counts on one GPU thread (numbers/s)",
                              "one GPU thread is far slower than one CPU core: the GPU is fast only in parallel",
                              Metric::kOps, {"cuda"});
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext&, const model::CpuSpec&, bool, std::uint64_t) const override {
    return {BenchCase("1 thread", kSerialNumbers, 1, 0, "")};
  }
  Work WorkFor(const BenchCase& c) const override {
    Work w;
    w.ops = static_cast<double>(c.size);
    return w;
  }
  Prediction Predict(const PredictionContext& pc, const BenchCase&) const override {
    Prediction p;
    (void)pc;
    p.basis = "no spec figure: compare with the CPU row (the same function on the same numbers); a GPU thread has a "
              "lower clock, no out-of-order execution and no branch predictor";
    return p;
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& context, const BenchCase&) const override {
    auto instance = std::make_unique<SerialInstance>(static_cast<CudaContext&>(context));
    GPUPROBE_RETURN_IF_ERROR(instance->Prepare());
    return std::unique_ptr<BenchmarkInstance>(std::move(instance));
  }

 private:
  BenchmarkInfo info_;
};

}  // namespace

void RegisterCudaDivergenceBenchmarks(BenchmarkRegistry* registry) {
  registry->Add(std::make_unique<DivergenceBenchmark>());
  registry->Add(std::make_unique<SerialBenchmark>());
}

}  // namespace gpuprobe::bench
