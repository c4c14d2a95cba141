// Throughput predictions for a planned job on one GPU model: each a bound (the roofline at
// 100% efficiency) plus an estimate range at a stated efficiency (docs/plan.md, 'Throughput').
//   decode  (bandwidth-bound at small batch): step = max(bytes read / BW, FLOPs / peak) + comm
//   prefill (compute-bound): FLOPs = 2 P S b + 2 L S^2 a d b, then + comm
//   training: tokens/s = peak x MFU / (6 P)   (LoRA: 4 P + 6 P_lora; +2 P with recompute), + comm
// where comm is the split's communication (model/parallel_comm.h), which no efficiency scales.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>

#include "core/status.h"
#include "model/gpu_spec.h"
#include "model/memory_planner.h"
#include "model/model_shape.h"
#include "model/parallel_comm.h"
#include "model/phrase.h"

namespace gpuprobe::model {

struct RateEstimate {
  double bound = 0;       ///< tokens/s at 100% of the limiting resource
  double low = 0;         ///< tokens/s at the low end of the efficiency range
  double high = 0;        ///< tokens/s at the high end
  double efficiency_low = 0, efficiency_high = 0;
  std::string limited_by; ///< "memory bandwidth" or "compute" (stable JSON values)
  Phrase basis;           ///< the formula with this job's numbers
  Phrase assumes;         ///< where the efficiency range comes from
};

/// One step's parts at 100% efficiency, in seconds.
struct StepTimes {
  double memory_seconds = 0;   ///< bytes read / bandwidth
  double compute_seconds = 0;  ///< FLOPs / peak
  double comm_seconds = 0;     ///< the split's communication (no efficiency applies)
  /// The step at `efficiency` of the roofline: max(memory, compute) / efficiency + comm.
  double At(double efficiency) const;
  bool memory_bound() const { return memory_seconds >= compute_seconds; }
};

/// The peak and bandwidth a job computes with on one GPU.
struct DeviceRates {
  std::string compute_dtype;   ///< "bf16", "fp8", "fp32", ...
  double peak_flops = 0;       ///< per GPU, dense
  double bandwidth = 0;        ///< bytes/s per GPU
};
/// Unavailable when the spec lacks the bandwidth or every peak the job could use.
core::Result<DeviceRates> RatesFor(const Job& job, const GpuSpec& gpu);

/// Efficiency ranges (docs/plan.md, 'Throughput'): decode against the bandwidth bound,
/// prefill against dense peak, training MFU.
inline constexpr double kDecodeEfficiencyLow = 0.5, kDecodeEfficiencyHigh = 0.9;
inline constexpr double kPrefillEfficiencyLow = 0.2, kPrefillEfficiencyHigh = 0.6;
inline constexpr double kMfuLow = 0.35, kMfuHigh = 0.55;

/// One decode step of `batch` sequences each holding `context_tokens` of cache, split as
/// `job` says, with the split's communication over `link`.
StepTimes DecodeStep(const ModelShape& shape, const MemoryPlan& plan, const Job& job, const DeviceRates& rates,
                     const GpuLink& link, double batch, double context_tokens);
/// The prefill of `batch` prompts of `prompt_tokens` each.
StepTimes PrefillPass(const ModelShape& shape, const MemoryPlan& plan, const Job& job, const DeviceRates& rates,
                      const GpuLink& link, double batch, double prompt_tokens);

struct ThroughputPlan {
  std::string compute_dtype;     ///< which peak was used ("bf16", "fp8", "fp32", ...)
  double peak_flops = 0;         ///< per GPU, dense
  double bandwidth_bytes_per_s = 0;  ///< per GPU
  RateEstimate decode_per_stream;    ///< tokens/s seen by one sequence
  RateEstimate decode_aggregate;     ///< tokens/s over the whole batch
  RateEstimate prefill;              ///< prompt tokens/s
  bool has_training = false;
  RateEstimate training;             ///< training tokens/s (all GPUs of the split)
  StepTimes decode_step;             ///< one decode step of job.batch sequences at job.seq
  StepTimes prefill_pass;            ///< the prefill of job.batch x job.seq tokens
  StepTimes training_step;           ///< one training step of job.batch x job.seq tokens
  CommPlan comm;                     ///< the split's communication (no terms on one GPU)
  /// The same split's communication over PCIe, when the GPU's own link is another one.
  std::optional<CommPlan> comm_over_pcie;
};

/// Predicts throughput of `job` on `gpu`. Unavailable when the spec lacks the bandwidth or
/// the peak needed.
core::Result<ThroughputPlan> PredictThroughput(const ModelShape& shape, const MemoryPlan& plan,
                                               const Job& job, const GpuSpec& gpu);

}  // namespace gpuprobe::model
