// `gpuprobe bench [ID|GROUP|PREFIX ...]`: measure the claims of the mental model on the CPU
// and the GPU in one run, each beside the model's prediction.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "bench/cpu/cpu_context.h"
#include "bench/cpu/cpu_facts.h"
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

core::Result<core::ExitCode> RunBench(VerbContext& ctx, const BenchOptions& o) {
  bench::BenchmarkRegistry registry;
  bench::RegisterAllBenchmarks(&registry);
  GPUPROBE_RETURN_IF_ERROR(registry.status());
  bench::BackendRegistry backends;
  bench::RegisterCpuBackend(&backends);
  bench::RegisterCudaBackend(&backends);

  if (o.list) {
    if (ctx.options.json) {
      auto doc = report::MakeDocument("bench_list");
      doc["benchmarks"] = nlohmann::json::array();
      for (const auto& b : registry.all()) {
        const auto& i = b->Info();
        doc["benchmarks"].push_back({{"id", i.id}, {"group", i.group}, {"description", i.description},
                                     {"claim", i.claim}, {"backends", i.backends}, {"metric", bench::MetricName(i.metric)}});
      }
      ctx.out << report::RenderJson(doc);
    } else {
      report::TextTable table({"id", ctx.texts.Get("bench.list.backends"), ctx.texts.Get("bench.list.description")});
      for (const auto& b : registry.all()) {
        std::string list;
        for (const auto& name : b->Info().backends) list += (list.empty() ? "" : ",") + name;
        table.AddRow({b->Info().id, list, b->Info().description});
      }
      ctx.out << table.Render();
    }
    return core::ExitCode::kOk;
  }
  if (o.full && o.quick) return core::Status::InvalidArgument("--quick and --full exclude each other");
  if (o.threads < 0 || o.threads > 4096) return core::Status::InvalidArgument("--threads must be between 1 and 4096");
  if (o.seconds < 0 || o.seconds > 3600) return core::Status::InvalidArgument("--seconds must be between 0 and 3600");
  if (o.backend != "all" && o.backend != "cpu" && o.backend != "cuda") {
    return core::Status::InvalidArgument("--backend must be cpu, cuda or all, got '" + o.backend + "'");
  }
  auto selection = registry.Select(o.patterns);
  if (!selection.ok()) return selection.status();
  if (!o.db.empty() && !o.save) return core::Status::InvalidArgument("--db goes with --save");
  // Open the history before measuring: a bad --db fails in a second, not after the run.
  std::optional<history::HistoryStore> store;
  if (o.save) {
    auto opened = history::HistoryStore::Open(o.db.empty() ? history::DefaultHistoryPath() : o.db, true);
    if (!opened.ok()) return opened.status().WithContext("--save");
    store = std::move(opened.value());
  }

  bench::BenchSettings settings;
  settings.full = o.full;
  settings.runner = o.full ? bench::FullRunnerOptions() : bench::QuickRunnerOptions();
  if (o.seconds > 0) {
    settings.runner.max_seconds = o.seconds;
    settings.runner.min_seconds = std::min(settings.runner.min_seconds, o.seconds);
  }
  if (!o.size.empty()) {
    auto bytes = core::ParseBytes(o.size);
    if (!bytes.ok()) return bytes.status().WithContext("--size");
    if (*bytes > 1e13) return core::Status::InvalidArgument("--size is absurd: more than 10 TB");
    settings.size_override = static_cast<std::uint64_t>(*bytes);
  }

  bench::BenchDocument report;
  report.full = o.full;
  std::vector<bench::BackendContext*> contexts;
  std::unique_ptr<bench::CpuContext> cpu;
  std::vector<std::unique_ptr<bench::BackendContext>> gpu_contexts;

  // The GPU first: asked for explicitly and missing is exit 3, before any CPU time is spent.
  bench::Backend* cuda = backends.Find("cuda");
  bench::Availability gpu = cuda->Probe();
  if (o.backend == "cuda" && !gpu.available) {
    return core::Status::Unavailable("no GPU to benchmark: " + gpu.reason, gpu.hint);
  }
  if (o.backend != "cpu") {
    if (gpu.available) {
      auto context = cuda->Open(0);
      if (!context.ok()) return context.status();
      report.gpus.push_back(fmt::format("GPU 0: {}", (*context)->Device().name));
      gpu_contexts.push_back(std::move(context.value()));
    } else {
      report.gpus.push_back(Tr(ctx.texts, "bench.no_gpu", fmt::arg("reason", gpu.reason)));
    }
  }

  cpu = bench::OpenCpuContext(o.threads);
  cpu->set_measured_clock_hz(bench::MeasureClockUnderLoad(cpu->pool(), cpu->Threads(), 0.3));
  report.cpu = cpu->spec();
  if (o.backend != "cuda") contexts.push_back(cpu.get());
  for (auto& g : gpu_contexts) contexts.push_back(g.get());
  for (auto* c : contexts) c->set_requested_seconds(o.seconds);

  bool terminal = isatty(STDERR_FILENO) != 0;
  auto progress = [&](const bench::CaseProgress& p) {
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
  auto start = std::chrono::steady_clock::now();
  report.results = bench::RunSelection(*selection, contexts, report.cpu, settings, progress);
  report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (terminal) std::fprintf(stderr, "\r%80s\r", "");

  nlohmann::json document = BenchToJson(report, ctx.texts);
  if (ctx.options.json) {
    ctx.out << report::RenderJson(document);
  } else if (o.csv) {
    ctx.out << BenchToCsv(report);
  } else {
    ctx.out << RenderBench(report, ctx.texts);
  }
  bool problems = false;
  for (const auto& r : report.results) {
    if (!r.skipped && (!r.error.empty() || !r.verified)) problems = true;
  }
  if (store) {
    auto id = store->Save(history::RunFromBenchDocument(report), document.dump());
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
