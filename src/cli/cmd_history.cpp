// `gpuprobe history`: the runs saved by `bench --save`, and `history compare A B`: what got
// faster or slower between two runs, decided with each result's spread (a CI gate with
// --fail-on-regression).
#include "cli/cmd_history.h"

#include <charconv>
#include <filesystem>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/bench_view.h"
#include "cli/command.h"
#include "core/units.h"
#include "history/compare.h"
#include "history/history_store.h"
#include "report/case_label.h"
#include "report/json_document.h"
#include "report/table.h"

namespace gpuprobe::cli {
namespace {


struct HistoryOptions {
  std::vector<std::string> words;
  std::string db;
  double fail_on_regression = -1;
};

bench::Metric MetricFromName(const std::string& name) {
  if (name == "flops") return bench::Metric::kFlops;
  if (name == "ops") return bench::Metric::kOps;
  if (name == "latency") return bench::Metric::kLatency;
  return bench::Metric::kBandwidth;
}

core::Result<long long> RunId(const std::string& text) {
  long long id = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (error != std::errc() || end != text.data() + text.size() || id <= 0) {
    return core::Status::InvalidArgument(fmt::format("'{}' is not a run id (a positive number from 'gpuprobe history')", text))
        .WithKeys("history.error.run_id", {{"text", text}});
  }
  return id;
}

core::Result<core::ExitCode> List(VerbContext& ctx, const history::HistoryStore& store) {
  auto runs = store.List();
  if (!runs.ok()) return runs.status();
  if (ctx.options.json) {
    nlohmann::json doc = report::MakeDocument("history");
    doc["path"] = store.path();
    doc["runs"] = nlohmann::json::array();
    for (const auto& r : *runs) {
      doc["runs"].push_back({{"id", r.id}, {"recorded_at", r.recorded_at}, {"host", r.host}, {"cpu", r.cpu}, {"gpus", r.gpus},
                             {"mode", r.mode}, {"gpuprobe_version", r.version}, {"results", r.results}});
    }
    ctx.out << report::RenderJson(doc);
    return core::ExitCode::kOk;
  }
  ctx.out << Tr(ctx.texts, "history.title", fmt::arg("path", store.path())) << "\n\n";
  if (runs->empty()) {
    ctx.out << Tr(ctx.texts, "history.empty") << "\n";
    return core::ExitCode::kOk;
  }
  const report::Texts& t = ctx.texts;
  report::TextTable table({t.Get("history.col.run"), t.Get("history.col.recorded"), t.Get("history.col.host"), t.Get("history.col.mode"),
                           t.Get("history.col.results"), t.Get("history.col.machine")});
  table.SetAlign(0, report::Align::kRight);
  table.SetAlign(4, report::Align::kRight);
  for (const auto& r : *runs) {
    std::string mode_key = "history.mode." + r.mode;
    table.AddRow({std::to_string(r.id), r.recorded_at, r.host, t.Has(mode_key) ? t.Get(mode_key) : r.mode, std::to_string(r.results),
                  r.cpu + (r.gpus.empty() ? "" : "; " + r.gpus)});
  }
  ctx.out << table.Render(2) << "\n" << Tr(ctx.texts, "history.next") << "\n";
  return core::ExitCode::kOk;
}

core::Result<core::ExitCode> Compare(VerbContext& ctx, const history::HistoryStore& store, const HistoryOptions& o) {
  long long before_id = 0, after_id = 0;
  if (o.words.size() > 3) {
    return core::Status::InvalidArgument("compare takes at most two run ids").WithKeys("history.error.too_many_ids", {});
  }
  if (o.words.size() == 3) {
    GPUPROBE_ASSIGN_OR_RETURN(before_id, RunId(o.words[1]));
    GPUPROBE_ASSIGN_OR_RETURN(after_id, RunId(o.words[2]));
  } else {
    auto runs = store.List();
    if (!runs.ok()) return runs.status();
    if (o.words.size() == 2) {
      GPUPROBE_ASSIGN_OR_RETURN(before_id, RunId(o.words[1]));
      if (runs->empty()) {
        return core::Status::InvalidArgument("the history is empty", "save a run first: gpuprobe bench --save")
            .WithKeys("history.error.empty", {}, "history.error.save_first_hint");
      }
      after_id = runs->back().id;
    } else {
      if (runs->size() < 2) {
        return core::Status::InvalidArgument(fmt::format("compare needs two runs; the history has {}", runs->size()),
                                             "save another: gpuprobe bench --save")
            .WithKeys("history.error.needs_two", {{"count", std::to_string(runs->size())}}, "history.error.save_another_hint");
      }
      before_id = (*runs)[runs->size() - 2].id;
      after_id = runs->back().id;
    }
  }
  auto before = store.Load(before_id);
  if (!before.ok()) return before.status();
  auto after = store.Load(after_id);
  if (!after.ok()) return after.status();
  history::RunComparison cmp = history::CompareRuns(*before, *after);
  std::optional<double> worst = history::WorstRegression(cmp);
  bool gate = o.fail_on_regression >= 0 && worst && *worst * 100 > o.fail_on_regression;

  if (ctx.options.json) {
    nlohmann::json doc = report::MakeDocument("history_compare");
    doc["before"] = {{"id", before->id}, {"recorded_at", before->recorded_at}, {"host", before->host}};
    doc["after"] = {{"id", after->id}, {"recorded_at", after->recorded_at}, {"host", after->host}};
    doc["changes"] = nlohmann::json::array();
    for (const auto& c : cmp.changes) {
      doc["changes"].push_back({{"id", c.id}, {"backend", c.backend}, {"case", c.case_label}, {"metric", c.metric}, {"unit", c.unit},
                                {"before", c.before}, {"after", c.after}, {"speedup", c.speedup}, {"verdict", history::VerdictName(c.verdict)},
                                {"threads_before", c.threads_before}, {"threads_after", c.threads_after}, {"threads_differ", c.threads_differ}});
    }
    doc["only_before"] = cmp.only_before;
    doc["only_after"] = cmp.only_after;
    doc["worst_regression"] = worst ? nlohmann::json(*worst) : nlohmann::json(nullptr);
    doc["regression_gate_failed"] = gate;
    ctx.out << report::RenderJson(doc);
  } else {
    ctx.out << Tr(ctx.texts, "history.compare_title", fmt::arg("before", before->id), fmt::arg("before_at", before->recorded_at),
                  fmt::arg("after", after->id), fmt::arg("after_at", after->recorded_at))
            << "\n";
    if (before->host != after->host || before->cpu != after->cpu) {
      ctx.out << Tr(ctx.texts, "history.different_machines", fmt::arg("before", before->host + ", " + before->cpu),
                    fmt::arg("after", after->host + ", " + after->cpu))
              << "\n";
    }
    ctx.out << "\n";
    const report::Texts& t = ctx.texts;
    report::TextTable table({t.Get("history.col.benchmark"), t.Get("history.col.backend"), t.Get("history.col.case"),
                             t.Get("history.col.before"), t.Get("history.col.after"), t.Get("history.col.change"),
                             t.Get("history.col.verdict")});
    for (size_t c : {3, 4, 5}) table.SetAlign(c, report::Align::kRight);
    int counts[4] = {0, 0, 0, 0};
    int threads_differ = 0;
    for (const auto& c : cmp.changes) {
      bench::Metric metric = MetricFromName(c.metric);
      double percent = (c.speedup - 1) * 100;
      std::string verdict = t.Get(std::string("history.verdict.") + history::VerdictName(c.verdict));
      if (c.threads_differ) {
        verdict += " " + Tr(t, "history.threads_changed", fmt::arg("before", c.threads_before), fmt::arg("after", c.threads_after));
      }
      table.AddRow({c.id, c.backend, report::CaseLabelText(c.case_label, t), FormatMetricValue(metric, c.before),
                    FormatMetricValue(metric, c.after), fmt::format("{:+.1f}%", percent), verdict});
      ++counts[static_cast<int>(c.verdict)];
      if (c.threads_differ) ++threads_differ;
    }
    ctx.out << table.Render(2) << "\n";
    ctx.out << Tr(ctx.texts, "history.summary", fmt::arg("faster", counts[0]), fmt::arg("slower", counts[1]), fmt::arg("same", counts[2]),
                  fmt::arg("unclear", counts[3]))
            << "\n";
    if (threads_differ > 0) ctx.out << Tr(ctx.texts, "history.threads_differ", fmt::arg("count", threads_differ)) << "\n";
    if (!cmp.only_before.empty() || !cmp.only_after.empty()) {
      ctx.out << Tr(ctx.texts, "history.unmatched", fmt::arg("before", cmp.only_before.size()), fmt::arg("after", cmp.only_after.size()))
              << "\n";
    }
    if (o.fail_on_regression >= 0) {
      ctx.out << (gate ? Tr(ctx.texts, "history.gate_failed", fmt::arg("worst", *worst * 100), fmt::arg("limit", o.fail_on_regression))
                       : Tr(ctx.texts, "history.gate_passed", fmt::arg("limit", o.fail_on_regression)))
              << "\n";
    }
  }
  return gate ? core::ExitCode::kProblemsFound : core::ExitCode::kOk;
}

core::Result<core::ExitCode> RunHistory(VerbContext& ctx, const HistoryOptions& o) {
  std::string action = o.words.empty() ? "list" : o.words.front();
  if (action != "list" && action != "compare") {
    return core::Status::InvalidArgument(fmt::format("unknown action '{}': use 'gpuprobe history' or 'gpuprobe history compare [A B]'", action))
        .WithKeys("history.error.unknown_action", {{"action", action}});
  }
  if (action == "list" && o.words.size() > 1) {
    return core::Status::InvalidArgument("'history list' takes no arguments").WithKeys("history.error.list_arguments", {});
  }
  if (o.fail_on_regression != -1 && (o.fail_on_regression < 0 || o.fail_on_regression > 1000)) {
    return core::Status::InvalidArgument("--fail-on-regression takes a percentage between 0 and 1000")
        .WithKeys("history.error.gate_range", {});
  }
  if (o.fail_on_regression >= 0 && action != "compare") {
    return core::Status::InvalidArgument("--fail-on-regression goes with 'compare'").WithKeys("history.error.gate_without_compare", {});
  }
  std::string path = o.db.empty() ? history::DefaultHistoryPath() : o.db;
  std::error_code ec;
  if (action == "list" && o.db.empty() && !std::filesystem::exists(path, ec)) {
    // Nothing saved yet is not an error for the default history: say how to start one.
    if (ctx.options.json) {
      nlohmann::json doc = report::MakeDocument("history");
      doc["path"] = path;
      doc["runs"] = nlohmann::json::array();
      ctx.out << report::RenderJson(doc);
    } else {
      ctx.out << Tr(ctx.texts, "history.title", fmt::arg("path", path)) << "\n\n" << Tr(ctx.texts, "history.empty") << "\n";
    }
    return core::ExitCode::kOk;
  }
  auto store = history::HistoryStore::Open(path, false);
  if (!store.ok()) return store.status();
  return action == "list" ? List(ctx, *store) : Compare(ctx, *store, o);
}

}  // namespace

VerbRunner SetupHistoryVerb(CLI::App* command) {
  auto o = std::make_shared<HistoryOptions>();
  command->add_option("action", o->words, "list (default) or compare [BEFORE [AFTER]]");
  command->add_option("--db", o->db, "history file (default $XDG_DATA_HOME/gpuprobe/history.db)");
  command->add_option("--fail-on-regression", o->fail_on_regression, "with compare: exit 1 if a result is SLOWER by more than PCT percent");
  return [o](VerbContext& ctx) { return RunHistory(ctx, *o); };
}

}  // namespace gpuprobe::cli
