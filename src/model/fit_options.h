// What would make a job fit when it does not: each option is the same job changed in one way
// (or the cheapest combination of changes) and planned again through the same planner, on
// the same GPU (or another one from the database), with its memory per GPU, whether it fits,
// and what it costs in quality, speed and money. Nothing here is a rule of thumb: an option's
// memory is PlanMemory's, its fit CheckFit's, its speed PredictThroughput's.
//
// Options, in the order of what they cost (docs/plan.md, 'When it does not fit'):
//   KV cache in fp8; activation checkpointing; an 8-bit optimizer        (config only)
//   a shorter context or a smaller batch (the largest that fits)        (the workload)
//   fp8 / int8 / int4 weights; QLoRA instead of LoRA; LoRA instead of full (quality)
//   tensor parallel over the fewest GPUs that fit                         (money, links)
//   a bigger GPU (the cheapest priced one that fits, and the smallest)    (money)
//   the cheapest combination of the above that fits
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/memory_planner.h"
#include "model/phrase.h"
#include "model/prices.h"
#include "model/spec_database.h"
#include "model/throughput_model.h"

namespace gpuprobe::model {

struct FitOption {
  std::string id;              ///< kv_fp8, checkpointing, optimizer_8bit, shorter_context, smaller_batch,
                               ///< weights_fp8, weights_int8, weights_int4, qlora, lora, tensor_parallel,
                               ///< bigger_gpu_cheapest, bigger_gpu_smallest, combined
  int cost_rank = 0;           ///< 0 config only .. 4 a different GPU; the list is sorted by it
  Job job;                     ///< the changed job
  const GpuSpec* gpu = nullptr;  ///< the GPU it was planned on
  MemoryPlan plan;             ///< per GPU
  FitResult fit;
  int gpus = 1;                ///< GPUs the option uses
  std::int64_t value = 0;      ///< shorter_context: tokens; smaller_batch: sequences; tensor_parallel: GPUs
  Phrase change;               ///< what changes, with its figures
  Phrase cost;                 ///< what it costs: quality, speed or money, in words
  std::optional<ThroughputPlan> throughput;  ///< when it fits: the speed it would have
  const GpuPrice* price = nullptr;           ///< the GPU's price, when known
  /// With a serving engine (set by the app layer, which holds the engine's verdict): the KV
  /// cache the engine leaves on one GPU and what one request of the option's context needs;
  /// both 0 without an engine figure.
  double engine_kv_left_bytes = 0;
  double engine_kv_request_bytes = 0;
  /// With the engine's own log of this GPU (plan --from-log): how much less KV cache per GPU
  /// the log showed than the rules predict (negative: more); already taken off
  /// engine_kv_left_bytes. 0 when no log corrects the option.
  double engine_kv_log_correction_bytes = 0;
};

/// Every way found to make `job` fit on `gpu`, re-planned: first those that fit, cheapest
/// first (by cost_rank, then memory), then those that do not, smallest memory first. Empty
/// when the job already fits. `prices` may be null.
std::vector<FitOption> FindFitOptions(const ModelShape& shape, const Job& job, const GpuSpec& gpu,
                                      const SpecDatabase& db, const PriceBook* prices);

/// The smallest tensor-parallel degree (a power of two dividing the attention heads, at most
/// 64) at which `job` fits on GPUs of kind `gpu`; 0 when none does.
int SmallestFittingTensorParallel(const ModelShape& shape, const Job& job, const GpuSpec& gpu);

}  // namespace gpuprobe::model
