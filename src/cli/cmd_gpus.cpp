// `gpuprobe gpus [show NAME | compare A B [C...] | links] [--task TASK] [--json]`
#include "cli/cmd_gpus.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/command.h"
#include "cli/gpu_choice_note.h"
#include "cli/gpus_view.h"
#include "cli/price_json.h"
#include "core/spelling.h"
#include "knowledge/embedded_knowledge.h"
#include "report/json_document.h"

namespace gpuprobe::cli {
namespace {


struct GpusOptions {
  std::vector<std::string> words;  // action then names
  std::string task;
  std::vector<std::string> prices;
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

// `gpus show NAME` (or a name alone): the card, and which card a short name chose.
core::Result<core::ExitCode> ShowOne(VerbContext& ctx, const model::SpecDatabase& db, const std::string& query,
                                     const model::GpuSpec& gpu) {
  std::vector<std::string> others = OtherVariantNames(db, query, gpu);
  if (ctx.options.json) {
    auto doc = report::MakeDocument("gpu");
    doc["gpu"] = GpuToJson(gpu, ctx.texts);
    doc["gpu_choice"] = GpuChoiceJson(query, gpu.name, others);
    doc["healthy"] = HealthyFiguresJson(gpu);
    ctx.out << report::RenderJson(doc);
  } else {
    std::string note = GpuChoiceNote(query, gpu.name, others, ctx.texts);
    ctx.out << (note.empty() ? "" : note + "\n") << RenderGpuShow(gpu, ctx.texts);
  }
  return core::ExitCode::kOk;
}

core::Result<core::ExitCode> RunGpus(VerbContext& ctx, const GpusOptions& options) {
  auto db_result = knowledge::Specs();
  if (!db_result.ok()) return db_result.status();
  const model::SpecDatabase& db = **db_result;
  const auto& t = ctx.texts;

  if (!options.task.empty()) {
    if (!options.words.empty()) {
      return core::Status::InvalidArgument("--task lists GPUs for a task; it takes no action or GPU names")
          .WithKeys("error.gpus.task_alone", {});
    }
    auto rule = model::FindTaskRule(options.task);
    if (!rule.ok()) return rule.status();
    auto prices = knowledge::PricesWithOverrides(options.prices);
    if (!prices.ok()) return prices.status();
    auto result = model::SelectGpus(db, *rule, &*prices);
    if (!result.ok()) return result.status();
    ctx.out << (ctx.options.json ? report::RenderJson(TaskToJson(*result, t)) : RenderTask(*result, t));
    return core::ExitCode::kOk;
  }
  if (!options.prices.empty()) return core::Status::InvalidArgument("--price goes with --task (it ranks the picks by cost)")
      .WithKeys("error.gpus.price_needs_task", {});

  std::string action = options.words.empty() ? "" : options.words.front();
  std::vector<std::string> names(options.words.size() > 1 ? options.words.begin() + 1 : options.words.end(),
                                 options.words.end());
  if (action.empty()) {
    if (ctx.options.json) {
      auto doc = report::MakeDocument("gpus");
      doc["gpus"] = nlohmann::json::array();
      for (const auto& g : db.gpus()) doc["gpus"].push_back(GpuToJson(g, t));
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
    if (!names.empty()) return core::Status::InvalidArgument("'gpus links' takes no GPU names")
        .WithKeys("error.gpus.links_no_names", {});
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
                                                         : "'gpus show' takes one GPU; use 'gpus compare A B' for several")
          .WithKeys(names.empty() ? "error.gpus.show_needs_name" : "error.gpus.show_one", {});
    }
    if (action == "compare" && names.size() < 2) {
      return core::Status::InvalidArgument("'gpus compare' needs at least two GPUs, e.g. gpuprobe gpus compare a100-80gb h100")
          .WithKeys("error.gpus.compare_two", {});
    }
    auto gpus = FindAll(db, names);
    if (!gpus.ok()) return gpus.status();
    if (action == "show") return ShowOne(ctx, db, names.front(), *gpus->front());
    if (ctx.options.json) {
      auto doc = report::MakeDocument("gpus_compare");
      doc["gpus"] = nlohmann::json::array();
      doc["gpu_choices"] = nlohmann::json::array();
      for (size_t i = 0; i < gpus->size(); ++i) {
        doc["gpus"].push_back(GpuToJson(*(*gpus)[i], t));
        auto choice = GpuChoiceJson(names[i], (*gpus)[i]->name, OtherVariantNames(db, names[i], *(*gpus)[i]));
        if (!choice.is_null()) doc["gpu_choices"].push_back(choice);
      }
      ctx.out << report::RenderJson(doc);
    } else {
      for (size_t i = 0; i < gpus->size(); ++i) {
        ctx.out << GpuChoiceNote(names[i], (*gpus)[i]->name, OtherVariantNames(db, names[i], *(*gpus)[i]), t);
      }
      ctx.out << RenderGpuCompare(*gpus, t);
    }
    return core::ExitCode::kOk;
  }
  // Not an action: a GPU name alone means "show it"; otherwise suggest.
  if (names.empty()) {
    auto found = db.Find(action);
    if (found.ok()) return ShowOne(ctx, db, action, **found);
    if (db.Candidates(action).size() > 1) return found.status();
  }
  auto near = core::ClosestMatches(action, {"show", "compare", "links"});
  std::string message = fmt::format("unknown action '{}' for gpus", action);
  if (!near.empty()) message += fmt::format("; did you mean '{}'?", near.front());
  return core::Status::InvalidArgument(message, "actions: show NAME, compare A B, links; run 'gpuprobe gpus --help'")
      .WithKeys(near.empty() ? "error.gpus.unknown_action" : "error.gpus.unknown_action_near",
                {{"action", action}, {"near", near.empty() ? std::string() : near.front()}}, "error.gpus.unknown_action.hint");
}

}  // namespace

VerbRunner SetupGpusVerb(CLI::App* command) {
  auto options = std::make_shared<GpusOptions>();
  command->add_option("action", options->words, "show | compare | links, then GPU names")->expected(0, -1);
  command->add_option("--task", options->task,
                      "pick GPUs for a job: prototype, inference-7b-13b, fine-tune, large-training, llm-serving");
  command->add_option("--price", options->prices, "GPU=USD/h, one GPU-hour's price (repeatable; with --task)");
  return [options](VerbContext& ctx) { return RunGpus(ctx, *options); };
}

}  // namespace gpuprobe::cli
