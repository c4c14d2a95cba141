// Sustained GEMM load (burn.gemm): GEMMs back to back for the requested time on random inputs
// with full mantissas, every result checked, the device sampled once a second, and a health
// verdict.
#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "bench/burn_schedule.h"
#include "bench/cuda/matmul_instance.h"
#include "bench/registry.h"
#include "model/spec_derivation.h"

namespace gpuprobe::bench {
namespace {

// Sustained load: GEMMs back to back for the requested time on random inputs (every mantissa
// bit switches: integer inputs would under-stress a power-limited GPU), the device sampled
// once a second. The first GEMM's output is checked against the host's reference within the
// format's tolerance and its fingerprint (the sum of its 32-bit words modulo 2^64) kept on the
// device; every later GEMM's fingerprint is compared with it on the device, in the same queue.
// cuBLAS gives bit-identical results run to run on one stream and one GPU (its documented
// reproducibility; atomics are off by default), so any difference is a wrong result, as in
// gpu-burn's cross-result comparison: on a healthy GPU it never happens. The host keeps a few
// batches of ~50 ms queued and never waits between GEMMs (burn_schedule.h); events around
// each batch give the duty cycle. The whole burn runs in the first (warm-up) iteration; the
// timed samples after it measure the GEMM rate of the hot GPU.
class BurnInstance : public BenchmarkInstance {
 public:
  BurnInstance(CudaContext& ctx, Rung rung, int n, double seconds) : ctx_(ctx), gemm_(ctx, rung, n), n_(n), seconds_(seconds) {}
  ~BurnInstance() override {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }
  core::Status Prepare() {
    GPUPROBE_RETURN_IF_ERROR(gemm_.Prepare());
    cudaError_t e = errors_device_.Allocate(1);
    if (e == cudaSuccess) e = fingerprints_.Allocate(2);  // [0] the first result's, [1] the latest
    if (e == cudaSuccess) e = cudaMemsetAsync(errors_device_.get(), 0, sizeof(unsigned long long), ctx_.stream());
    if (e == cudaSuccess) e = cudaStreamSynchronize(ctx_.stream());
    if (e != cudaSuccess) return CudaFailed("the burn's error counter", e);
    return core::Status::Ok();
  }

  core::Result<double> RunOnce() override {
    auto enqueue = [this](cudaStream_t s) { return gemm_.Enqueue(s); };
    if (burned_) return ctx_.TimeQueued(1, enqueue);
    burned_ = true;
    // One GEMM on its own (also its first run, outside the clock) sizes the batches; its
    // output, checked against the host's reference, gives the reference fingerprint.
    auto one = ctx_.TimeQueued(1, enqueue);
    if (!one.ok()) return one.status();
    gemms_per_batch_ = gpu::BurnGemmsPerBatch(*one);
    first_check_ = gemm_.VerifyRandom();
    cudaError_t first = gemm_.EnqueueFingerprint(ctx_.stream(), fingerprints_.get());
    if (first == cudaSuccess) first = cudaStreamSynchronize(ctx_.stream());
    if (first != cudaSuccess) return CudaFailed("the first result's fingerprint", first);
    auto clock = [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); };
    const double start = clock();
    double next_sample = start;
    std::vector<std::pair<cudaEvent_t, cudaEvent_t>> batches;
    while (clock() - start < seconds_) {
      // At most kBurnBatchesInFlight batches ahead: wait for the oldest one's end.
      if (batches.size() >= static_cast<size_t>(gpu::kBurnBatchesInFlight)) {
        cudaError_t e = cudaEventSynchronize(batches[batches.size() - gpu::kBurnBatchesInFlight].second);
        if (e != cudaSuccess) return CudaFailed("a GEMM under sustained load", e);
      }
      auto begin = NewEvent(), end = NewEvent();
      if (!begin.ok()) return begin.status();
      if (!end.ok()) return end.status();
      cudaError_t e = cudaEventRecord(*begin, ctx_.stream());
      for (int g = 0; g < gemms_per_batch_ && e == cudaSuccess; ++g) {
        e = gemm_.Enqueue(ctx_.stream());
        if (e == cudaSuccess) {
          e = gemm_.EnqueueFingerprintCheck(ctx_.stream(), fingerprints_.get(), fingerprints_.get() + 1, errors_device_.get());
        }
      }
      if (e == cudaSuccess) e = cudaEventRecord(*end, ctx_.stream());
      if (e != cudaSuccess) return CudaFailed("queueing GEMMs under sustained load", e);
      batches.emplace_back(*begin, *end);
      gemms_ += static_cast<std::uint64_t>(gemms_per_batch_);
      if (clock() >= next_sample) {
        samples_.push_back(ctx_.Sample());  // while the queued batches keep the GPU busy
        next_sample += 1.0;
      }
    }
    cudaError_t e = cudaStreamSynchronize(ctx_.stream());
    if (e == cudaSuccess) e = cudaMemcpy(&errors_, errors_device_.get(), sizeof errors_, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) return CudaFailed("a GEMM under sustained load", e);
    double elapsed = clock() - start;
    std::vector<gpu::BusyInterval> busy;
    for (const auto& [begin, end] : batches) {
      float from = 0, to = 0;
      if (cudaEventElapsedTime(&from, batches.front().first, begin) != cudaSuccess ||
          cudaEventElapsedTime(&to, batches.front().first, end) != cudaSuccess) {
        busy.clear();
        break;
      }
      busy.push_back({from * 1e-3, to * 1e-3});
    }
    duty_cycle_ = gpu::DutyCycle(busy);
    return gemms_ > 0 ? elapsed / static_cast<double>(gemms_) : elapsed;
  }

  Verification Verify() override {
    Verification final_check = gemm_.Verify();  // the last result, then the exact-integer GEMM
    Verification v;
    v.checksum = final_check.checksum;
    v.verified = first_check_.verified && final_check.verified && errors_ == 0 && gemms_ > 0;
    if (v.verified) {
      v.detail = fmt::format("{} GEMMs under load on random inputs, every result bit-identical to the first (fingerprints compared "
                             "on the device); the first {}; after the burn, {}",
                             gemms_, first_check_.detail, final_check.detail);
    } else if (errors_ > 0) {
      v.detail = fmt::format("{} of {} GEMMs gave a different result from the same inputs under load: a silent-error GPU, drain it",
                             errors_, gemms_);
    } else {
      v.detail = !first_check_.verified ? "the first GEMM is wrong: " + first_check_.detail : "after the burn: " + final_check.detail;
    }
    return v;
  }
  bool CorruptForTest() override {
    errors_ += 1;
    return true;
  }

  std::string Note() const override {
    std::vector<gpu::BurnSample> samples;
    for (const auto& s : samples_) samples.push_back({s.clock_hz, s.throttled, s.power_capped, s.power_w});
    gpu::BurnSummary summary = gpu::SummarizeBurn(samples);
    std::string verdict = gpu::BurnVerdict(errors_, summary, duty_cycle_);
    std::string trace = samples_.empty() ? "no NVML samples" : fmt::format("first {}; last {}", samples_.front().note, samples_.back().note);
    std::string power = summary.mean_power_w > 0 ? fmt::format("mean {:.0f} W, ", summary.mean_power_w) : "";
    return fmt::format("{:.0f} s burn, {} GEMMs n={} in batches of {}, GPU busy {:.1f}% of the time (events around each batch), "
                       "{} NVML samples, {} thermally throttled, {}at power limit in {}, sustained SM clock {:.0f} of {:.0f} MHz peak; {}; verdict: {}",
                       seconds_, gemms_, n_, gemms_per_batch_, 100 * duty_cycle_, summary.samples, summary.throttled, power,
                       summary.power_capped, summary.sustained_clock_hz / 1e6, summary.peak_clock_hz / 1e6, trace, verdict);
  }

 private:
  CudaContext& ctx_;
  MatmulInstance gemm_;
  int n_;
  double seconds_;
  core::Result<cudaEvent_t> NewEvent() {
    cudaEvent_t event = nullptr;
    cudaError_t e = cudaEventCreate(&event);
    if (e != cudaSuccess) return CudaFailed("cudaEventCreate", e);
    events_.push_back(event);
    return event;
  }

  bool burned_ = false;
  int gemms_per_batch_ = 0;
  double duty_cycle_ = 0;
  std::uint64_t gemms_ = 0;
  unsigned long long errors_ = 0;
  Verification first_check_;
  DeviceArray<unsigned long long> errors_device_;  // counted by the checks, read once at the end
  DeviceArray<unsigned long long> fingerprints_;
  std::vector<cudaEvent_t> events_;
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
  PlanEstimate Plan(const PredictionContext& pc, const BenchCase& c) const override {
    PlanEstimate plan;
    const auto* facts = GpuFactsOf(pc.context);
    const model::GpuSpec* spec = facts != nullptr ? facts->Spec() : nullptr;
    if (auto peak = spec != nullptr ? model::PeakFlops(*spec, "bf16") : std::nullopt) {
      plan.seconds_per_iteration = gpu::MatmulWork(c.size).flops / *peak;
      plan.basis = "one bf16 GEMM at the spec's tensor peak";
    }
    plan.extra_seconds = c.param;  // the burn itself, in the first iteration
    // The exact-integer GEMM's sum and first row, and the sampled elements of three checks.
    plan.host_elements = 2.0 * static_cast<double>(c.size) * static_cast<double>(c.size) + 3 * 64 * static_cast<double>(c.size);
    return plan;
  }
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
