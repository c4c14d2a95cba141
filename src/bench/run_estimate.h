// Planning a GPU run without a GPU: a context for a GPU that is not here (its figures from
// the spec database), and the expected duration of each case, from the model's time per
// iteration and the runner's own rules (runner.h: warm-up, minimum samples and time, time
// cap, wall cap). scripts/gpu-check --dry-run prints the plan this gives for an H200.
//
// Thread safety: a PlannedGpu is read-only; the functions are pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/backend.h"
#include "bench/benchmark.h"
#include "bench/gpu_facts.h"
#include "bench/run_plan.h"
#include "model/gpu_spec.h"

namespace gpuprobe::bench {

/// Per timed sample beyond the batch itself: the gate launch, two events, the wait.
inline constexpr double kSampleOverheadSeconds = 30e-6;
/// Per case beyond its samples: allocations, fills, the verification launches, an NVML read.
inline constexpr double kCaseOverheadSeconds = 0.05;
/// The host's fills and checks, per element (a hash and a compare: a few ns on a server core).
inline constexpr double kHostSecondsPerElement = 2e-9;

/// A GPU that is not here, as the CUDA context would see it: the spec's figures (runtime
/// form), free memory as the driver leaves it, the spec entry itself; backend "cuda".
class PlannedGpu : public BackendContext, public GpuFacts {
 public:
  explicit PlannedGpu(const model::GpuSpec& spec);
  std::string BackendName() const override { return "cuda"; }
  const DeviceInfo& Device() const override { return device_; }
  const model::DeviceFigures& Figures() const override { return figures_; }
  std::uint64_t FreeBytes() const override { return free_bytes_; }
  const model::GpuSpec* Spec() const override { return &spec_; }

 private:
  const model::GpuSpec& spec_;
  DeviceInfo device_;
  model::DeviceFigures figures_;
  std::uint64_t free_bytes_ = 0;
};

/// Wall seconds of the runner's warm-up and sampling loop (runner.h's CollectSamples) for
/// iterations of `iteration_seconds`, each timed sample queueing BatchRepetitions of them;
/// without an iteration time, the loop's floor: the minimum samples over the time cap.
/// Unless `settles`, the spread never gets small enough to stop early (the longest case);
/// with it, the loop stops once the minimum count and time are reached.
double EstimateSamplingSeconds(const RunnerOptions& options, std::optional<double> iteration_seconds, bool settles = false);

/// One planned case.
struct PlannedCase {
  std::string id, label;
  std::uint64_t size = 0;
  double seconds = 0;       ///< sampling + fixed_seconds
  double fixed_seconds = 0; ///< the case's overhead, its host work and extra time, without samples
  std::optional<double> iteration_seconds;  ///< one RunOnce by the model; empty without one
  bool modelled = false;    ///< false: no model figure, the runner's floor was assumed
  std::string basis;
};

/// Every case of `selection` on `context`'s backend with its expected duration (`settles` as
/// for EstimateSamplingSeconds).
std::vector<PlannedCase> PlanCases(const std::vector<const Benchmark*>& selection, BackendContext& context,
                                   const BenchSettings& settings, bool settles = false);

}  // namespace gpuprobe::bench
