// Views of a capacity plan for `gpuprobe plan`: JSON (the keys docs/plan.md documents)
// and the terminal rendering.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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
  model::ModelShape shape;
  model::Job job;
  model::MemoryPlan memory;
  std::vector<PlanFit> fits;      ///< every GPU considered, best first
  const model::GpuSpec* gpu = nullptr;  ///< with --gpu
  std::optional<model::Capacity> capacity;
  std::optional<model::ThroughputPlan> throughput;
};

nlohmann::json PlanToJson(const PlanReport& report);
std::string RenderPlan(const PlanReport& report, const report::Texts& texts);

}  // namespace gpuprobe::cli
