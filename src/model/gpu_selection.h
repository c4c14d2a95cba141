// Which GPU for which job: the selection table behind `gpus --task`. Each task is a rule
// over the spec database (memory floor, interconnect, what to rank by), so every pick can
// say why in figures: memory, bandwidth, interconnect.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "model/spec_database.h"

namespace gpuprobe::model {

enum class RankBy {
  kTensorPerWatt,      ///< BF16 dense FLOP/s per watt (a workstation card that stays cool)
  kMemoryBandwidth,    ///< decode speed is bandwidth-bound
  kTensorFlops,        ///< training speed is compute-bound
  kBandwidthTimesMemory,  ///< serving: speed per stream x how many streams fit (KV cache)
};

struct TaskRule {
  std::string id;            ///< "prototype", "inference-7b-13b", ...
  std::string title;         ///< one line, English (zh in data/texts)
  double min_memory_gb = 0;  ///< vendor GB the card must have
  bool nvidia_only = true;   ///< needs the CUDA software stack
  bool needs_nvlink = false; ///< multi-GPU training needs a GPU-to-GPU link, not PCIe
  bool pcie_card_only = false;  ///< fits an ordinary server or workstation slot
  double max_tdp_watts = 0;  ///< 0 = no limit
  RankBy rank_by = RankBy::kTensorFlops;
  size_t picks = 4;
};

struct TaskPick {
  const GpuSpec* gpu = nullptr;
  double score = 0;          ///< the ranking figure, in SI units of rank_by
  std::vector<std::string> reasons;  ///< figures that justify the pick, one per line
};

/// The rules of every task, in display order.
const std::vector<TaskRule>& TaskRules();
/// The rule for `task_id`; InvalidArgument listing the tasks when unknown.
core::Result<TaskRule> FindTaskRule(const std::string& task_id);
/// Applies `rule` to the database: the GPUs that qualify, best first.
std::vector<TaskPick> SelectGpus(const SpecDatabase& db, const TaskRule& rule);

}  // namespace gpuprobe::model
