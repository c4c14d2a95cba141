// The rental answer of `gpuprobe plan --rps ...`: what serving the traffic costs on a kind of
// GPU, and, without --gpu, on every GPU with a known price, cheapest first.
//
// One function turns one GPU's traffic plan (model/traffic.h) into the rental figures, and
// both `plan --gpu X --rps ...` and the sweep call it, so the sweep's row for X is the same
// numbers the --gpu plan prints. The figures are those of the planned configuration: the low
// end of the efficiency ranges.
//
// Pricing rule: the GPU-hours' price is divided by every token they serve, prompt and output
// alike ($ per 1M tokens = GPUs x USD/h / ((P + O) x rate x 3600) x 1e6), and, as before, by
// the output tokens alone ($ per 1M output tokens: the whole bill charged to the answers).
//
// Thread safety: pure functions over the plan's data and the price table (read-only).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/plan_gpu_job.h"
#include "core/status.h"
#include "model/memory_planner.h"
#include "model/prices.h"
#include "model/queueing.h"
#include "model/spec_database.h"
#include "model/traffic.h"

namespace gpuprobe::app {

/// Bursts: the queueing wait at the planned utilisation, per replica, and one replica more.
struct RentalHeadroom {
  model::QueueWait prefill;  ///< prompts waiting for the prefill: M/M/1 per replica
  model::QueueWait slots;    ///< requests waiting for a KV-cache slot: M/M/c, c = the sequences it holds
  double p99_wait_seconds = 0;   ///< prefill p99 + slot p99 (infinity when either queue is unstable)
  double utilisation = 0;        ///< the busier of the two queues
  int n_plus_one_replicas = 0;   ///< replicas + 1: losing one leaves the planned count
  int n_plus_one_gpus = 0;       ///< (replicas + 1) x tensor parallel
};

/// One GPU kind's answer to the traffic.
struct RentalFigures {
  const model::GpuSpec* gpu = nullptr;
  const model::GpuPrice* price = nullptr;  ///< nullptr when no price is known
  model::ReplicaLoad load;                 ///< the planned configuration (low efficiency)
  std::string blocked_by;                  ///< when !load.feasible: memory, kv_cache, prefill, decode, latency, spec
  std::string weight_dtype;                ///< the dtype the weights were planned in on this GPU
  bool fp16_for_gpu = false;               ///< a bf16 default planned as fp16 here (no bf16 on the GPU)
  double tokens_per_s = 0;                 ///< prompt + output tokens served per second, the whole service
  double output_tokens_per_s = 0;          ///< output tokens per second, the whole service
  RentalHeadroom headroom;
  // Priced figures (0 when price is nullptr).
  double usd_per_hour = 0;                   ///< load.gpus x USD per GPU-hour
  double usd_per_million_tokens = 0;         ///< prompt + output
  double usd_per_million_output_tokens = 0;  ///< output only
  double n_plus_one_usd_per_hour = 0;
  double n_plus_one_usd_per_million_tokens = 0;
};

/// The rental figures of `plan.low` (the count to plan for) on `gpu` at `price` (may be null),
/// the weights planned in `weight_dtype`. Pure.
RentalFigures RentalFiguresFor(const model::GpuSpec& gpu, const model::GpuPrice* price, const model::TrafficPlan& plan,
                               const std::string& weight_dtype);

/// Every GPU with a known price under the traffic.
struct RentalSweep {
  model::Traffic traffic;                  ///< as given
  std::vector<RentalFigures> rows;         ///< feasible, by $ per 1M tokens, then fewer GPUs
  std::vector<RentalFigures> not_served;   ///< priced GPUs that cannot serve it, with blocked_by
  int priced_gpus = 0;                     ///< GPUs the price table (and --price) name
  /// The one row to rent: the cheapest (first) whose p99 wait is within max_p99_wait_seconds
  /// and whose busier queue is within kRecommendMaxBusy; empty when no row is.
  std::optional<size_t> recommended;
  double max_p99_wait_seconds = 0;
};

/// The recommendation's defaults. A p99 queueing wait of 1 s is what a chat user notices
/// before the first token (on top of the TTFT); 80% busy keeps a burst of 1.25x the planned
/// rate from turning the queue unstable (utilisation 1).
inline constexpr double kRecommendP99WaitMs = 1000;
inline constexpr double kRecommendMaxBusy = 0.8;

/// Sizes `traffic` on every GPU `prices` names, each with the job `plan --gpu` would plan there
/// (PlanJobForGpu, app/plan_gpu_job.h). Errors only from the traffic's validation
/// (InvalidArgument); a GPU whose spec lacks the figures is listed among not_served as "spec".
/// The recommendation's limit is `max_p99_wait_seconds` (> 0).
core::Result<RentalSweep> SweepRentals(const model::ModelShape& shape, const model::Job& base, DtypeDefaults defaults,
                                       const model::PriceBook& prices, const model::Traffic& traffic,
                                       double max_p99_wait_seconds = kRecommendP99WaitMs / 1000);

}  // namespace gpuprobe::app
