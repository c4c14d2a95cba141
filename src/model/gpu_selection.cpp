#include "model/gpu_selection.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/spelling.h"
#include "model/spec_derivation.h"

namespace gpuprobe::model {
namespace {

// Weights of a 13B model in 16-bit: the yardstick for the inference task's decode bound.
constexpr double k13bWeightBytes = 13.0e9 * 2;

bool HasNvlink(const GpuSpec& g) {
  return g.nvlink_total_bidirectional_gb_per_s.known() && *g.nvlink_total_bidirectional_gb_per_s.value > 0;
}

bool IsPcieCard(const GpuSpec& g) {
  return g.form_factor.find("PCIe") != std::string::npos;
}

double Score(const GpuSpec& g, RankBy rank_by) {
  double bf16 = PeakFlops(g, "bf16").value_or(0);
  double bandwidth = MemoryBandwidthBytesPerSecond(g).value_or(0);
  switch (rank_by) {
    case RankBy::kTensorPerWatt:
      return g.tdp_watts.known() && *g.tdp_watts.value > 0 ? bf16 / *g.tdp_watts.value : 0;
    case RankBy::kMemoryBandwidth:
      return bandwidth;
    case RankBy::kTensorFlops:
      return bf16;
    case RankBy::kBandwidthTimesMemory:
      return bandwidth * g.memory_size_gb_vendor.ValueOr(0);
  }
  return 0;
}

std::vector<std::string> Reasons(const GpuSpec& g, const TaskRule& rule) {
  std::vector<std::string> out;
  double memory_gb = g.memory_size_gb_vendor.ValueOr(0);
  double bandwidth = MemoryBandwidthBytesPerSecond(g).value_or(0);
  double bf16 = PeakFlops(g, "bf16").value_or(0);
  out.push_back(fmt::format("memory: {:.0f} GB (needs >= {:.0f} GB)", memory_gb, rule.min_memory_gb));
  switch (rule.rank_by) {
    case RankBy::kTensorPerWatt:
      out.push_back(fmt::format("compute: {:.0f} TFLOP/s BF16 dense at {:.0f} W ({:.2f} TFLOP/s per W)",
                                bf16 / 1e12, g.tdp_watts.ValueOr(0), bf16 / 1e12 / g.tdp_watts.ValueOr(1)));
      break;
    case RankBy::kMemoryBandwidth:
      out.push_back(fmt::format("bandwidth: {:.0f} GB/s -> a 13B 16-bit model decodes at most {:.0f} tokens/s "
                                "per stream (bandwidth / 26 GB of weights)",
                                bandwidth / 1e9, bandwidth / k13bWeightBytes));
      break;
    case RankBy::kTensorFlops:
      out.push_back(fmt::format("compute: {:.0f} TFLOP/s BF16 dense", bf16 / 1e12));
      break;
    case RankBy::kBandwidthTimesMemory:
      out.push_back(fmt::format("bandwidth: {:.0f} GB/s per stream, and {:.0f} GB holds weights plus a "
                                "large KV cache for many concurrent requests",
                                bandwidth / 1e9, memory_gb));
      break;
  }
  if (rule.needs_nvlink || HasNvlink(g)) {
    if (HasNvlink(g)) {
      double per_direction = *g.nvlink_total_bidirectional_gb_per_s.value / 2;
      auto pcie = DerivePcieBandwidth(g);
      out.push_back(fmt::format("interconnect: NVLink {:.0f} GB/s per direction{}", per_direction,
                                pcie ? fmt::format(" vs PCIe {:.0f} GB/s", *pcie / 1e9) : std::string()));
    }
  } else if (auto pcie = DerivePcieBandwidth(g)) {
    out.push_back(fmt::format("interconnect: PCIe only, {:.0f} GB/s per direction", *pcie / 1e9));
  }
  return out;
}

}  // namespace

const std::vector<TaskRule>& TaskRules() {
  static const std::vector<TaskRule> kRules = [] {
    std::vector<TaskRule> rules;
    TaskRule prototype;
    prototype.id = "prototype";
    prototype.title = "prototype and develop on one card in a workstation";
    prototype.min_memory_gb = 12;
    prototype.pcie_card_only = true;
    prototype.max_tdp_watts = 450;
    prototype.rank_by = RankBy::kTensorPerWatt;
    rules.push_back(prototype);

    TaskRule inference;
    inference.id = "inference-7b-13b";
    inference.title = "serve a 7B-13B model: weights in 16-bit plus KV cache on one card";
    inference.min_memory_gb = 24;
    inference.pcie_card_only = true;
    inference.rank_by = RankBy::kMemoryBandwidth;
    rules.push_back(inference);

    TaskRule fine_tune;
    fine_tune.id = "fine-tune";
    fine_tune.title = "fine-tune (LoRA on 13B-70B, full fine-tune of small models)";
    fine_tune.min_memory_gb = 48;
    fine_tune.rank_by = RankBy::kTensorFlops;
    rules.push_back(fine_tune);

    TaskRule training;
    training.id = "large-training";
    training.title = "train large models across many GPUs";
    training.min_memory_gb = 80;
    training.needs_nvlink = true;
    training.rank_by = RankBy::kTensorFlops;
    rules.push_back(training);

    TaskRule serving;
    serving.id = "llm-serving";
    serving.title = "serve LLMs at scale: many concurrent requests, long contexts";
    serving.min_memory_gb = 80;
    serving.nvidia_only = false;
    serving.rank_by = RankBy::kBandwidthTimesMemory;
    rules.push_back(serving);
    return rules;
  }();
  return kRules;
}

core::Result<TaskRule> FindTaskRule(const std::string& task_id) {
  std::vector<std::string> ids;
  for (const auto& rule : TaskRules()) {
    if (rule.id == task_id) return rule;
    ids.push_back(rule.id);
  }
  std::string all;
  for (const auto& id : ids) all += (all.empty() ? "" : ", ") + id;
  auto near = core::ClosestMatches(task_id, ids);
  std::string suggestion = near.empty() ? "" : fmt::format(" Did you mean '{}'?", near.front());
  return core::Status::InvalidArgument(fmt::format("unknown task '{}'.{} Tasks: {}", task_id, suggestion, all));
}

std::vector<TaskPick> SelectGpus(const SpecDatabase& db, const TaskRule& rule) {
  std::vector<TaskPick> picks;
  for (const auto& g : db.gpus()) {
    if (rule.nvidia_only && g.vendor != "NVIDIA") continue;
    if (g.memory_size_gb_vendor.ValueOr(0) < rule.min_memory_gb) continue;
    if (rule.needs_nvlink && !HasNvlink(g)) continue;
    if (rule.pcie_card_only && !IsPcieCard(g)) continue;
    if (rule.max_tdp_watts > 0 && g.tdp_watts.ValueOr(1e9) > rule.max_tdp_watts) continue;
    // Integrated parts share memory with the CPU and are not rented or racked for these jobs.
    if (g.host_interface.find("SoC") != std::string::npos) continue;
    TaskPick pick;
    pick.gpu = &g;
    pick.score = Score(g, rule.rank_by);
    if (pick.score <= 0) continue;
    pick.reasons = Reasons(g, rule);
    picks.push_back(std::move(pick));
  }
  std::stable_sort(picks.begin(), picks.end(),
                   [](const TaskPick& a, const TaskPick& b) { return a.score > b.score; });
  if (picks.size() > rule.picks) picks.resize(rule.picks);
  return picks;
}

}  // namespace gpuprobe::model
