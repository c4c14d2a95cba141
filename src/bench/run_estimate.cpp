#include "bench/run_estimate.h"

#include <algorithm>
#include <cmath>

#include "bench/gpu_kernel_math.h"
#include "model/spec_derivation.h"

namespace gpuprobe::bench {

PlannedGpu::PlannedGpu(const model::GpuSpec& spec) : spec_(spec) {
  figures_ = model::DeviceFiguresFromSpec(spec);
  free_bytes_ = static_cast<std::uint64_t>(model::DriverUsableMemory(spec).bytes);
  device_.backend = "cuda";
  device_.name = spec.name;
  device_.memory_total_bytes = free_bytes_;
  device_.memory_free_bytes = free_bytes_;
}

double EstimateSamplingSeconds(const RunnerOptions& options, std::optional<double> iteration_seconds, bool settles) {
  // The sample's returned time (what the runner adds to "measured") and its wall time.
  double t = 0, wall = 0;
  if (iteration_seconds && *iteration_seconds > 0) {
    t = *iteration_seconds;
    wall = gpu::BatchRepetitions(t) * t + kSampleOverheadSeconds;
  } else {
    t = std::max(options.max_seconds, options.min_seconds) / std::max(1, options.min_samples);
    wall = t + kSampleOverheadSeconds;
  }
  // The first run also calibrates the batch: one untimed and one timed iteration more.
  double warmup = options.warmup_runs * (wall + 2 * t);
  double needed_time = settles ? options.min_seconds : std::max(options.min_seconds, options.max_seconds);
  double by_time = std::ceil(needed_time / t - 1e-9);
  double samples = std::max<double>(options.min_samples, by_time);
  double wall_cap = 3 * options.max_seconds + 1;
  double by_wall = std::max(3.0, std::floor(wall_cap / wall) + 1);
  samples = std::min({samples, by_wall, static_cast<double>(options.max_samples)});
  return warmup + samples * wall;
}

std::vector<PlannedCase> PlanCases(const std::vector<const Benchmark*>& selection, BackendContext& context,
                                   const BenchSettings& settings, bool settles) {
  std::vector<PlannedCase> planned;
  model::CpuSpec cpu;
  std::vector<EarlierResult> earlier;
  for (const Benchmark* b : selection) {
    const auto& backends = b->Info().backends;
    if (std::find(backends.begin(), backends.end(), context.BackendName()) == backends.end()) continue;
    for (BenchCase c : b->Cases(context, cpu, settings.full, settings.size_override)) {
      c.backend = context.BackendName();
      PlanEstimate plan = b->Plan(PredictionContext{cpu, earlier, &context}, c);
      PlannedCase p;
      p.id = b->Info().id;
      p.label = c.label;
      p.size = c.size;
      p.modelled = plan.seconds_per_iteration.has_value();
      p.basis = p.modelled ? plan.basis : "no model figure: the runner's floor (minimum samples over the time cap)";
      p.iteration_seconds = plan.seconds_per_iteration;
      p.fixed_seconds = kCaseOverheadSeconds + plan.host_elements * kHostSecondsPerElement + plan.extra_seconds;
      p.seconds = EstimateSamplingSeconds(settings.runner, plan.seconds_per_iteration, settles) + p.fixed_seconds;
      planned.push_back(p);
    }
  }
  return planned;
}

}  // namespace gpuprobe::bench
