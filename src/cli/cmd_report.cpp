// `gpuprobe report -o FILE.html`: the machine, its measurements and its problems in one
// self-contained HTML file for a team: from a fresh quick run, or from saved JSON.
#include "cli/cmd_report.h"


#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "app/live_state.h"
#include "app/machine_summary.h"
#include "app/report_builder.h"
#include "app/report_file.h"
#include "cli/command.h"
#include "cli/progress_line.h"
#include "report/html_report.h"
#include "report/json_document.h"

namespace gpuprobe::cli {
namespace {

using app::ReportSources;


struct ReportOptions {
  std::string output = "gpuprobe-report.html";
  std::vector<std::string> from;
  std::string gpu = "h200";
  bool skip_smoke = false;
  bool force = false;
};

core::Result<core::ExitCode> RunReport(VerbContext& ctx, const ReportOptions& o) {
  if (o.output.empty()) return core::Status::InvalidArgument("-o needs a file name").WithKeys("report.error.output_name", {});
  ReportSources sources;
  if (!o.from.empty()) {
    auto loaded = app::LoadReportSources(o.from);
    if (!loaded.ok()) return loaded.status();
    sources = std::move(loaded.value());
  }
  // Resolve --gpu before spending time on measurements.
  auto spec_check = app::ResolveGpuSpec(sources, o.gpu);
  if (!spec_check.ok()) return spec_check.status();
  if (o.from.empty()) {
    ProgressLine progress(ctx.err, ProgressLine::IsStderrTerminal());
    app::LiveRunOptions live;
    live.smoke_test = !o.skip_smoke;
    sources = app::CollectLiveSources(live, ctx.texts, [&](const std::string& line) { progress.Show(line); });
    progress.Clear();
  }
  auto spec = app::ResolveGpuSpec(sources, o.gpu);
  if (!spec.ok()) return spec.status();
  // Measured now: the load while it ran is known; from saved files it is not.
  std::optional<app::MachineLoad> load;
  if (o.from.empty() && sources.bench) load = app::ReadMachineLoad(sources.bench->cpu.logical_cpus);
  app::MachineSummary summary = app::Summarize(sources, *spec, load);
  auto problems = app::Problems(sources);
  auto verdict = app::Verdict(summary, static_cast<int>(problems.size()), ctx.texts);
  report::HtmlReport html =
      app::BuildHtmlReport(sources, summary, verdict, app::MakeReportHeader(sources, ctx.texts), ctx.texts);
  GPUPROBE_RETURN_IF_ERROR(app::WriteReportFile(o.output, report::RenderHtmlReport(html), o.force));
  if (ctx.options.json) {
    auto doc = report::MakeDocument("report");
    doc["path"] = o.output;
    doc["charts"] = html.charts.size();
    doc["findings"] = html.findings.size();
    doc["verdict"] = verdict;
    doc["matmul_comparison"] = app::MatmulComparisonJson(summary.matmul);
    ctx.out << report::RenderJson(doc);
  } else {
    for (const auto& line : verdict) ctx.out << line << "\n";
    ctx.out << Tr(ctx.texts, "report.written", fmt::arg("path", o.output), fmt::arg("charts", html.charts.size())) << "\n";
  }
  return core::ExitCode::kOk;
}

}  // namespace

VerbRunner SetupReportVerb(CLI::App* command) {
  auto o = std::make_shared<ReportOptions>();
  command->add_option("-o,--output", o->output, "the HTML file to write (default gpuprobe-report.html)");
  command->add_option("--from", o->from, "saved JSON (bench, inspect, doctor or tour), repeatable; default: measure now");
  command->add_option("--gpu", o->gpu, "GPU to compare with when there is none here (default h200)");
  command->add_flag("--no-smoke-test", o->skip_smoke, "do not run the tiny verified kernel on each GPU");
  command->add_flag("--force", o->force, "replace an existing file even if it is not a gpuprobe report");
  return [o](VerbContext& ctx) { return RunReport(ctx, *o); };
}

}  // namespace gpuprobe::cli
