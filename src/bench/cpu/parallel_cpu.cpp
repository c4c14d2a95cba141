// Amdahl's law measured: a job with a chosen serial fraction run on 1..N threads, the
// measured speed-up beside 1 / ((1 - P) + P / N).
#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "bench/cpu/cpu_context.h"
#include "bench/cpu/openmp_anchor.h"
#include "bench/registry.h"

namespace gpuprobe::bench {
namespace {

constexpr double kParallelFraction = 0.9;
constexpr std::uint64_t kUnits = 4096;         // work units per job
constexpr int kStepsPerUnit = 4000;            // dependent FMAs per unit

// One unit: a dependent chain the compiler cannot shorten; returns its final value.
double Unit(std::uint64_t u) {
  double x = 1.0 + static_cast<double>(u % 97) * 1e-3;
  for (int i = 0; i < kStepsPerUnit; ++i) x = std::fma(x, 0.9999999, 1e-7);
  return x;
}

class ParallelInstance : public BenchmarkInstance {
 public:
  ParallelInstance(CpuContext& ctx, int threads) : ctx_(ctx), threads_(threads) {}
  core::Result<double> RunOnce() override {
    std::uint64_t serial = static_cast<std::uint64_t>(std::llround((1 - kParallelFraction) * kUnits));
    std::vector<double> partial(static_cast<size_t>(threads_), 0.0);
    auto start = std::chrono::steady_clock::now();
    double sum = 0;
    for (std::uint64_t u = 0; u < serial; ++u) sum += Unit(u);  // the serial part: one thread
    ctx_.pool().Run(threads_, [&](int w) {
      double s = 0;
      for (std::uint64_t u = serial + static_cast<std::uint64_t>(w); u < kUnits; u += static_cast<std::uint64_t>(threads_)) s += Unit(u);
      partial[static_cast<size_t>(w)] = s;
    });
    for (double p : partial) sum += p;
    auto end = std::chrono::steady_clock::now();
    last_ = sum;
    return std::chrono::duration<double>(end - start).count();
  }
  bool CorruptForTest() override {
    last_ += 1.0;
    return true;
  }
  Verification Verify() override {
    double expected = 0;
    for (std::uint64_t u = 0; u < kUnits; ++u) expected += Unit(u);
    Verification v;
    v.checksum = expected;
    v.verified = std::fabs(last_ - expected) <= 1e-9 * std::fabs(expected);
    v.detail = v.verified ? fmt::format("{} units, each once", kUnits) : "units lost or repeated";
    return v;
  }

 private:
  CpuContext& ctx_;
  int threads_;
  double last_ = 0;
};

class ParallelBenchmark : public Benchmark {
 public:
  ParallelBenchmark() {
    info_ = MakeBenchmarkInfo("parallel",
                              "amdahl",
                              "Amdahl",
                              "a job that is 90% parallel on 1..N threads: measured speed-up vs 1 / ((1 - P) + P / N)",
                              "the serial part caps the speed-up, however many cores (or GPU threads) you add",
                              Metric::kOps);
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext& ctx, const model::CpuSpec&, bool, std::uint64_t) const override {
    std::vector<BenchCase> cases;
    for (int n = 1; n <= ctx.Threads(); n = n < 4 ? n + 1 : n * 2) {
      cases.push_back({fmt::format("{} thread{}", n, n > 1 ? "s" : ""), kUnits, n, kParallelFraction, ""});
    }
    if (cases.back().threads != ctx.Threads()) {
      cases.push_back({fmt::format("{} threads", ctx.Threads()), kUnits, ctx.Threads(), kParallelFraction, ""});
    }
    return cases;
  }
  Work WorkFor(const BenchCase& c) const override {
    Work w;
    w.ops = static_cast<double>(c.size);  // work units per second
    w.flops = static_cast<double>(c.size) * kStepsPerUnit * 2;
    return w;
  }
  Prediction Predict(const PredictionContext& pc, const BenchCase& c) const override {
    Prediction p;
    const EarlierResult* one = pc.Find("parallel.amdahl", "cpu", "1 thread");
    double speedup = model::AmdahlSpeedup(kParallelFraction, std::min(c.threads, pc.cpu.physical_cores));
    if (one != nullptr) {
      p.value = one->value * speedup;
      p.basis = fmt::format("1-thread rate x Amdahl 1 / (0.1 + 0.9 / {}) = x{:.2f}", c.threads, speedup);
      p.basis_text = {"bench.basis.amdahl", {{"threads", std::to_string(c.threads)}, {"speedup", fmt::format("{:.2f}", speedup)}}};
    } else if (c.threads == 1) {
      p.basis = "the baseline: other thread counts are predicted from it";
      p.basis_text = {"bench.basis.amdahl_baseline", {}};
    }
    return p;
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& ctx, const BenchCase& c) const override {
    return std::unique_ptr<BenchmarkInstance>(new ParallelInstance(static_cast<CpuContext&>(ctx), c.threads));
  }

 private:
  BenchmarkInfo info_;
};

// The CPU's "launch round trip": hand an empty task to every worker and wait for all of them,
// the fixed cost a parallel loop pays before any work is done (the GPU's counterpart is the
// kernel launch round trip). Regions are batched so one sample is well above clock jitter.
constexpr int kRegionsPerSample = 200;

// Each worker counts the regions it ran, one counter per 64-byte line (no false sharing):
// a region a worker missed or ran twice fails verification.
constexpr size_t kCounterStride = 16;

class ForkJoinInstance : public BenchmarkInstance {
 public:
  ForkJoinInstance(CpuContext& ctx, int threads, bool openmp)
      : ctx_(ctx), threads_(threads), openmp_(openmp), counts_(static_cast<size_t>(threads) * kCounterStride, 0) {}
  core::Result<double> RunOnce() override {
    if (openmp_) {
      auto seconds = TimeOpenMpRegions(threads_, kRegionsPerSample, ctx_.pool().cpu_ids(), &counts_, kCounterStride);
      if (seconds.ok()) runs_ += kRegionsPerSample;
      return seconds;
    }
    auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < kRegionsPerSample; ++r) {
      ctx_.pool().Run(threads_, [&](int w) { ++counts_[static_cast<size_t>(w) * kCounterStride]; });
    }
    auto end = std::chrono::steady_clock::now();
    runs_ += kRegionsPerSample;
    return std::chrono::duration<double>(end - start).count();
  }
  bool CorruptForTest() override {
    --counts_[0];
    return true;
  }
  Verification Verify() override {
    Verification v;
    v.verified = true;
    for (int w = 0; w < threads_; ++w) {
      if (counts_[static_cast<size_t>(w) * kCounterStride] != runs_) v.verified = false;
    }
    v.checksum = static_cast<double>(runs_);
    v.detail = v.verified ? fmt::format("every worker ran all {} regions", runs_) : "a worker missed or repeated a region";
    return v;
  }
  std::string Note() const override {
    return openmp_ ? "OpenMP runtime (the anchor)" : fmt::format("gpuprobe's pool: spins {:.0f} us, then parks", ThreadPool::kSpinSeconds * 1e6);
  }

 private:
  CpuContext& ctx_;
  int threads_;
  bool openmp_;
  std::vector<std::uint64_t> counts_;
  std::uint64_t runs_ = 0;
};

// Two cases in one run: an OpenMP parallel region first (the anchor users' code meets), then
// gpuprobe's own pool, predicted by the anchor: efficiency = OpenMP time / pool time.
class ForkJoinBenchmark : public Benchmark {
 public:
  ForkJoinBenchmark() {
    info_ = MakeBenchmarkInfo("parallel", "fork_join", "Fork-join round trip",
                              "start an empty task on every worker thread and wait for all (seconds per round trip); "
                              "gpuprobe's pool against an OpenMP region",
                              "starting parallel work has a fixed cost (the CPU's launch round trip); small jobs "
                              "never pay it back",
                              Metric::kLatency);
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext& ctx, const model::CpuSpec&, bool, std::uint64_t) const override {
    return {{fmt::format("{} threads, OpenMP", ctx.Threads()), kRegionsPerSample, ctx.Threads(), 0, "openmp"},
            {fmt::format("{} threads", ctx.Threads()), kRegionsPerSample, ctx.Threads(), 0, ""}};
  }
  Availability Check(const BackendContext&, const BenchCase& c) const override {
    if (c.variant == "openmp" && !OpenMpAvailable()) {
      return Availability::NoKeyed("this gpuprobe was built without OpenMP", "bench.skip.no_openmp");
    }
    return Availability::Yes();
  }
  Work WorkFor(const BenchCase& c) const override {
    Work w;
    w.items = static_cast<double>(c.size);
    return w;
  }
  Prediction Predict(const PredictionContext& pc, const BenchCase& c) const override {
    Prediction p;
    if (c.variant == "openmp") {
      p.basis = "the anchor: an empty OpenMP parallel region of the same threads; no spec figure predicts a wake-up";
      p.basis_text = {"bench.basis.openmp_anchor", {}};
      return p;
    }
    const EarlierResult* anchor = pc.Find(info_.id, "cpu", c.label + ", OpenMP");
    if (anchor != nullptr && anchor->value > 0) {
      p.value = anchor->value;
      p.anchor = true;
      p.basis = "as fast as the OpenMP region measured just before (efficiency = OpenMP time / pool time)";
      p.basis_text = {"bench.basis.as_fast_as_openmp", {}};
    } else {
      p.basis = "no OpenMP anchor in this run: compare with a GPU launch round trip";
      p.basis_text = {"bench.basis.no_openmp_anchor", {}};
    }
    return p;
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& ctx, const BenchCase& c) const override {
    return std::unique_ptr<BenchmarkInstance>(new ForkJoinInstance(static_cast<CpuContext&>(ctx), c.threads, c.variant == "openmp"));
  }

 private:
  BenchmarkInfo info_;
};

}  // namespace

void RegisterCpuParallelBenchmarks(BenchmarkRegistry* registry) {
  registry->Add(std::make_unique<ParallelBenchmark>());
  registry->Add(std::make_unique<ForkJoinBenchmark>());
}

}  // namespace gpuprobe::bench
