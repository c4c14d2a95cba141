// The runner: prepares each case, warms up, repeats until a minimum count and a minimum time
// are reached, stops early once the p10-p90 spread is small (nvbench's adaptive stop) or at
// a time cap, verifies, and turns times into results with predictions and efficiencies.
//
// Thread safety: a Runner is used from one thread.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "bench/benchmark.h"
#include "bench/result.h"
#include "core/status.h"
#include "model/cpu_spec.h"

namespace gpuprobe::bench {

struct RunnerOptions {
  int warmup_runs = 1;          ///< discarded (page faults, clock ramp, caches)
  int min_samples = 5;
  double min_seconds = 0.1;     ///< of measured time
  double max_seconds = 1.0;     ///< cap per case (measured time), then stop with what there is
  int max_samples = 2000;
  double target_spread = 0.02;  ///< stop early when (p90 - p10) / median falls below this
  /// Wall-clock source for the cap on setup-heavy cases; tests inject a fake.
  std::function<double()> now;
};

/// Quick (default) and full presets.
RunnerOptions QuickRunnerOptions();
RunnerOptions FullRunnerOptions();

/// Collects timing samples from `instance` under `options`. An error from RunOnce stops it.
core::Result<std::vector<double>> CollectSamples(BenchmarkInstance& instance, const RunnerOptions& options);

struct CaseProgress {
  std::string id, backend, case_label;
  int index = 0, total = 0;
};

/// Runs `cases` of `benchmark` on `context`, appending results to `results` (which also serve
/// as the earlier results for relative predictions). `progress` is called before each case.
void RunBenchmark(const Benchmark& benchmark, BackendContext& context, const model::CpuSpec& cpu,
                  const std::vector<BenchCase>& cases, const RunnerOptions& options,
                  std::vector<BenchResult>* results, std::vector<EarlierResult>* earlier,
                  const std::function<void(const CaseProgress&)>& progress = {}, int* case_counter = nullptr,
                  int case_total = 0);

}  // namespace gpuprobe::bench
