// Sustained GEMM load (burn.gemm): GEMMs back to back for the requested time, every result
// checked, the device sampled once a second, and a health verdict.
#include <algorithm>
#include <chrono>
#include <vector>

#include <fmt/format.h>

#include "bench/cuda/matmul_instance.h"
#include "bench/registry.h"

namespace gpuprobe::bench {
namespace {

// Sustained load: GEMMs back to back for the requested time, every result's checksum compared
// with the exact one (a wrong result on a healthy GPU never happens: any is a finding), the
// device sampled once a second. The whole burn runs in the first (warm-up) iteration; the
// timed samples after it measure the GEMM rate of the hot GPU.
class BurnInstance : public BenchmarkInstance {
 public:
  BurnInstance(CudaContext& ctx, Rung rung, int n, double seconds) : ctx_(ctx), gemm_(ctx, rung, n), n_(n), seconds_(seconds) {}
  core::Status Prepare() { return gemm_.Prepare(); }

  core::Result<double> RunOnce() override {
    if (burned_) {
      auto t = ctx_.TimeQueued(1, [this](cudaStream_t s) { return gemm_.Enqueue(s); });
      return t;
    }
    burned_ = true;
    auto clock = [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); };
    double start = clock(), next_sample = start;
    std::uint64_t gemms = 0;
    while (clock() - start < seconds_) {
      cudaError_t e = gemm_.Enqueue(ctx_.stream());
      if (e == cudaSuccess) e = cudaStreamSynchronize(ctx_.stream());
      if (e != cudaSuccess) return CudaFailed("a GEMM under sustained load", e);
      ++gemms;
      // Every result's checksum on the device (cheap next to the GEMM), exact or an error.
      auto total = gemm_.DeviceTotal();
      if (!total.ok()) return total.status();
      if (*total != gemm_.ExpectedTotal()) ++errors_;
      if (clock() >= next_sample) {
        samples_.push_back(ctx_.Sample());
        next_sample += 1.0;
      }
    }
    double elapsed = clock() - start;
    gemms_ = gemms;
    return gemms > 0 ? elapsed / static_cast<double>(gemms) : elapsed;
  }

  Verification Verify() override {
    Verification final_check = gemm_.Verify();
    Verification v;
    v.checksum = final_check.checksum;
    v.verified = final_check.verified && errors_ == 0 && gemms_ > 0;
    v.detail = v.verified ? fmt::format("{} GEMMs under load, every result exact", gemms_)
                          : fmt::format("{} of {} GEMMs gave wrong results under load: a silent-error GPU, drain it", errors_, gemms_);
    return v;
  }
  bool CorruptForTest() override {
    errors_ += 1;
    return true;
  }

  std::string Note() const override {
    double min_clock = 0, max_clock = 0;
    int throttled = 0;
    for (const auto& s : samples_) {
      if (s.clock_hz > 0) {
        min_clock = min_clock == 0 ? s.clock_hz : std::min(min_clock, s.clock_hz);
        max_clock = std::max(max_clock, s.clock_hz);
      }
      throttled += s.throttled ? 1 : 0;
    }
    std::string verdict = errors_ > 0                                   ? "UNHEALTHY: wrong results"
                          : !samples_.empty() && throttled * 2 >= static_cast<int>(samples_.size()) ? "throttling most of the time: check power and cooling"
                          : max_clock > 0 && min_clock < 0.85 * max_clock ? "clocks sag under load"
                                                                          : "healthy";
    std::string trace = samples_.empty() ? "no NVML samples" : fmt::format("first {}; last {}", samples_.front().note, samples_.back().note);
    return fmt::format("{:.0f} s burn, {} GEMMs n={}, {} NVML samples, {} throttled; {}; verdict: {}", seconds_, gemms_, n_,
                       samples_.size(), throttled, trace, verdict);
  }

 private:
  CudaContext& ctx_;
  MatmulInstance gemm_;
  int n_;
  double seconds_;
  bool burned_ = false;
  std::uint64_t gemms_ = 0, errors_ = 0;
  std::vector<DeviceSample> samples_;
};

class BurnBenchmark : public Benchmark {
 public:
  BurnBenchmark() {
    info_ = MakeBenchmarkInfo("burn", "gemm", "Sustained GEMM load",
                              "GEMMs back to back for --seconds (default 10 s, 30 s with --full), every result checked (FLOP/s)",
                              "a healthy GPU holds its clocks under load and never returns a wrong result", Metric::kFlops, {"cuda"});
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext& context, const model::CpuSpec&, bool full, std::uint64_t size_override) const override {
    double seconds = context.requested_seconds() > 0 ? context.requested_seconds() : full ? 30 : 10;
    std::uint64_t n = size_override > 0 ? size_override : 4096;
    return {BenchCase(fmt::format("{:.0f} s, n={}", seconds, n), n, 0, seconds, "")};
  }
  Availability Check(const BackendContext& context, const BenchCase& c) const override {
    if (c.size % 64 != 0) return Availability::No("the burn's GEMM needs n divisible by 64");
    if (3 * 4 * c.size * c.size * 2 > FactsOf(context).FreeBytes()) {
      return Availability::No("the burn's matrices do not fit in the GPU's free memory");
    }
    return Availability::Yes();
  }
  Work WorkFor(const BenchCase& c) const override { return gpu::MatmulWork(c.size); }
  Prediction Predict(const PredictionContext&, const BenchCase&) const override {
    Prediction p;
    p.basis = "compare with the same GEMM's rate in the matmul suite: a drop means the GPU cannot hold its clocks";
    return p;
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& context, const BenchCase& c) const override {
    auto& ctx = static_cast<CudaContext&>(context);
    // Tensor cores draw the most power; without cuBLAS or on Turing, the register-blocked kernel.
    Rung rung = LoadCublas().ok() && ctx.Figures().cc_major >= 8 ? Rung::kCublasBf16 : Rung::kBlocked;
    auto instance = std::make_unique<BurnInstance>(ctx, rung, static_cast<int>(c.size), c.param);
    GPUPROBE_RETURN_IF_ERROR(instance->Prepare());
    return std::unique_ptr<BenchmarkInstance>(std::move(instance));
  }

 private:
  BenchmarkInfo info_;
};

}  // namespace

void RegisterCudaBurnBenchmarks(BenchmarkRegistry* registry) { registry->Add(std::make_unique<BurnBenchmark>()); }

}  // namespace gpuprobe::bench
