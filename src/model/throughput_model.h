// Throughput predictions for a planned job on one GPU model: each a bound (the roofline at
// 100% efficiency) plus an estimate range at a stated efficiency (docs/plan.md, 'Throughput').
//   decode  (bandwidth-bound at small batch): step = max(bytes read / BW, FLOPs / peak)
//   prefill (compute-bound): FLOPs = 2 P S b + 2 L S^2 a d b
//   training: tokens/s = peak x MFU / (6 P)   (LoRA: 4 P + 6 P_lora; +2 P with recompute)
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include "core/status.h"
#include "model/gpu_spec.h"
#include "model/memory_planner.h"
#include "model/model_shape.h"

namespace gpuprobe::model {

struct RateEstimate {
  double bound = 0;       ///< tokens/s at 100% of the limiting resource
  double low = 0;         ///< tokens/s at the low end of the efficiency range
  double high = 0;        ///< tokens/s at the high end
  double efficiency_low = 0, efficiency_high = 0;
  std::string limited_by; ///< "memory bandwidth" or "compute"
  std::string basis;      ///< the formula with this job's numbers
  std::string assumes;    ///< where the efficiency range comes from
};

struct ThroughputPlan {
  std::string compute_dtype;     ///< which peak was used ("bf16", "fp8", "fp32", ...)
  double peak_flops = 0;         ///< per GPU, dense
  double bandwidth_bytes_per_s = 0;  ///< per GPU
  RateEstimate decode_per_stream;    ///< tokens/s seen by one sequence
  RateEstimate decode_aggregate;     ///< tokens/s over the whole batch
  RateEstimate prefill;              ///< prompt tokens/s
  bool has_training = false;
  RateEstimate training;             ///< training tokens/s (all GPUs of the split)
};

/// Predicts throughput of `job` on `gpu`. Unavailable when the spec lacks the bandwidth or
/// the peak needed.
core::Result<ThroughputPlan> PredictThroughput(const ModelShape& shape, const MemoryPlan& plan,
                                               const Job& job, const GpuSpec& gpu);

}  // namespace gpuprobe::model
