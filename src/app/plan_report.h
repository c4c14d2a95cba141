// A capacity plan, `gpuprobe plan`'s result, and how it is assembled from the plan's options:
// resolves the model, builds and checks the job (every number through model/quantity.h), plans
// memory, the fit table (GPUs ranked), and with --gpu the capacity, speed and cost (when it
// fits) or the ways to make it fit (when it does not), and with --rps/--users the GPUs the
// traffic needs: on the --gpu, or without one on every priced GPU (the rental sweep,
// app/plan_rental.h). The views (cli/plan_view.h, plan_json.cpp) only render it.
//
// Thread safety: BuildPlanReport reads files and the environment (--model); no shared state.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/model_lookup.h"
#include "app/plan_rental.h"
#include "app/plan_engine.h"
#include "checkpoint/model_source.h"
#include "core/status.h"
#include "model/fit_options.h"
#include "model/memory_planner.h"
#include "model/prices.h"
#include "model/spec_database.h"
#include "model/throughput_model.h"
#include "model/traffic.h"

namespace gpuprobe::app {

struct PlanFit {
  const model::GpuSpec* gpu = nullptr;
  model::FitResult fit;
  bool usable_estimated = true;
};

/// What the job costs with --gpu where a price is known.
struct PlanCost {
  const model::GpuPrice* price = nullptr;
  int gpus = 1;                         ///< GPUs of the split
  std::int64_t sequences = 0;           ///< inference: the concurrency the figures assume
  double tokens_per_s_bound = 0;        ///< output tokens/s (inference, at that concurrency) or training tokens/s
  double tokens_per_s_low = 0;          ///< at the low end of the efficiency range
  double usd_per_million_bound = 0;     ///< at the bound: the cheapest it can be
  double usd_per_million_low = 0;       ///< at the low efficiency: what to budget
  double train_tokens = 0;              ///< --train-tokens (training)
};

/// What the parameter count shown rests on (one rule for the text and JSON views).
enum class ParamsBasis {
  kGiven,        ///< --params: the user's number
  kHeaders,      ///< the checkpoint's headers, which differ from the config's structure
  kExact,        ///< the config's structure as transformers builds it (or a validated recipe)
  kApproximate,  ///< an approximate structure, a generic decoder or an uncounted tower
};

struct PlanReport;

/// The basis of `r`'s parameter count, and the count shown for it (the headers' when they
/// differ from the config's structure: the headers are what will be loaded).
ParamsBasis BasisOfParams(const PlanReport& r);
std::int64_t ShownParams(const PlanReport& r);

struct PlanReport {
  std::string model_label;        ///< file path or "--params 7B"
  std::string found_in;           ///< where --model was found (file, directory, hub_cache, catalog, gguf, stdin)
  std::string catalog_source;     ///< the catalogue entry's config URL
  std::optional<model::CatalogMatch> catalog_match;  ///< how a name resolved to the catalogue
  std::optional<HubLookup> hub;   ///< what the Hub step read (found_in hub or hub_cache)
  std::optional<checkpoint::CheckpointSummary> checkpoint;  ///< what the checkpoint's headers hold
  model::ModelShape shape;
  model::Job job;
  model::MemoryPlan memory;
  std::vector<PlanFit> fits;      ///< every GPU considered, best first
  const model::GpuSpec* gpu = nullptr;  ///< with --gpu
  /// The other GPUs --gpu's words could have meant ("h100": the PCIe and NVL cards), by name;
  /// empty when the name was the GPU's own (cli/gpu_choice_note.h says it).
  std::vector<std::string> gpu_other_variants;
  std::string gpu_query;  ///< --gpu as given
  bool fits_on_gpu = true;        ///< with --gpu: the job fits there; traffic without --gpu: some priced GPU serves it
  std::optional<model::Capacity> capacity;        ///< with --gpu, when it fits
  std::optional<model::ServingCapacity> serving;  ///< with --gpu, inference, when it fits
  std::optional<model::ThroughputPlan> throughput;  ///< with --gpu, when it fits
  std::vector<model::FitOption> options;          ///< with --gpu, when it does not fit
  std::optional<model::TrafficPlan> traffic;      ///< with --rps or --users
  std::optional<PlanCost> cost;                   ///< with --gpu, when it fits and a price is known
  const model::GpuPrice* gpu_price = nullptr;     ///< the --gpu's price, when known (owned by `prices`)
  bool traffic_requested = false;                 ///< --rps or --users was given
  /// --max-model-len -1: the longest context the engine holds, chosen by a first pass; every
  /// section plans that length (0: not asked).
  std::int64_t max_len_chosen = 0;
  std::shared_ptr<const model::PriceBook> prices; ///< the price table with --price applied
  bool dtype_fp16_for_gpu = false;                ///< with --gpu: a bf16 default planned as fp16 (no bf16 on the GPU)
  double train_tokens = 0;                        ///< --train-tokens (training modes), 0 when not given
  std::optional<RentalFigures> rental;            ///< with --gpu and traffic: the planned load's rental figures
  std::optional<RentalSweep> rental_sweep;        ///< traffic without --gpu: every priced GPU (app/plan_rental.h)
  /// Inference on one GPU (--gpu or --gpu-from): the serving engine's budget, which is the fit
  /// verdict (fits_on_gpu); app/plan_engine.h.
  std::optional<PlanEngine> engine;
  std::optional<LogComparison> from_log;  ///< --from-log: the engine's log read back
  bool log_only = false;                  ///< --from-log without a model: only the log's section
  std::string fit_engine;  ///< inference: the engine whose budget the fit table applies ("vLLM V1", ...)
};


/// The plan as asked: `plan`'s flags, unchecked.
struct PlanOptions {
  std::string model_path, params, gpu;
  std::optional<std::int64_t> layers, hidden, heads, kv_heads, vocab, intermediate;
  std::string mode = "infer", dtype, kv_dtype, optimizer = "adamw", lora_targets = "all";
  std::int64_t batch = 1, seq = 4096;
  int lora_rank = 16, tp = 1, pp = 1, ep = 0;
  std::int64_t shared_prefix = 0;
  bool checkpointing = false, no_checkpointing = false;
  double headroom = 0.9;
  // Traffic, prices, a training run.
  std::optional<double> rps, users;
  std::optional<double> think_time;
  std::optional<double> tpot_ms;
  std::optional<double> p99_wait_ms;  ///< --p99-wait-ms: the rental sweep's recommendation limit
  std::optional<double> prompt_tokens, output_tokens;  ///< checked as whole token counts
  std::vector<std::string> prices;
  std::string train_tokens;
  bool seq_given = false;  ///< --seq was on the command line (else traffic sets it to P + O)
  EngineFlags engine;      ///< --engine and the engine's own flags, --gpu-from (inference)
  std::string from_log;    ///< an engine's start-up log to read back and compare
};

/// The whole report; InvalidArgument (exit 2) naming the flag for bad input.
core::Result<PlanReport> BuildPlanReport(const PlanOptions& options);

}  // namespace gpuprobe::app
