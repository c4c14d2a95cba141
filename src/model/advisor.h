// The workload advisor behind `gpuprobe advise`: is a GPU worth it for this workload, and
// which one? For the CPU and for every GPU of the database it predicts the time of one call:
//   compute  = max(FLOPs / peak, bytes / bandwidth)               (the roofline)
//   transfer = bytes crossing PCIe / (0.8 x the link's encoded rate)  (pinned copies)
//   launch   = a synchronous kernel round trip per call (~5 us)
//   total    = serial part on the CPU + parallel part on the GPU (Amdahl) [+ transfer]
// and scores the five suitability criteria (arithmetic intensity, data dependency,
// branching, batchability, algorithmic complexity) before a verdict.
//
// Thread safety: pure functions.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "model/gpu_spec.h"
#include "model/phrase.h"
#include "model/prices.h"

namespace gpuprobe::model {

struct Workload {
  Phrase name;                   ///< "vector y = a*x + b, 1e8 fp32 elements"
  std::string dtype = "fp32";    ///< arithmetic type: fp64, fp32, bf16, fp16
  double flops = 0;              ///< per call
  double bytes = 0;              ///< memory traffic per call (reads + writes)
  double transfer_bytes = 0;     ///< host <-> device per call when the data does not stay on the GPU
  double parallel_fraction = 1;  ///< 0..1, the part that can run in parallel
  bool branchy = false;          ///< data-dependent branching per element
  double calls_per_second = 0;   ///< 0: one batch job; > 0: a service answering requests
  double flops_growth = 1;       ///< FLOPs grow as size^this ...
  double bytes_growth = 1;       ///< ... and data as size^this
  /// For an LLM workload: the model's parameter count. Each GPU is then also checked by the
  /// memory planner (the same job as `plan --params N`: 16-bit inference at 4096 tokens), and
  /// a GPU the model does not fit on is never picked.
  double model_params = 0;
};

/// What the CPU sustains: measured (from a saved bench run) or theoretical.
struct CpuCapability {
  double flops = 0;          ///< FLOP/s for the workload's dtype
  double bandwidth = 0;      ///< bytes/s
  Phrase basis;              ///< where the two figures come from
};

struct GpuEstimate {
  const GpuSpec* gpu = nullptr;
  double compute_seconds = 0;
  double transfer_seconds = 0;
  double launch_seconds = 0;
  double total_seconds = 0;           ///< with transfers
  double resident_seconds = 0;        ///< data already on the GPU
  double speedup = 0;                 ///< CPU time / total
  double resident_speedup = 0;        ///< CPU time / resident
  bool bandwidth_bound = false;
  Phrase link;                        ///< the host link its data crosses ("PCIe Gen5 x16 at 50.4 GB/s")
  double peak_flops = 0;              ///< the peak used for the workload's dtype
  double bandwidth_bytes_per_s = 0;   ///< memory bandwidth used
  double usable_bytes = 0;            ///< driver-usable memory (model/spec_derivation.h)
  std::optional<bool> model_fits;     ///< LLM workloads: the planner's verdict for the model
  double model_bytes = 0;             ///< LLM workloads: the planned memory of the model on one GPU
  double model_budget_bytes = 0;      ///< LLM workloads: usable x headroom, what model_bytes must fit in
  const GpuPrice* price = nullptr;    ///< when known
  double usd_per_million_calls = 0;   ///< price x total time; 0 when unpriced
};

struct Criterion {
  std::string id;       ///< arithmetic_intensity, data_dependency, branching, batchability, complexity
  int score = 0;        ///< -2 (against the GPU) .. +2 (for it)
  Phrase reason;        ///< one line with this workload's numbers
};

enum class Verdict { kStayOnCpu, kMoveToGpu, kOnlyIfDataStays };
std::string VerdictName(Verdict verdict);

struct Advice {
  double cpu_seconds = 0;
  bool cpu_bandwidth_bound = false;
  double amdahl_cap = 0;              ///< 1 / (1 - P); infinity-like 1e9 when P = 1
  std::vector<GpuEstimate> gpus;      ///< best (by total) first
  std::vector<Criterion> criteria;
  Verdict verdict = Verdict::kStayOnCpu;
  const GpuSpec* pick = nullptr;      ///< the GPU the verdict names (null to stay on the CPU)
  Phrase reason;                      ///< the verdict in one sentence, with times
  /// The cheapest priced GPU worth moving to (same test as the verdict), and what it costs.
  /// An index into `gpus`; -1 when no priced GPU is worth it.
  int cheapest = -1;
};

/// A synchronous kernel launch round trip (5-10 us measured on H200 and A100).
inline constexpr double kLaunchRoundTripSeconds = 5e-6;
/// One synchronous host<->device copy before any byte moves: the same launch-and-wait round
/// trip plus DMA setup; small copies are dominated by it (gpu-benches cuda-memcpy reaches 95%
/// of the plateau only at ~8 MB), so take the upper end of the round trip.
inline constexpr double kCopyLatencySeconds = 10e-6;
/// Pinned copies reach about 80% of the encoded PCIe rate.
inline constexpr double kPcieEfficiency = 0.8;
/// Branch divergence: data-dependent branches make a warp run its paths in turn; assume 4.
inline constexpr double kDivergencePenalty = 4;
/// A GPU must beat the CPU by this factor before moving is worth the effort.
inline constexpr double kWorthIt = 1.25;

/// Checks a workload's numbers: non-negative, finite, P in [0, 1], not absurd.
core::Status ValidateWorkload(const Workload& workload);

/// Advises on `workload` given the CPU and the GPUs to consider (NVIDIA and AMD alike).
/// `prices` (may be null) adds dollars per million calls and the cheapest worthwhile GPU.
/// GPUs are listed fastest first; for an LLM workload, those the model fits on come first.
/// `consider`, when given, leaves out the GPUs it returns false for (app/advise_candidates.h).
core::Result<Advice> Advise(const Workload& workload, const CpuCapability& cpu, const std::vector<GpuSpec>& gpus,
                            const PriceBook* prices = nullptr, const std::function<bool(const GpuSpec&)>& consider = {});

}  // namespace gpuprobe::model
