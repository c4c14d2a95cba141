// `gpuprobe bench [ID|GROUP|PREFIX ...]`: measure the claims of the mental model on the CPU
// and the GPU in one run, each beside the model's prediction.
#include "cli/cmd_bench.h"


#include <iostream>
#include <optional>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "app/gpu_absence.h"
#include "app/matmul_comparison.h"
#include "bench/cuda/cuda_device.h"
#include "bench/pipeline.h"
#include "bench/registry.h"
#include "bench/run_plan.h"
#include "cli/bench_multi_gpu.h"
#include "cli/bench_view.h"
#include "cli/command.h"
#include "cli/progress_line.h"
#include "core/units.h"
#include "history/history_store.h"
#include "report/case_label.h"
#include "report/json_document.h"
#include "report/status_text.h"
#include "report/table.h"

namespace gpuprobe::cli {
namespace {


struct BenchOptions {
  std::vector<std::string> patterns;
  bool list = false, full = false, quick = false, csv = false;
  std::string backend = "all";
  int threads = 0;
  std::string size;
  double seconds = 0;
  bool save = false;
  bool dry_run = false;
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
  report::TextTable table({ctx.texts.Get("bench.list.id"), ctx.texts.Get("bench.list.backends"), ctx.texts.Get("bench.list.description")});
  for (const auto& b : registry.all()) {
    std::string list;
    for (const auto& name : b->Info().backends) list += (list.empty() ? "" : ",") + name;
    table.AddRow({b->Info().id, list, ctx.texts.Get("bench.description." + b->Info().id)});
  }
  ctx.out << table.Render();
  // The many-GPU benchmarks are not in the registry (they take every GPU at once): named here.
  ctx.out << "\n" << ctx.texts.Get("collectives.list_note") << "\n";
  return core::ExitCode::kOk;
}

// Flags to a pipeline request; every check that needs no measurement happens here, so a
// mistake costs a second, not a run.
core::Status FlagError(const char* english, const char* key) { return core::Status::InvalidArgument(english).WithKeys(key, {}); }

core::Result<bench::PipelineRequest> RequestFrom(const BenchOptions& o) {
  if (o.full && o.quick) return FlagError("--quick and --full exclude each other", "bench.error.quick_full");
  if (o.threads < 0 || o.threads > 4096) return FlagError("--threads must be between 1 and 4096", "bench.error.threads");
  // Written so that NaN fails too.
  if (!(o.seconds >= 0 && o.seconds <= 3600)) return FlagError("--seconds must be between 0 and 3600", "bench.error.seconds");
  if (!o.db.empty() && !o.save) return FlagError("--db goes with --save", "bench.error.db_without_save");
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
    if (*bytes <= 0) return FlagError("--size must be positive", "bench.error.size_positive");
    if (*bytes > 1e13) return FlagError("--size is absurd: more than 10 TB", "bench.error.size_absurd");
    request.settings.size_override = static_cast<std::uint64_t>(*bytes);
  }
  return request;
}

// A bar redrawn in place on a terminal; one line per case on a pipe or in a log.
std::function<void(const bench::CaseProgress&)> ProgressPrinter(ProgressLine& progress, const report::Texts& t) {
  return [&progress, &t](const bench::CaseProgress& p) {
    std::string label = report::CaseLabelText(p.case_label, t);
    if (ProgressLine::IsStderrTerminal()) {
      progress.Show(ProgressBar(p.index, p.total, p.id + " " + p.backend + " " + label));
    } else {
      progress.Log(Tr(t, "live.progress.bench", fmt::arg("index", p.index), fmt::arg("total", p.total), fmt::arg("id", p.id),
                      fmt::arg("backend", p.backend), fmt::arg("case", label)));
    }
  };
}

// Why there is no GPU here, in the reader's language (app/gpu_absence.h).
std::string GpuAbsenceText(const report::Texts& t, const std::string& english) {
  std::string id = app::GpuAbsenceId(bench::QueryCudaDevices().status());
  return Tr(t, app::GpuAbsenceReasonKey(id), fmt::arg("detail", english));
}

core::Result<core::ExitCode> RunBench(VerbContext& ctx, const BenchOptions& o) {
  // `bench collectives` and `bench p2p` measure several GPUs together: their own path.
  if (!o.patterns.empty() && bench::IsMultiGpuBenchmark(o.patterns.front())) {
    bench::MultiGpuRequest multi;
    multi.kind = o.patterns.front();
    multi.names.assign(o.patterns.begin() + 1, o.patterns.end());
    multi.dry_run = o.dry_run;
    auto host = bench::MachineMultiGpuHost();
    return RunMultiGpuBench(ctx, *host, multi);
  }
  if (o.dry_run) {
    return FlagError("--dry-run goes with 'bench collectives' or 'bench p2p' (the plan of the whole run: scripts/gpu-check --dry-run)",
                     "bench.error.dry_run_multi_gpu");
  }
  bench::BenchmarkRegistry registry;
  bench::RegisterAllBenchmarks(&registry);
  GPUPROBE_RETURN_IF_ERROR(registry.status());
  if (o.list) return PrintList(ctx, registry);

  auto request = RequestFrom(o);
  if (!request.ok()) return request.status();
  // Asked for the GPU alone where there is none: exit 3 saying why, in the reader's words.
  if (o.backend == "cuda") {
    auto devices = bench::QueryCudaDevices();
    if (!devices.ok() || devices->empty()) {
      std::string id = app::GpuAbsenceId(devices.status());
      return core::Status::Unavailable("no GPU to benchmark: " + devices.status().message(), devices.status().hint())
          .WithKeys("bench.error.no_gpu", {{"reason_key", app::GpuAbsenceReasonKey(id)}, {"detail", devices.status().message()}},
                    app::GpuAbsenceHintKey(id));
    }
  }
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
  ProgressLine progress(ctx.err, ProgressLine::IsStderrTerminal());
  auto report = bench::RunPipeline(registry, *host, *request, ProgressPrinter(progress, ctx.texts));
  progress.Clear();
  if (!report.ok()) return report.status();
  // A selection that cannot run here (GPU benchmarks on a machine without a GPU) is exit 3
  // with what is missing, not "0 of 0 verified" and exit 0.
  bool any_ran = false;
  std::string skip_reason = report->gpu_absent_reason;
  std::string skip_text = skip_reason.empty() ? std::string() : GpuAbsenceText(ctx.texts, skip_reason);
  for (const auto& r : report->results) {
    if (!r.skipped) any_ran = true;
    if (r.skipped && skip_reason.empty()) {
      skip_reason = r.skip_reason;
      skip_text = r.skip_reason_text.empty() ? r.skip_reason : report::FormatWithArgs(ctx.texts, r.skip_reason_text.key, r.skip_reason_text.args);
    }
  }
  if (!any_ran) {
    return core::Status::Unavailable("Nothing could run here: every selected case was skipped (" +
                                         (skip_reason.empty() ? std::string("unknown") : skip_reason) + ").",
                                     "gpuprobe bench --list")
        .WithKeys("bench.none_ran", {{"reason", skip_text.empty() ? ctx.texts.Get("common.unknown") : skip_text}},
                  "bench.none_ran.hint");
  }

  nlohmann::json document = BenchToJson(*report, ctx.texts);
  // CPU against GPU on a matmul, by the one definition the tour, report and advise use: only
  // what this run measured (fp32 against fp32; tensor cores apart).
  app::MatmulComparison matmul = app::CompareMatmul(&*report, nullptr, nullptr);
  if (ctx.options.json) {
    nlohmann::json shown = document;
    shown["matmul_comparison"] = matmul.cpu.known() ? app::MatmulComparisonJson(matmul) : nlohmann::json(nullptr);
    ctx.out << report::RenderJson(shown);
  } else if (o.csv) {
    ctx.out << BenchToCsv(*report);
  } else {
    bench::BenchDocument shown = *report;  // the reason in the reader's words; JSON and history keep the English
    if (!shown.gpu_absent_reason.empty()) shown.gpu_absent_reason = GpuAbsenceText(ctx.texts, shown.gpu_absent_reason);
    ctx.out << RenderBench(shown, ctx.texts);
    if (auto fp32 = matmul.Fp32Speedup()) {
      std::string line = Tr(ctx.texts, "bench.matmul_comparison", fmt::arg("fp32", app::FormatSpeedup(*fp32)),
                            fmt::arg("gpu", matmul.gpu_fp32.name), fmt::arg("cpu", matmul.cpu.name));
      if (auto tensor = matmul.TensorSpeedup()) {
        line += (ctx.texts.language() == report::Language::kZh ? "" : " ") +
                Tr(ctx.texts, "bench.matmul_comparison_tensor", fmt::arg("tensor", app::FormatSpeedup(*tensor)));
      }
      ctx.out << "\n" << line << "\n";
    }
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
  command->add_option("benchmarks", o->patterns, "ids, groups or id prefixes (default: all)");
  command->add_flag("--list", o->list, "list every benchmark id and what it shows");
  command->add_flag("--quick", o->quick, "short run, default sizes (the default)");
  command->add_flag("--full", o->full, "longer runs and complete sweeps");
  command->add_option("--backend", o->backend, "cpu, cuda or all (default: all that exist here)");
  command->add_option("--threads", o->threads, "CPU worker threads (default: one per physical core)");
  command->add_option("--size", o->size, "working set per array, e.g. 256MiB (matmul: the matrix order, e.g. 1024)");
  command->add_option("--seconds", o->seconds, "time cap per case in seconds (default 0.4 quick, 3 full); burn: how long to load the GPU");
  command->add_flag("--dry-run", o->dry_run, "with collectives or p2p: print the exact plan, run nothing");
  command->add_flag("--csv", o->csv, "print CSV rows (for sweeps) instead of the table");
  command->add_flag("--save", o->save, "record this run in the history (see 'gpuprobe history')");
  command->add_option("--db", o->db, "history file for --save (default $XDG_DATA_HOME/gpuprobe/history.db)");
  return [o](VerbContext& ctx) { return RunBench(ctx, *o); };
}

}  // namespace gpuprobe::cli
