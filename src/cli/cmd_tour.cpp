// `gpuprobe` with no verb (or `gpuprobe tour`): what is this machine and is it OK? The CPU
// and every GPU, live GPU state and its findings, doctor's failures and warnings only, a
// quick side-by-side bench (CPU and GPU in the same units), a verdict in three lines, the
// next commands, and the same as an HTML report (gpuprobe-report.html) unless --no-report.
#include "cli/cmd_tour.h"


#include <chrono>
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/gpu_absence.h"
#include "app/live_state.h"
#include "app/machine_summary.h"
#include "app/report_builder.h"
#include "app/report_file.h"
#include "bench/cuda/cuda_device.h"
#include "cli/bench_view.h"
#include "cli/command.h"
#include "cli/progress_line.h"
#include "core/strings.h"
#include "core/units.h"
#include "model/cpu_identity.h"
#include "report/html_report.h"
#include "report/json_document.h"
#include "report/status_text.h"
#include "report/table.h"

namespace gpuprobe::cli {
namespace {

using nlohmann::json;
using app::BuildHtmlReport;
using app::CollectLiveSources;
using app::LiveRunOptions;
using app::LiveStateLines;
using app::MachineSummary;
using app::MakeReportHeader;
using app::Problem;
using app::Problems;
using app::ReadCpuIdentity;
using app::ReportSources;
using app::ResolveGpuSpec;
using app::SideBySideRows;
using app::Summarize;
using app::Verdict;


struct TourOptions {
  bool skip_smoke_test = false;
  bool skip_bench = false;
  bool no_report = false;
  std::string report_path = "gpuprobe-report.html";
  std::string gpu = "h200";
};

using core::Join;

std::string VersionText(int version) { return fmt::format("{}.{}", version / 1000, (version % 1000) / 10); }

bool SmokeFailed(const json& gpu) {
  for (const auto& d : gpu.value("devices", json::array())) {
    if (d.contains("smoke_test") && !d["smoke_test"].value("verified", false)) return true;
  }
  return false;
}

std::string RenderCpu(const model::CpuIdentity& cpu, const report::Texts& t) {
  report::TextTable table;
  table.AddRow({t.Get("tour.cpu.model"), cpu.model_name.empty() ? t.Get("common.unknown") : cpu.model_name});
  table.AddRow({t.Get("tour.cpu.cores"), cpu.physical_cores ? Tr(t, "tour.cpu.cores_value", fmt::arg("cores", *cpu.physical_cores),
                                                                 fmt::arg("threads", cpu.logical_cpus))
                                                            : Tr(t, "tour.cpu.threads_value", fmt::arg("threads", cpu.logical_cpus))});
  if (!cpu.simd.empty()) table.AddRow({t.Get("tour.cpu.simd"), Join(cpu.simd, ", ")});
  if (cpu.memory_total_bytes) table.AddRow({t.Get("tour.cpu.memory"), core::FormatBytesBinary(*cpu.memory_total_bytes)});
  return t.Get("tour.cpu") + "\n" + table.Render(2) + "\n";
}

std::string RenderGpus(const json& gpu, const report::Texts& t) {
  std::string out = t.Get("tour.gpu") + "\n";
  if (!gpu.value("available", false)) {
    // The reason by its id (app/gpu_absence.h), read from the document's facts when an
    // older file has no id.
    std::string id = app::GpuAbsenceIdOf(gpu);
    std::string reason = Tr(t, app::GpuAbsenceReasonKey(id), fmt::arg("detail", gpu.value("reason", t.Get("tour.gpu.none_found"))));
    std::string hint = t.Get(app::GpuAbsenceHintKey(id));
    out += "  " + reason + "\n";
    if (!hint.empty()) out += "  " + Tr(t, "common.hint", fmt::arg("hint", hint)) + "\n";
    out += "  " + t.Get("tour.gpu.cpu_only") + "\n";
    return out;
  }
  for (const auto& d : gpu["devices"]) {
    report::TextTable table;
    table.AddSection(fmt::format("GPU {}: {}", d.value("index", 0), d.value("name", "")));
    std::string cc = d.value("compute_capability", "");
    std::string sm = cc;
    sm.erase(std::remove(sm.begin(), sm.end(), '.'), sm.end());
    table.AddRow({t.Get("tour.gpu.compute_capability"), fmt::format("{} (sm_{})", cc, sm)});
    table.AddRow({t.Get("tour.gpu.sms"), fmt::format("{}", d.value("sm_count", 0))});
    const std::string total = core::FormatBytesBinary(d.value("memory_bytes", 0.0));
    const auto free = d.find("memory_free_bytes");
    table.AddRow({t.Get("tour.gpu.memory"),
                  free != d.end() && free->is_number()
                      ? Tr(t, "tour.gpu.memory_value", fmt::arg("total", total), fmt::arg("free", core::FormatBytesBinary(free->get<double>())))
                      : Tr(t, "tour.gpu.memory_total_only", fmt::arg("total", total))});
    if (d.value("sm_clock_max_hz", 0.0) > 0) table.AddRow({t.Get("tour.gpu.clock"), fmt::format("{:.0f} MHz", d.value("sm_clock_max_hz", 0.0) / 1e6)});
    if (d.value("memory_bus_width_bits", 0) > 0) {
      table.AddRow({t.Get("tour.gpu.bus"), fmt::format("{}-bit, {:.0f} MHz", d.value("memory_bus_width_bits", 0), d.value("memory_clock_max_hz", 0.0) / 1e6)});
    }
    table.AddRow({t.Get("tour.gpu.l2"), core::FormatBytesBinary(d.value("l2_cache_bytes", 0.0))});
    if (!d.value("pci_bus_id", "").empty()) table.AddRow({t.Get("tour.gpu.bus_id"), d.value("pci_bus_id", "")});
    table.AddRow({t.Get("tour.gpu.spec"), d["spec_database_name"].is_string() ? d["spec_database_name"].get<std::string>() : t.Get("tour.gpu.spec_missing")});
    if (d.contains("smoke_test")) {
      const json& s = d["smoke_test"];
      std::string smoke = s.contains("error") ? Tr(t, "tour.gpu.smoke_error", fmt::arg("error", s.value("error", "")))
                          : s.value("verified", false)
                              ? Tr(t, "tour.gpu.smoke_ok", fmt::arg("elements", core::FormatInteger(s.value("elements", 0ull))))
                              : Tr(t, "tour.gpu.smoke_wrong", fmt::arg("mismatches", s.value("mismatches", 0ull)));
      table.AddRow({t.Get("tour.gpu.smoke"), smoke});
    }
    out += table.Render(2);
  }
  out += "  " + Tr(t, "tour.gpu.versions", fmt::arg("driver", VersionText(gpu.value("driver_cuda_version", 0))),
                   fmt::arg("runtime", VersionText(gpu.value("cuda_runtime_version", 0)))) + "\n";
  return out;
}

std::string RenderProblems(const ReportSources& src, const std::vector<Problem>& problems, const report::Texts& t) {
  std::string out;
  auto live = LiveStateLines(src, t);
  if (!live.empty()) {
    out += t.Get("tour.live") + "\n";
    for (const auto& line : live) out += "  " + line + "\n";
    out += "\n";
  }
  out += t.Get("tour.problems") + "\n";
  if (src.inspect.is_null()) out += "  " + t.Get("tour.problems.no_live_state") + "\n";
  if (problems.empty()) return out + "  " + t.Get(src.inspect.is_null() ? "tour.problems.none_doctor" : "tour.problems.none") + "\n";
  for (const auto& p : problems) {
    std::string severity = "common.severity." + p.severity;
    out += "  " + Tr(t, "tour.problems.line", fmt::arg("severity", t.Has(severity) ? t.Get(severity) : p.severity),
                     fmt::arg("title", p.title), fmt::arg("evidence", p.evidence)) + "\n";
    if (!p.fix.empty()) out += "       -> " + p.fix + "\n";
  }
  return out;
}

// The next commands: {command, what it answers}. The command's placeholders ({error}, {file})
// are words the user replaces, so they come from the texts too ("tour.next.placeholder.*");
// the JSON lists the English form.
const std::vector<std::pair<std::string, std::string>>& NextCommands() {
  static const std::vector<std::pair<std::string, std::string>> next = {
      {"gpuprobe bench", "tour.next.bench"},
      {"gpuprobe gpus --task llm-serving", "tour.next.task"},
      {"gpuprobe plan --params 8B --gpu h200", "tour.next.plan"},
      {"gpuprobe advise --profile matmul", "tour.next.advise"},
      {"gpuprobe inspect --watch", "tour.next.inspect"},
      {"gpuprobe doctor", "tour.next.doctor"},
      {"gpuprobe explain \"{error}\"", "tour.next.explain"},
      {"gpuprobe report -o {file}.html", "tour.next.report"},
  };
  return next;
}

std::string NextCommand(const std::string& pattern, const report::Texts& t) {
  return fmt::format(fmt::runtime(pattern), fmt::arg("error", t.Get("tour.next.placeholder.error")),
                     fmt::arg("file", t.Get("tour.next.placeholder.file")));
}

core::Result<core::ExitCode> RunTour(VerbContext& ctx, const TourOptions& o) {
  const auto& t = ctx.texts;
  if (!o.no_report && o.report_path.empty()) {
    return core::Status::InvalidArgument("--report needs a file name").WithKeys("tour.error.report_name", {});
  }
  model::CpuIdentity cpu = ReadCpuIdentity();
  ProgressLine progress(ctx.err, ProgressLine::IsStderrTerminal());
  LiveRunOptions live;
  live.smoke_test = !o.skip_smoke_test;
  live.bench = !o.skip_bench;
  auto start = std::chrono::steady_clock::now();
  ReportSources sources = CollectLiveSources(live, t, [&](const std::string& line) { progress.Show(line); });
  progress.Clear();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  auto spec = ResolveGpuSpec(sources, o.gpu);
  if (!spec.ok()) return spec.status();
  // The load while the figures were measured: a busy machine's CPU figures read low.
  MachineSummary summary = Summarize(sources, *spec, app::ReadMachineLoad(cpu.logical_cpus));
  std::vector<Problem> problems = Problems(sources);
  std::vector<std::string> verdict = Verdict(summary, static_cast<int>(problems.size()), t);
  bool failed = SmokeFailed(sources.gpu);
  for (const auto& p : problems) failed |= p.severity == "fail";

  std::string report_line;
  std::string written;
  if (!o.no_report) {
    report::HtmlReport html = BuildHtmlReport(sources, summary, verdict, MakeReportHeader(sources, t), t);
    core::Status status = app::WriteReportFile(o.report_path, report::RenderHtmlReport(html), false);
    if (status.ok()) {
      written = o.report_path;
      report_line = Tr(t, "tour.report.written", fmt::arg("path", o.report_path));
    } else {
      report_line = Tr(t, "tour.report.failed", fmt::arg("error", report::StatusMessage(status, t)));
    }
  }

  if (ctx.options.json) {
    json doc = report::MakeDocument("tour");
    doc["cpu"] = sources.cpu;
    doc["gpu"] = sources.gpu;
    doc["inspect"] = sources.inspect;
    doc["doctor"] = sources.doctor;
    doc["bench"] = sources.bench ? BenchToJson(*sources.bench, t) : json(nullptr);
    doc["side_by_side"] = json::array();
    for (const auto& row : SideBySideRows(summary, t)) doc["side_by_side"].push_back({{"quantity", row[0]}, {"cpu", row[1]}, {"gpu", row[2]}});
    doc["crossover_why"] = app::CrossoverWhyLines(summary, t);
    doc["matmul_comparison"] = app::MatmulComparisonJson(summary.matmul);
    doc["problems"] = json::array();
    for (const auto& p : problems) doc["problems"].push_back({{"severity", p.severity}, {"title", p.title}, {"evidence", p.evidence}, {"fix", p.fix}});
    doc["verdict"] = verdict;
    doc["next"] = json::array();
    for (const auto& [command, key] : NextCommands()) {
      doc["next"].push_back(fmt::format(fmt::runtime(command), fmt::arg("error", "ERROR TEXT"), fmt::arg("file", "FILE")));
    }
    doc["report_path"] = written.empty() ? json(nullptr) : json(written);
    doc["seconds"] = seconds;
    ctx.out << report::RenderJson(doc);
    return failed ? core::ExitCode::kProblemsFound : core::ExitCode::kOk;
  }

  std::string out = t.Get("tour.title") + "\n\n" + RenderCpu(cpu, t) + RenderGpus(sources.gpu, t) + "\n";
  out += RenderProblems(sources, problems, t) + "\n";
  if (!sources.bench) {
    out += t.Get("tour.side_by_side") + "\n  " + t.Get("tour.side_by_side.skipped") + "\n\n";
  } else {
    out += Tr(t, "tour.side_by_side.measured", fmt::arg("seconds", fmt::format("{:.0f}", sources.bench->wall_seconds))) + "\n";
    report::TextTable table({"", "CPU", "GPU"});
    for (const auto& row : SideBySideRows(summary, t)) table.AddRow(row);
    out += table.Render(2);
    if (!summary.gpu_present && summary.gpu_spec != nullptr) out += "  " + Tr(t, "tour.side_by_side.reference", fmt::arg("gpu", summary.gpu_name)) + "\n";
    const std::vector<std::string> why = app::CrossoverWhyLines(summary, t);
    if (!why.empty()) out += "\n  " + t.Get("tour.side_by_side.why") + "\n";
    for (const auto& line : why) out += "  - " + line + "\n";
    out += "\n";
  }
  out += t.Get("tour.verdict") + "\n";
  for (const auto& line : verdict) out += "  " + line + "\n";
  out += "\n" + t.Get("tour.next") + "\n";
  report::TextTable next;
  for (const auto& [command, key] : NextCommands()) next.AddRow({NextCommand(command, t), t.Get(key)});
  out += next.Render(2);
  if (!report_line.empty()) out += "\n" + report_line + "\n";
  ctx.out << out;
  return failed ? core::ExitCode::kProblemsFound : core::ExitCode::kOk;
}

}  // namespace

VerbRunner SetupTourVerb(CLI::App* command) {
  auto options = std::make_shared<TourOptions>();
  command->add_flag("--no-smoke-test", options->skip_smoke_test, "do not run the tiny verified kernel on each GPU");
  command->add_flag("--no-bench", options->skip_bench, "skip the quick side-by-side bench (about 20 s)");
  command->add_flag("--no-report", options->no_report, "do not write the HTML report");
  command->add_option("--report", options->report_path, "where to write the HTML report (default gpuprobe-report.html)");
  command->add_option("--gpu", options->gpu, "GPU to compare with when there is none here (default h200)");
  return [options](VerbContext& ctx) { return RunTour(ctx, *options); };
}

}  // namespace gpuprobe::cli
