// GPU memory latency: one thread follows a random cycle through a buffer (each load's address
// is the previous load's value), with one cycle per level: inside L1, far beyond L1 inside
// L2, and far beyond L2 (HBM). Each sample starts where the previous one ended, so a line is
// loaded again only after the whole cycle (chase_cycle.h): the reuse footprint is the cycle.
// A GPU hides this latency with thousands of threads; one thread cannot.
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "bench/chase_cycle.h"
#include "bench/cuda/cuda_context.h"
#include "bench/registry.h"
#include "core/units.h"

namespace gpuprobe::bench {
namespace {

// Continues the chase from *position for `steps` dependent loads and leaves it there.
__global__ void ChaseKernel(const unsigned int* __restrict__ next, unsigned int steps, unsigned int* position) {
  unsigned int i = *position;
  for (unsigned int s = 0; s < steps; ++s) i = next[i];
  *position = i;
}

class ChaseInstance : public BenchmarkInstance {
 public:
  ChaseInstance(CudaContext& ctx, std::string level, std::uint64_t bytes) : ctx_(ctx), level_(std::move(level)), bytes_(bytes) {}

  core::Status Prepare() {
    cycle_ = gpu::BuildChaseCycle(bytes_ / gpu::kChaseLineBytes, 7);
    cudaError_t e;
    if ((e = next_.Allocate(cycle_.next.size())) != cudaSuccess || (e = position_.Allocate(1)) != cudaSuccess) {
      return CudaFailed("cudaMalloc", e);
    }
    if ((e = cudaMemcpyAsync(next_.get(), cycle_.next.data(), cycle_.next.size() * 4, cudaMemcpyHostToDevice, ctx_.stream())) != cudaSuccess ||
        (e = cudaMemsetAsync(position_.get(), 0, sizeof(unsigned int), ctx_.stream())) != cudaSuccess) {
      return CudaFailed("cudaMemcpy", e);
    }
    // The first launch, outside any timed region, also loads the kernel's module. An L1 or L2
    // case then walks its whole cycle once, so every sample finds it in that level; the HBM
    // case instead pushes the buffer (left in L2 by the upload) out of L2 with writes to twice
    // its size.
    const std::uint64_t l2 = std::max<std::uint64_t>(ctx_.Figures().l2_bytes, 1ull << 20);
    const bool beyond_l2 = level_ == "HBM" || (level_.empty() && bytes_ > 2 * l2);
    std::uint64_t warm_steps = beyond_l2 ? 0 : cycle_.lines();
    if ((e = Walk(static_cast<unsigned int>(warm_steps))) != cudaSuccess) return CudaFailed("the first chase", e);
    if (beyond_l2) {
      DeviceArray<unsigned char> scratch;
      std::uint64_t bytes = 2 * l2;
      if ((e = scratch.Allocate(bytes)) != cudaSuccess) return CudaFailed("cudaMalloc (L2 flush)", e);
      if ((e = cudaMemsetAsync(scratch.get(), 1, bytes, ctx_.stream())) != cudaSuccess) return CudaFailed("cudaMemset (L2 flush)", e);
    }
    if ((e = cudaStreamSynchronize(ctx_.stream())) != cudaSuccess) return CudaFailed("preparing the chase", e);
    return core::Status::Ok();
  }

  core::Result<double> RunOnce() override {
    return ctx_.TimeQueued(1, [this](cudaStream_t) { return Walk(gpu::kChaseStepsPerSample); });
  }

  Verification Verify() override {
    unsigned int got = 0;
    cudaError_t e = cudaMemcpyAsync(&got, position_.get(), sizeof got, cudaMemcpyDeviceToHost, ctx_.stream());
    if (e == cudaSuccess) e = cudaStreamSynchronize(ctx_.stream());
    std::uint32_t expected = gpu::ChaseIndexAfter(cycle_, 0, steps_);
    Verification v;
    v.checksum = expected;
    v.verified = e == cudaSuccess && got == expected;
    v.detail = v.verified ? fmt::format("{} dependent loads ended where the host's walk of the cycle did", steps_)
                          : "the chase ended elsewhere than the host's walk of the cycle";
    return v;
  }

  bool CorruptForTest() override {
    unsigned int wrong = 0xFFFFFFFFu;
    return cudaMemcpy(position_.get(), &wrong, sizeof wrong, cudaMemcpyHostToDevice) == cudaSuccess;
  }

  std::string Note() const override {
    std::uint64_t touched = gpu::ChaseLinesTouched(steps_, cycle_.lines());
    return fmt::format("cycle of {} lines x {} B = {}, each line reloaded only after the whole cycle; {} loads in all touched "
                       "{} distinct lines ({})",
                       cycle_.lines(), gpu::kChaseLineBytes, core::FormatBytesBinary(static_cast<double>(cycle_.bytes())), steps_,
                       touched, core::FormatBytesBinary(static_cast<double>(touched * gpu::kChaseLineBytes)));
  }

 private:
  cudaError_t Walk(unsigned int steps) {
    ChaseKernel<<<1, 1, 0, ctx_.stream()>>>(next_.get(), steps, position_.get());
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) steps_ += steps;
    return e;
  }

  CudaContext& ctx_;
  std::string level_;  // "L1", "L2", "HBM", or empty for a --size case
  std::uint64_t bytes_;
  gpu::ChaseCycle cycle_;
  std::uint64_t steps_ = 0;  // every load since the start, warm-up included: where the chase is
  DeviceArray<unsigned int> next_, position_;
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
    const auto& facts = FactsOf(context);
    std::vector<BenchCase> cases;
    if (size_override > 0) {
      cases.push_back(BenchCase(core::FormatBytesBinary(static_cast<double>(size_override)) + " cycle", size_override, 1, 0, ""));
      return cases;
    }
    for (const auto& level : gpu::ChaseLevels(facts.Figures().l2_bytes, facts.FreeBytes())) {
      cases.push_back(BenchCase(level.Label(), level.bytes, 1, 0, level.level));
    }
    return cases;
  }
  Availability Check(const BackendContext&, const BenchCase& c) const override {
    if (c.size / gpu::kChaseLineBytes >= (1ull << 32) / gpu::kChaseLineWords) {
      return Availability::No("the chase's 32-bit indices reach at most 16 GiB", "give a smaller --size");
    }
    return Availability::Yes();
  }
  Work WorkFor(const BenchCase&) const override {
    Work w;
    w.items = gpu::kChaseStepsPerSample;
    return w;
  }
  PlanEstimate Plan(const PredictionContext&, const BenchCase& c) const override {
    // No spec figure: plan with the latencies gpu-benches measures on an H100 (METHOD.md 5.8).
    double latency = c.variant == "L1" ? 20e-9 : c.variant == "L2" ? 150e-9 : 400e-9;
    double lines = static_cast<double>(c.size / gpu::kChaseLineBytes);
    PlanEstimate plan;
    plan.seconds_per_iteration = latency * gpu::kChaseStepsPerSample;
    plan.extra_seconds = c.variant == "L1" || c.variant == "L2" ? lines * latency : 0;  // the first walk of the cycle
    plan.host_elements = lines * 4;  // the cycle built and uploaded
    plan.basis = fmt::format("~{:.0f} ns per load (gpu-benches on an H100; no spec figure)", latency * 1e9);
    return plan;
  }
  Prediction Predict(const PredictionContext&, const BenchCase&) const override {
    Prediction p;
    p.basis = "no spec figure; for scale, an H100 PCIe measures ~20 ns in L1, ~150 ns in L2, ~375 ns in DRAM (gpu-benches)";
    return p;
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& context, const BenchCase& c) const override {
    // The case carries its level and the cycle's size (Cases chose them): free memory may have
    // moved since, and the label must stay true.
    auto instance = std::make_unique<ChaseInstance>(static_cast<CudaContext&>(context), c.variant, c.size);
    GPUPROBE_RETURN_IF_ERROR(instance->Prepare());
    return std::unique_ptr<BenchmarkInstance>(std::move(instance));
  }

 private:
  BenchmarkInfo info_;
};

}  // namespace

void RegisterCudaLatencyBenchmarks(BenchmarkRegistry* registry) { registry->Add(std::make_unique<GpuChaseBenchmark>()); }

}  // namespace gpuprobe::bench
