// Views of a capacity plan for `gpuprobe plan`: JSON (the keys docs/plan.md documents)
// and the terminal rendering (plan_view.cpp: model, memory and fit; plan_speed_view.cpp:
// capacity, serving, speed and communication; plan_options_view.cpp: ways to make it fit,
// traffic sizing and cost).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/plan_model_source.h"
#include "model/fit_options.h"
#include "model/memory_planner.h"
#include "model/prices.h"
#include "model/spec_database.h"
#include "model/throughput_model.h"
#include "model/traffic.h"
#include "report/i18n.h"

namespace gpuprobe::cli {

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

struct PlanReport {
  std::string model_label;        ///< file path or "--params 7B"
  std::string found_in;           ///< where --model was found (file, directory, hub_cache, catalog, gguf, stdin)
  std::string catalog_source;     ///< the catalogue entry's config URL
  std::optional<CheckpointSummary> checkpoint;  ///< what the checkpoint's headers hold
  model::ModelShape shape;
  model::Job job;
  model::MemoryPlan memory;
  std::vector<PlanFit> fits;      ///< every GPU considered, best first
  const model::GpuSpec* gpu = nullptr;  ///< with --gpu
  bool fits_on_gpu = true;        ///< with --gpu: the job fits there
  std::optional<model::Capacity> capacity;        ///< with --gpu, when it fits
  std::optional<model::ServingCapacity> serving;  ///< with --gpu, inference, when it fits
  std::optional<model::ThroughputPlan> throughput;  ///< with --gpu, when it fits
  std::vector<model::FitOption> options;          ///< with --gpu, when it does not fit
  std::optional<model::TrafficPlan> traffic;      ///< with --rps or --users
  std::optional<PlanCost> cost;                   ///< with --gpu, when it fits and a price is known
  const model::GpuPrice* gpu_price = nullptr;     ///< the --gpu's price, when known (owned by `prices`)
  bool traffic_requested = false;                 ///< --rps or --users was given
  std::shared_ptr<const model::PriceBook> prices; ///< the price table with --price applied
};

/// The gpuprobe.plan.v1 document (docs/plan.md, 'JSON'); plan_json.cpp. Texts (formulas,
/// notes, reasons) are worded from `texts`; ids stay stable.
nlohmann::json PlanToJson(const PlanReport& report, const report::Texts& texts);
/// How the weights are stored for the plan: "nf4" (QLoRA), "checkpoint" (bytes read from its
/// headers), the quantisation method of the config, else the dtype name.
std::string WeightStorage(const model::Job& job);
/// One note in the user's language ("plan.note.<id>" with {detail}).
std::string NoteText(const report::Texts& texts, const model::ShapeNote& note);
/// The note for a shape assumed from --params alone; empty when the shape was given.
std::string AssumedShapeText(const report::Texts& texts, const model::ModelShape& shape);
std::string RenderPlan(const PlanReport& report, const report::Texts& texts);

// Sections of RenderPlan, each in its own file.
std::string RenderSpeed(const PlanReport& report, const report::Texts& texts);      ///< plan_speed_view.cpp
std::string RenderOptions(const PlanReport& report, const report::Texts& texts);    ///< plan_options_view.cpp
std::string RenderTraffic(const PlanReport& report, const report::Texts& texts);    ///< plan_options_view.cpp
std::string RenderCost(const PlanReport& report, const report::Texts& texts);       ///< plan_options_view.cpp

}  // namespace gpuprobe::cli
