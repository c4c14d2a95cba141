// `gpuprobe bench [ID|GROUP|PREFIX ...]`: measure the claims of the mental model on the CPU
// and the GPU in one run, each beside the model's prediction.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <optional>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "bench/pipeline.h"
#include "bench/registry.h"
#include "bench/run_plan.h"
#include "cli/bench_view.h"
#include "cli/command.h"
#include "core/units.h"
#include "history/history_store.h"
#include "report/json_document.h"
#include "report/table.h"

namespace gpuprobe::cli {
namespace {

constexpr const char* kFooter = R"(Selection: ids (memory.triad), groups (memory) or id prefixes (matmul.open); default all.

Examples:
  gpuprobe bench                       the quick run: every suite, CPU (and GPU where there is one)
  gpuprobe bench --list                every benchmark id with what it shows
  gpuprobe bench memory compute        two groups
  gpuprobe bench memory.triad --threads 1
  gpuprobe bench --full --csv > sweep.csv
  gpuprobe bench --backend cpu --json > cpu.json
  gpuprobe bench --save                record the run; 'gpuprobe history compare' shows what changed

Every result is verified, predicted from the model (spec, caches, clock) and shown with its
efficiency = measured / predicted (latency: predicted / measured). No result is a pass/fail
speed test; the exit status is 1 only when a result is wrong or a case failed to run.)";

struct BenchOptions {
  std::vector<std::string> patterns;
  bool list = false, full = false, quick = false, csv = false;
  std::string backend = "all";
  int threads = 0;
  std::string size;
  double seconds = 0;
  bool save = false;
  std::string db;  ///< empty: the default history path
};

core::ExitCode PrintList(VerbContext& ctx, const bench::BenchmarkRegistry& registry) {
  if (ctx.options.json) {
    auto doc = report::MakeDocument("bench_list");
    doc["benchmarks"] = nlohmann::json::array();
    for (const auto& b : registry.all()) {
      const auto& i = b->Info();
      doc["benchmarks"].push_back({{"id", i.id}, {"group", i.group}, {"description", i.description},
                                   {"claim", i.claim}, {"backends", i.backends}, {"metric", bench::MetricName(i.metric)}});
    }
    ctx.out << report::RenderJson(doc);
    return core::ExitCode::kOk;
  }
  report::TextTable table({"id", ctx.texts.Get("bench.list.backends"), ctx.texts.Get("bench.list.description")});
  for (const auto& b : registry.all()) {
    std::string list;
    for (const auto& name : b->Info().backends) list += (list.empty() ? "" : ",") + name;
    table.AddRow({b->Info().id, list, b->Info().description});
  }
  ctx.out << table.Render();
  return core::ExitCode::kOk;
}

// Flags to a pipeline request; every check that needs no measurement happens here, so a
// mistake costs a second, not a run.
core::Result<bench::PipelineRequest> RequestFrom(const BenchOptions& o) {
  if (o.full && o.quick) return core::Status::InvalidArgument("--quick and --full exclude each other");
  if (o.threads < 0 || o.threads > 4096) return core::Status::InvalidArgument("--threads must be between 1 and 4096");
  // Written so that NaN fails too.
  if (!(o.seconds >= 0 && o.seconds <= 3600)) return core::Status::InvalidArgument("--seconds must be between 0 and 3600");
  if (!o.db.empty() && !o.save) return core::Status::InvalidArgument("--db goes with --save");
  bench::PipelineRequest request;
  request.patterns = o.patterns;
  request.backend = o.backend;
  request.threads = o.threads;
  request.requested_seconds = o.seconds;
  request.settings.full = o.full;
  request.settings.runner = o.full ? bench::FullRunnerOptions() : bench::QuickRunnerOptions();
  if (o.seconds > 0) {
    request.settings.runner.max_seconds = o.seconds;
    request.settings.runner.min_seconds = std::min(request.settings.runner.min_seconds, o.seconds);
  }
  if (!o.size.empty()) {
    auto bytes = core::ParseBytes(o.size);
    if (!bytes.ok()) return bytes.status().WithContext("--size");
    if (*bytes <= 0) return core::Status::InvalidArgument("--size must be positive");
    if (*bytes > 1e13) return core::Status::InvalidArgument("--size is absurd: more than 10 TB");
    request.settings.size_override = static_cast<std::uint64_t>(*bytes);
  }
  return request;
}

std::function<void(const bench::CaseProgress&)> ProgressPrinter() {
  bool terminal = isatty(STDERR_FILENO) != 0;
  return [terminal](const bench::CaseProgress& p) {
    if (terminal) {
      int width = 30;
      int filled = p.total > 0 ? p.index * width / p.total : 0;
      std::fprintf(stderr, "\r[%s%s] %d/%d %-40.40s", std::string(static_cast<size_t>(filled), '#').c_str(),
                   std::string(static_cast<size_t>(width - filled), ' ').c_str(), p.index, p.total,
                   (p.id + " " + p.backend + " " + p.case_label).c_str());
    } else {
      std::fprintf(stderr, "bench: %d/%d %s (%s, %s)\n", p.index, p.total, p.id.c_str(), p.backend.c_str(), p.case_label.c_str());
    }
    std::fflush(stderr);
  };
}

core::Result<core::ExitCode> RunBench(VerbContext& ctx, const BenchOptions& o) {
  bench::BenchmarkRegistry registry;
  bench::RegisterAllBenchmarks(&registry);
  GPUPROBE_RETURN_IF_ERROR(registry.status());
  if (o.list) return PrintList(ctx, registry);

  auto request = RequestFrom(o);
  if (!request.ok()) return request.status();
  auto selection = bench::SelectForRequest(registry, *request);
  if (!selection.ok()) return selection.status();
  // Open the history before measuring: a bad --db fails in a second, not after the run.
  std::optional<history::HistoryStore> store;
  if (o.save) {
    auto opened = history::HistoryStore::Open(o.db.empty() ? history::DefaultHistoryPath() : o.db, true);
    if (!opened.ok()) return opened.status().WithContext("--save");
    store = std::move(opened.value());
  }

  std::unique_ptr<bench::BenchHost> host = bench::MachineHost();
  auto report = bench::RunPipeline(registry, *host, *request, ProgressPrinter());
  if (isatty(STDERR_FILENO) != 0) std::fprintf(stderr, "\r%80s\r", "");
  if (!report.ok()) return report.status();
  // A selection that cannot run here (GPU benchmarks on a machine without a GPU) is exit 3
  // with what is missing, not "0 of 0 verified" and exit 0.
  bool any_ran = false;
  std::string skip_reason = report->gpu_absent_reason;
  for (const auto& r : report->results) {
    if (!r.skipped) any_ran = true;
    if (r.skipped && skip_reason.empty()) skip_reason = r.skip_reason;
  }
  if (!any_ran) {
    return core::Status::Unavailable(
        Tr(ctx.texts, "bench.none_ran", fmt::arg("reason", skip_reason.empty() ? ctx.texts.Get("common.unknown") : skip_reason)),
        "gpuprobe bench --list");
  }

  nlohmann::json document = BenchToJson(*report, ctx.texts);
  if (ctx.options.json) {
    ctx.out << report::RenderJson(document);
  } else if (o.csv) {
    ctx.out << BenchToCsv(*report);
  } else {
    ctx.out << RenderBench(*report, ctx.texts);
  }
  bool problems = false;
  for (const auto& r : report->results) {
    if (!r.skipped && (!r.error.empty() || !r.verified)) problems = true;
  }
  if (store) {
    auto id = store->Save(history::RunFromBenchDocument(*report), document.dump());
    if (!id.ok()) return id.status();
    ctx.err << Tr(ctx.texts, "history.saved", fmt::arg("id", *id), fmt::arg("path", store->path())) << "\n";
  }
  return problems ? core::ExitCode::kProblemsFound : core::ExitCode::kOk;
}

}  // namespace

VerbRunner SetupBenchVerb(CLI::App* command) {
  auto o = std::make_shared<BenchOptions>();
  command->footer(kFooter);
  command->add_option("benchmarks", o->patterns, "ids, groups or id prefixes (default: all)");
  command->add_flag("--list", o->list, "list every benchmark id and what it shows");
  command->add_flag("--quick", o->quick, "short run, default sizes (the default)");
  command->add_flag("--full", o->full, "longer runs and complete sweeps");
  command->add_option("--backend", o->backend, "cpu, cuda or all (default: all that exist here)");
  command->add_option("--threads", o->threads, "CPU worker threads (default: one per physical core)");
  command->add_option("--size", o->size, "working set per array, e.g. 256MiB (matmul: the matrix order, e.g. 1024)");
  command->add_option("--seconds", o->seconds, "time cap per case in seconds (default 0.4 quick, 3 full); burn: how long to load the GPU");
  command->add_flag("--csv", o->csv, "print CSV rows (for sweeps) instead of the table");
  command->add_flag("--save", o->save, "record this run in the history (see 'gpuprobe history')");
  command->add_option("--db", o->db, "history file for --save (default $XDG_DATA_HOME/gpuprobe/history.db)");
  return [o](VerbContext& ctx) { return RunBench(ctx, *o); };
}

}  // namespace gpuprobe::cli
