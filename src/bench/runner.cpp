#include "bench/runner.h"

#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "bench/statistics.h"

namespace gpuprobe::bench {
namespace {

double SteadyNow() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

RunnerOptions QuickRunnerOptions() {
  RunnerOptions o;
  o.min_samples = 5;
  o.min_seconds = 0.08;
  o.max_seconds = 0.4;
  o.target_spread = 0.03;
  return o;
}

RunnerOptions FullRunnerOptions() {
  RunnerOptions o;
  o.min_samples = 10;
  o.min_seconds = 0.5;
  o.max_seconds = 3.0;
  o.target_spread = 0.01;
  return o;
}

core::Result<std::vector<double>> CollectSamples(BenchmarkInstance& instance, const RunnerOptions& options) {
  auto now = options.now ? options.now : SteadyNow;
  for (int i = 0; i < options.warmup_runs; ++i) {
    auto warm = instance.RunOnce();
    if (!warm.ok()) return warm.status();
  }
  std::vector<double> samples;
  double measured = 0;
  double wall_start = now();
  // The wall cap allows for per-iteration overhead outside the timed region.
  double wall_cap = 3 * options.max_seconds + 1;
  while (static_cast<int>(samples.size()) < options.max_samples) {
    auto seconds = instance.RunOnce();
    if (!seconds.ok()) return seconds.status();
    samples.push_back(*seconds);
    measured += *seconds;
    bool enough = static_cast<int>(samples.size()) >= options.min_samples && measured >= options.min_seconds;
    if (enough) {
      SampleStats stats = Summarize(samples);
      if (stats.relative_spread <= options.target_spread) break;
      if (measured >= options.max_seconds) break;
    }
    if (now() - wall_start > wall_cap && static_cast<int>(samples.size()) >= 3) break;
  }
  return samples;
}

void RunBenchmark(const Benchmark& benchmark, BackendContext& context, const model::CpuSpec& cpu,
                  const std::vector<BenchCase>& cases, const RunnerOptions& options,
                  std::vector<BenchResult>* results, std::vector<EarlierResult>* earlier,
                  const std::function<void(const CaseProgress&)>& progress, int* case_counter, int case_total) {
  const BenchmarkInfo& info = benchmark.Info();
  for (const auto& c : cases) {
    if (progress) {
      int index = case_counter ? ++*case_counter : 0;
      progress({info.id, context.BackendName(), c.label, index, case_total});
    }
    BenchResult r;
    r.id = info.id;
    r.group = info.group;
    r.title = info.title;
    r.claim = info.claim;
    r.backend = context.BackendName();
    r.device = context.Device().name;
    r.case_label = c.label;
    r.variant = c.variant;
    r.size = c.size;
    r.threads = c.threads > 0 ? c.threads : context.Threads();
    r.param = c.param;
    r.metric = info.metric;
    r.work = benchmark.WorkFor(c);
    Availability available = benchmark.Check(context, c);
    if (!available.available) {
      r.skipped = true;
      r.skip_reason = available.reason;
      r.skip_reason_text = available.reason_text;
      results->push_back(r);
      continue;
    }
    PredictionContext prediction_context{cpu, *earlier, &context};
    Prediction prediction = benchmark.Predict(prediction_context, c);
    r.predicted = prediction.value;
    r.prediction_basis = prediction.basis;
    r.prediction_basis_text = prediction.basis_text;
    r.prediction_is_anchor = prediction.anchor;

    auto instance = benchmark.Prepare(context, c);
    if (!instance.ok()) {
      r.error = instance.status().message();
      results->push_back(r);
      continue;
    }
    auto samples = CollectSamples(**instance, options);
    if (!samples.ok()) {
      r.error = samples.status().message();
      results->push_back(r);
      continue;
    }
    r.stats = Summarize(*samples);
    Verification verification = (*instance)->Verify();
    r.verified = verification.verified;
    r.verification_detail = verification.detail;
    r.checksum = verification.checksum;
    r.note = (*instance)->Note();
    r.clock_hz = (*instance)->MeasuredClockHz();
    DeviceSample sample = context.Sample();
    if (!sample.note.empty()) r.note += (r.note.empty() ? "" : "; ") + sample.note;
    r.throttled = sample.throttled;
    if (r.clock_hz > 0 && context.BackendName() == "cpu") {
      // The CPU's peak is one figure for the whole run (model::CpuPeakOf at the clock measured
      // once, up front), so every verb states the same one; the clock this case ran at is
      // reported beside it, not used for a second peak.
      r.note += fmt::format("{}clock during the case {:.0f} MHz", r.note.empty() ? "" : "; ", r.clock_hz / 1e6);
    } else if (r.clock_hz > 0) {
      // A GPU case: predict again at the SM clock it actually ran at (throttling included).
      model::CpuSpec at_clock = cpu;
      at_clock.measured_clock_hz = r.clock_hz;
      Prediction again = benchmark.Predict(PredictionContext{at_clock, *earlier, &context}, c);
      if (again.value) {
        r.predicted = again.value;
        r.prediction_basis = again.basis;
        r.prediction_basis_text = again.basis_text;
      }
    }
    r.value = MetricValue(r.metric, r.work, r.stats.median);
    r.efficiency = Efficiency(r.metric, r.value, r.predicted);
    earlier->push_back({r.id, r.case_label, r.backend, r.value, r.param, r.threads});
    results->push_back(std::move(r));
  }
}

}  // namespace gpuprobe::bench
