// GPU memory latency: one thread follows a random cycle through a buffer (each load's address
// is the previous load's value), with working sets that fit in L1, in L2, and only in HBM.
// A GPU hides this latency with thousands of threads; one thread cannot.
#include <numeric>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "bench/cuda/cuda_context.h"
#include "bench/registry.h"
#include "core/units.h"

namespace gpuprobe::bench {
namespace {

constexpr int kSteps = 1 << 16;       // dependent loads per sample
constexpr unsigned kLineWords = 32;   // one element per 128-byte line: no spatial reuse

__global__ void ChaseKernel(const unsigned int* __restrict__ next, int steps, unsigned int* out) {
  unsigned int i = 0;
  for (int s = 0; s < steps; ++s) i = next[i];
  *out = i;
}

class ChaseInstance : public BenchmarkInstance {
 public:
  ChaseInstance(CudaContext& ctx, std::uint64_t bytes) : ctx_(ctx), bytes_(bytes) {}
  core::Status Prepare() {
    std::uint64_t words = bytes_ / 4, lines = std::max<std::uint64_t>(2, words / kLineWords);
    // Sattolo's algorithm: one random cycle through every line.
    std::vector<unsigned int> order(lines);
    std::iota(order.begin(), order.end(), 0u);
    std::mt19937_64 rng(7);
    for (std::uint64_t i = lines - 1; i > 0; --i) std::swap(order[i], order[std::uniform_int_distribution<std::uint64_t>(0, i - 1)(rng)]);
    host_.assign(lines * kLineWords, 0);
    for (std::uint64_t l = 0; l < lines; ++l) host_[order[l] * kLineWords] = order[(l + 1) % lines] * kLineWords;
    cudaError_t e;
    if ((e = next_.Allocate(host_.size())) != cudaSuccess || (e = out_.Allocate(1)) != cudaSuccess) return CudaFailed("cudaMalloc", e);
    if ((e = cudaMemcpy(next_.get(), host_.data(), host_.size() * 4, cudaMemcpyHostToDevice)) != cudaSuccess) return CudaFailed("cudaMemcpy", e);
    return core::Status::Ok();
  }
  core::Result<double> RunOnce() override {
    auto t = ctx_.TimeQueued(1, [this](cudaStream_t s) {
      ChaseKernel<<<1, 1, 0, s>>>(next_.get(), kSteps, out_.get());
      return cudaGetLastError();
    });
    return t;
  }
  Verification Verify() override {
    unsigned int got = 0;
    cudaError_t e = cudaMemcpy(&got, out_.get(), sizeof got, cudaMemcpyDeviceToHost);
    unsigned int i = 0;
    for (int s = 0; s < kSteps; ++s) i = host_[i];
    Verification v;
    v.checksum = i;
    v.verified = e == cudaSuccess && got == i;
    v.detail = v.verified ? fmt::format("{} dependent loads ended where the host's replay did", kSteps) : "the chase ended elsewhere";
    return v;
  }
  bool CorruptForTest() override {
    unsigned int wrong = 0xFFFFFFFFu;
    return cudaMemcpy(out_.get(), &wrong, sizeof wrong, cudaMemcpyHostToDevice) == cudaSuccess;
  }

 private:
  CudaContext& ctx_;
  std::uint64_t bytes_;
  std::vector<unsigned int> host_;
  DeviceArray<unsigned int> next_, out_;
};

class GpuChaseBenchmark : public Benchmark {
 public:
  GpuChaseBenchmark() {
    info_ = MakeBenchmarkInfo("latency", "chase", "Pointer chase", "one thread, dependent loads through L1, L2 and HBM (s per load)",
                              "a load that misses the caches waits hundreds of cycles; GPUs hide it with threads, not caches",
                              Metric::kLatency, {"cuda"});
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext& context, const model::CpuSpec&, bool, std::uint64_t size_override) const override {
    const auto& ctx = FactsOf(context);
    if (size_override > 0) return {BenchCase(core::FormatBytesBinary(static_cast<double>(size_override)), size_override, 1, 0, "")};
    std::uint64_t l2 = std::max<std::uint64_t>(ctx.Figures().l2_bytes, 1 << 20);
    std::vector<std::pair<const char*, std::uint64_t>> sizes = {
        {"L1", 16ull << 10}, {"L2", l2 / 4}, {"HBM", std::min<std::uint64_t>(256ull << 20, ctx.FreeBytes() / 4)}};
    std::vector<BenchCase> cases;
    for (auto [name, bytes] : sizes) {
      cases.push_back(BenchCase(fmt::format("{} ({})", core::FormatBytesBinary(static_cast<double>(bytes)), name), bytes, 1, 0, ""));
    }
    return cases;
  }
  Work WorkFor(const BenchCase&) const override {
    Work w;
    w.items = kSteps;
    return w;
  }
  Prediction Predict(const PredictionContext&, const BenchCase&) const override {
    Prediction p;
    p.basis = "no spec figure; for scale, an H100 PCIe measures ~20 ns in L1, ~150 ns in L2, ~375 ns in DRAM (gpu-benches)";
    return p;
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& context, const BenchCase& c) const override {
    auto instance = std::make_unique<ChaseInstance>(static_cast<CudaContext&>(context), c.size);
    GPUPROBE_RETURN_IF_ERROR(instance->Prepare());
    return std::unique_ptr<BenchmarkInstance>(std::move(instance));
  }

 private:
  BenchmarkInfo info_;
};

}  // namespace

void RegisterCudaLatencyBenchmarks(BenchmarkRegistry* registry) { registry->Add(std::make_unique<GpuChaseBenchmark>()); }

}  // namespace gpuprobe::bench
