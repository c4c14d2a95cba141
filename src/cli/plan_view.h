// Views of a capacity plan for `gpuprobe plan`: JSON (the keys docs/plan.md documents)
// and the terminal rendering.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/plan_model_source.h"
#include "model/memory_planner.h"
#include "model/spec_database.h"
#include "model/throughput_model.h"
#include "report/i18n.h"

namespace gpuprobe::cli {

struct PlanFit {
  const model::GpuSpec* gpu = nullptr;
  model::FitResult fit;
  bool usable_estimated = true;
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
  std::optional<model::Capacity> capacity;
  std::optional<model::ServingCapacity> serving;  ///< with --gpu, inference
  std::optional<model::ThroughputPlan> throughput;
};

/// The gpuprobe.plan.v1 document (docs/plan.md, 'JSON'); plan_json.cpp. Notes are worded
/// from `texts` (their ids stay stable).
nlohmann::json PlanToJson(const PlanReport& report, const report::Texts& texts);
/// How the weights are stored for the plan: "nf4" (QLoRA), "checkpoint" (bytes read from its
/// headers), the quantisation method of the config, else the dtype name.
std::string WeightStorage(const model::Job& job);
/// One note in the user's language ("plan.note.<id>" with {detail}).
std::string NoteText(const report::Texts& texts, const model::ShapeNote& note);
std::string RenderPlan(const PlanReport& report, const report::Texts& texts);

}  // namespace gpuprobe::cli
