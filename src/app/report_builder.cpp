#include "app/report_builder.h"

#include <unistd.h>

#include <ctime>

#include <fmt/format.h>

#include "app/report_charts.h"
#include "core/version.h"
#include "knowledge/embedded_knowledge.h"
#include "model/advisor.h"

namespace gpuprobe::app {

using report::Tr;

core::Result<const model::GpuSpec*> ResolveGpuSpec(const ReportSources& sources, const std::string& compare_with) {
  auto db = knowledge::Specs();
  if (!db.ok()) return db.status();
  const nlohmann::json& gpu = sources.gpu;
  auto available = gpu.is_object() ? gpu.find("available") : gpu.end();
  auto devices = gpu.is_object() ? gpu.find("devices") : gpu.end();
  if (available != gpu.end() && available->is_boolean() && available->get<bool>() && devices != gpu.end() &&
      devices->is_array() && !devices->empty() && (*devices)[0].is_object()) {
    const nlohmann::json& d = (*devices)[0];
    std::string name;
    for (const char* key : {"spec_database_name", "name"}) {
      auto it = d.find(key);
      if (it != d.end() && it->is_string()) {
        name = it->get<std::string>();
        break;
      }
    }
    auto found = (*db)->Find(name);
    return found.ok() ? *found : nullptr;  // a GPU the database lacks: measured figures only
  }
  if (compare_with.empty()) return static_cast<const model::GpuSpec*>(nullptr);
  auto found = (*db)->Find(compare_with);
  if (!found.ok()) return found.status().WithContext("--gpu");
  return *found;
}

ReportHeader MakeReportHeader(const ReportSources& sources, const report::Texts& t) {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = 0;
  std::time_t now = std::time(nullptr);
  char when[64] = {};
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &utc);
  std::string origins;
  for (const auto& o : sources.origins) origins += (origins.empty() ? "" : ", ") + o;
  return {Tr(t, "report.title", fmt::arg("host", host[0] ? std::string(host) : t.Get("report.this_machine"))),
          Tr(t, "report.subtitle", fmt::arg("version", core::kVersion), fmt::arg("when", when),
             fmt::arg("origins", origins.empty() ? t.Get("report.origins_none") : origins))};
}

report::HtmlReport BuildHtmlReport(const ReportSources& sources, const MachineSummary& summary,
                                   const std::vector<std::string>& verdict, const ReportHeader& header,
                                   const report::Texts& t) {
  report::HtmlReport r;
  r.labels = {report::LanguageCode(t.language()), t.Get("report.section.machine"), t.Get("report.section.findings"),
              t.Get("report.col.severity"),      t.Get("report.col.finding"),     t.Get("report.col.evidence"),
              t.Get("report.col.fix"),           t.Get("report.section.next")};
  r.title = header.title;
  r.subtitle = header.subtitle;
  r.verdict = verdict;
  r.machine_header = {"", "CPU", "GPU"};
  for (auto& row : SideBySideRows(summary, t)) r.machine.push_back({row});
  r.machine_notes.push_back(
      Tr(t, "report.machine_note", fmt::arg("efficiency", fmt::format("{:.0f}", model::kPcieEfficiency * 100))));
  for (const auto& line : CrossoverWhyLines(summary, t)) r.machine_notes.push_back(line);
  for (const auto& line : LiveStateLines(sources, t)) r.machine_notes.push_back(Tr(t, "report.live_state", fmt::arg("line", line)));
  if (!summary.gpu_present) {
    std::string what = summary.gpu_name.empty() ? t.Get("report.no_gpu_nothing")
                                                : Tr(t, "report.spec_sheet_of", fmt::arg("gpu", summary.gpu_name));
    r.machine_notes.push_back(Tr(t, "report.no_gpu_note", fmt::arg("what", what)));
  }
  r.charts = ReportCharts(sources, summary, t);
  for (const auto& p : Problems(sources)) {
    std::string key = "common.severity." + p.severity;
    r.findings.push_back({p.severity, p.title, p.evidence, p.fix, t.Has(key) ? t.Get(key) : p.severity});
  }
  r.findings_empty = t.Get(sources.inspect.is_null() && sources.doctor.is_null() ? "report.findings_no_sources"
                                                                                  : "report.findings_clean");
  std::string gpu = summary.gpu_spec == nullptr ? std::string("h200")
                    : summary.gpu_spec->aliases.empty() ? summary.gpu_spec->name
                                                        : summary.gpu_spec->aliases[0];
  r.next = {"gpuprobe bench --full", "gpuprobe doctor", "gpuprobe inspect --watch", "gpuprobe advise --profile matmul",
            "gpuprobe plan --params 8B --gpu " + gpu};
  return r;
}

}  // namespace gpuprobe::app
