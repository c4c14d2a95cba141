// `gpus --task`: a task's reference job planned on every GPU; picks by the task's criterion
// and by cost.
#include <fmt/format.h>

#include "cli/command.h"
#include "cli/gpus_view.h"
#include "report/phrase_text.h"
#include "cli/price_json.h"
#include "core/units.h"
#include "report/json_document.h"

namespace gpuprobe::cli {
namespace {

using nlohmann::json;

// The `plan` command line that plans the same job on one GPU; `gpu` stands for the GPU's name.
std::string PlanCommand(const model::TaskRule& rule, int tp, const std::string& gpu = "NAME") {
  std::string command = fmt::format("gpuprobe plan --params {:g}B --mode {} --seq {}", rule.params / 1e9,
                                    model::JobModeName(rule.mode), rule.seq);
  if (rule.checkpointing && rule.mode != model::JobMode::kQlora) command += " --checkpointing";
  if (tp > 1) command += fmt::format(" --tp {}", tp);
  return command + " --gpu " + gpu;
}

std::string Pick(const report::Texts& t, int rank, const model::TaskCandidate& c) {
  std::string out = fmt::format("  {}. {}\n", rank, GpuNameText(c.gpu->name, t));
  for (const auto& reason : c.reasons) out += "       " + Say(t, reason) + "\n";
  return out;
}

}  // namespace

std::string RenderTask(const model::TaskResult& r, const report::Texts& t) {
  const model::TaskRule& rule = r.rule;
  std::string out = Tr(t, "gpus.task.title", fmt::arg("task", rule.id), fmt::arg("title", t.Get("task." + rule.id))) + "\n";
  std::string split = rule.smallest_tensor_parallel ? t.Get("gpus.task.split_smallest")
                                                    : Tr(t, "gpus.task.split", fmt::arg("gpus", rule.tensor_parallel));
  out += "  " + Tr(t, "gpus.task.job", fmt::arg("mode", t.Get("plan.mode." + model::JobModeName(rule.mode))),
                   fmt::arg("params", FormatParams(t, rule.params)), fmt::arg("dtype", model::DTypeName(rule.dtype)),
                   fmt::arg("seq", rule.seq), fmt::arg("batch", rule.batch), fmt::arg("split", split)) + "\n";
  out += "  " + Tr(t, "gpus.task.same_as", fmt::arg("command", PlanCommand(rule, rule.smallest_tensor_parallel ? 1 : rule.tensor_parallel, t.Get("gpus.task.gpu_placeholder")))) + "\n";
  int eligible = 0, fitting = 0;
  for (const auto& c : r.evaluated) {
    eligible += c.eligible;
    fitting += c.eligible && c.fits;
  }
  out += "  " + t.Get("task." + rule.id + ".rule") + "\n";
  out += "  " + Tr(t, "gpus.task.counts", fmt::arg("fit", fitting), fmt::arg("eligible", eligible),
                   fmt::arg("all", r.evaluated.size())) + "\n";
  out += "  " + t.Get("gpus.units") + "\n\n";
  if (r.picks.empty()) return out + "  " + t.Get("gpus.task.none") + "\n";
  out += t.Get("gpus.task.by." + model::RankByName(rule.rank_by)) + "\n";
  int rank = 1;
  for (size_t i : r.picks) out += Pick(t, rank++, r.evaluated[i]);
  out += "\n";
  if (r.by_cost.empty()) {
    out += t.Get("gpus.task.no_prices") + "\n";
  } else {
    out += Tr(t, "gpus.task.by_cost", fmt::arg("tokens", t.Get(rule.mode == model::JobMode::kInfer ? "gpus.tokens.output"
                                                                                                    : "gpus.tokens.training"))) + "\n";
    rank = 1;
    for (size_t i : r.by_cost) out += Pick(t, rank++, r.evaluated[i]);
  }
  out += "\n" + t.Get("gpus.task.footer") + "\n";
  return out;
}

json TaskToJson(const model::TaskResult& r, const report::Texts& t) {
  const model::TaskRule& rule = r.rule;
  auto doc = report::MakeDocument("gpus_task");
  doc["task"] = rule.id;
  doc["title"] = t.Get("task." + rule.id);
  doc["rank_by"] = model::RankByName(rule.rank_by);
  doc["reference_job"] = {{"params", rule.params}, {"mode", model::JobModeName(rule.mode)},
                          {"dtype", model::DTypeName(rule.dtype)}, {"seq", rule.seq}, {"batch", rule.batch},
                          {"activation_checkpointing", rule.checkpointing},
                          {"tensor_parallel", rule.smallest_tensor_parallel ? json(nullptr) : json(rule.tensor_parallel)},
                          {"smallest_tensor_parallel", rule.smallest_tensor_parallel},
                          {"plan_command", PlanCommand(rule, rule.smallest_tensor_parallel ? 1 : rule.tensor_parallel)}};
  doc["rule"] = {{"nvidia_only", rule.nvidia_only}, {"pcie_card_only", rule.pcie_card_only},
                 {"max_tdp_watts", rule.max_tdp_watts}};
  auto candidate = [&](const model::TaskCandidate& c) {
    json reasons = json::array();
    for (const auto& reason : c.reasons) reasons.push_back(Say(t, reason));
    return json{{"gpu", c.gpu->name}, {"eligible", c.eligible}, {"fits", c.fits}, {"gpus", c.gpus},
                {"tensor_parallel", c.job.tensor_parallel}, {"total_bytes", c.total_bytes}, {"usable_bytes", c.usable_bytes},
                {"score", c.score}, {"decode_tokens_per_s_per_stream_bound", c.decode_per_stream},
                {"serving_tokens_per_s_bound", c.serving_tokens_per_s}, {"max_sequences", c.max_sequences},
                {"training_tokens_per_s_bound", c.training_tokens_per_s}, {"communication_seconds", c.comm_seconds},
                {"price", PriceJson(c.price)},
                {"usd_per_million_tokens", c.usd_per_million_tokens > 0 ? json(c.usd_per_million_tokens) : json(nullptr)},
                {"figures", GpuFiguresJson(*c.gpu, t)}, {"reasons", reasons}};
  };
  doc["picks"] = json::array();
  for (size_t i : r.picks) doc["picks"].push_back(candidate(r.evaluated[i]));
  doc["by_cost"] = json::array();
  for (size_t i : r.by_cost) doc["by_cost"].push_back(candidate(r.evaluated[i]));
  doc["evaluated"] = json::array();
  for (const auto& c : r.evaluated) {
    doc["evaluated"].push_back({{"gpu", c.gpu->name}, {"eligible", c.eligible}, {"fits", c.fits},
                                {"tensor_parallel", c.job.tensor_parallel}, {"total_bytes", c.total_bytes},
                                {"usable_bytes", c.usable_bytes}});
  }
  return doc;
}

}  // namespace gpuprobe::cli
