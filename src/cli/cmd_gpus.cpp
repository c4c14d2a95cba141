// `gpuprobe gpus [show NAME | compare A B [C...] | links] [--task TASK] [--json]`
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/command.h"
#include "cli/gpus_view.h"
#include "summary/spec_data.h"
#include "core/spelling.h"
#include "report/json_document.h"

namespace gpuprobe::cli {
namespace {

constexpr const char* kFooter = R"(Actions:
  (none)                 every GPU of the database, one line each
  show NAME              one GPU: every figure with the formula or source behind it
  compare A B [C ...]    side by side, with ratios against the first
  links                  host links: DDR channels and PCIe generations per direction

NAME is an exact name, an alias, a partial name or a PCI device id:
  h200, "H100 SXM", a100-80gb, 4090, 0x2335, 10de:2330

Examples:
  gpuprobe gpus
  gpuprobe gpus show h200
  gpuprobe gpus compare a100-80gb h100 h200
  gpuprobe gpus --task llm-serving
  gpuprobe gpus show 4090 --json

Tasks: prototype, inference-7b-13b, fine-tune, large-training, llm-serving)";

struct GpusOptions {
  std::vector<std::string> words;  // action then names
  std::string task;
};

core::Result<std::vector<const model::GpuSpec*>> FindAll(const model::SpecDatabase& db,
                                                         const std::vector<std::string>& names) {
  std::vector<const model::GpuSpec*> out;
  for (const auto& name : names) {
    auto found = db.Find(name);
    if (!found.ok()) return found.status();
    out.push_back(*found);
  }
  return out;
}

core::Result<core::ExitCode> RunGpus(VerbContext& ctx, const GpusOptions& options) {
  auto db_result = summary::EmbeddedSpecDatabase();
  if (!db_result.ok()) return db_result.status();
  const model::SpecDatabase& db = **db_result;
  const auto& t = ctx.texts;

  if (!options.task.empty()) {
    if (!options.words.empty()) {
      return core::Status::InvalidArgument("--task lists GPUs for a task; it takes no action or GPU names");
    }
    auto rule = model::FindTaskRule(options.task);
    if (!rule.ok()) return rule.status();
    auto picks = model::SelectGpus(db, *rule);
    if (ctx.options.json) {
      auto doc = report::MakeDocument("gpus_task");
      doc["task"] = rule->id;
      doc["title"] = rule->title;
      doc["rule"] = {{"min_memory_gb", rule->min_memory_gb}, {"needs_nvlink", rule->needs_nvlink},
                     {"pcie_card_only", rule->pcie_card_only}, {"nvidia_only", rule->nvidia_only},
                     {"max_tdp_watts", rule->max_tdp_watts}};
      doc["picks"] = nlohmann::json::array();
      for (const auto& pick : picks) {
        doc["picks"].push_back({{"gpu", pick.gpu->name}, {"score", pick.score}, {"reasons", pick.reasons}});
      }
      ctx.out << report::RenderJson(doc);
    } else {
      ctx.out << RenderTask(*rule, picks, t);
    }
    return core::ExitCode::kOk;
  }

  std::string action = options.words.empty() ? "" : options.words.front();
  std::vector<std::string> names(options.words.size() > 1 ? options.words.begin() + 1 : options.words.end(),
                                 options.words.end());
  if (action.empty()) {
    if (ctx.options.json) {
      auto doc = report::MakeDocument("gpus");
      doc["gpus"] = nlohmann::json::array();
      for (const auto& g : db.gpus()) doc["gpus"].push_back(GpuToJson(g));
      doc["host_links"] = nlohmann::json::array();
      for (const auto& link : db.host_links()) {
        doc["host_links"].push_back(
            {{"name", link.name}, {"kind", link.kind},
             {"peak_bytes_per_s", link.peak_bandwidth_gb_per_s ? nlohmann::json(*link.peak_bandwidth_gb_per_s * 1e9) : nlohmann::json(nullptr)},
             {"vendor_quoted_bytes_per_s", link.vendor_quoted_gb_per_s ? nlohmann::json(*link.vendor_quoted_gb_per_s * 1e9) : nlohmann::json(nullptr)},
             {"direction", link.direction}, {"notes", link.notes}});
      }
      ctx.out << report::RenderJson(doc);
    } else {
      ctx.out << RenderGpuList(db, t);
    }
    return core::ExitCode::kOk;
  }
  if (action == "links") {
    if (!names.empty()) return core::Status::InvalidArgument("'gpus links' takes no GPU names");
    if (ctx.options.json) {
      auto doc = report::MakeDocument("host_links");
      doc["host_links"] = nlohmann::json::array();
      for (const auto& link : db.host_links()) {
        doc["host_links"].push_back({{"name", link.name},
                                     {"peak_bytes_per_s", link.peak_bandwidth_gb_per_s ? nlohmann::json(*link.peak_bandwidth_gb_per_s * 1e9) : nlohmann::json(nullptr)},
                                     {"direction", link.direction}});
      }
      ctx.out << report::RenderJson(doc);
    } else {
      ctx.out << RenderHostLinks(db, t);
    }
    return core::ExitCode::kOk;
  }
  if (action == "show" || action == "compare") {
    if (action == "show" && names.size() != 1) {
      return core::Status::InvalidArgument(names.empty() ? "'gpus show' needs a GPU name, e.g. gpuprobe gpus show h200"
                                                         : "'gpus show' takes one GPU; use 'gpus compare A B' for several");
    }
    if (action == "compare" && names.size() < 2) {
      return core::Status::InvalidArgument("'gpus compare' needs at least two GPUs, e.g. gpuprobe gpus compare a100-80gb h100");
    }
    auto gpus = FindAll(db, names);
    if (!gpus.ok()) return gpus.status();
    if (ctx.options.json) {
      auto doc = report::MakeDocument(action == "show" ? "gpu" : "gpus_compare");
      if (action == "show") {
        doc["gpu"] = GpuToJson(*gpus->front());
      } else {
        doc["gpus"] = nlohmann::json::array();
        for (const auto* g : *gpus) doc["gpus"].push_back(GpuToJson(*g));
      }
      ctx.out << report::RenderJson(doc);
    } else {
      ctx.out << (action == "show" ? RenderGpuShow(*gpus->front(), t) : RenderGpuCompare(*gpus, t));
    }
    return core::ExitCode::kOk;
  }
  // Not an action: a GPU name alone means "show it"; otherwise suggest.
  if (names.empty()) {
    auto found = db.Find(action);
    if (found.ok()) {
      if (ctx.options.json) {
        auto doc = report::MakeDocument("gpu");
        doc["gpu"] = GpuToJson(**found);
        ctx.out << report::RenderJson(doc);
      } else {
        ctx.out << RenderGpuShow(**found, t);
      }
      return core::ExitCode::kOk;
    }
    if (db.Candidates(action).size() > 1) return found.status();
  }
  auto near = core::ClosestMatches(action, {"show", "compare", "links"});
  std::string message = fmt::format("unknown action '{}' for gpus", action);
  if (!near.empty()) message += fmt::format("; did you mean '{}'?", near.front());
  return core::Status::InvalidArgument(message, "actions: show NAME, compare A B, links; run 'gpuprobe gpus --help'");
}

}  // namespace

VerbRunner SetupGpusVerb(CLI::App* command) {
  auto options = std::make_shared<GpusOptions>();
  command->footer(kFooter);
  command->add_option("action", options->words, "show | compare | links, then GPU names")->expected(0, -1);
  command->add_option("--task", options->task,
                      "pick GPUs for a job: prototype, inference-7b-13b, fine-tune, large-training, llm-serving");
  return [options](VerbContext& ctx) { return RunGpus(ctx, *options); };
}

}  // namespace gpuprobe::cli
