#include "app/doctor_view.h"

#include "report/json_document.h"
#include "report/status_text.h"

namespace gpuprobe::app {

std::string RenderMessage(const report::Texts& texts, const doctor::Message& message) {
  return report::FormatWithArgs(texts, message.key, message.args);
}

RenderedCheck RenderCheck(const report::Texts& texts, const doctor::CheckResult& check) {
  RenderedCheck out;
  out.title = texts.Get("doctor.check." + check.id + ".title");
  out.marker = texts.Get("doctor.marker." + doctor::CheckStatusName(check.status));
  for (const auto& sentence : check.evidence) {
    if (!out.evidence.empty()) out.evidence += texts.Get("doctor.view.join");
    out.evidence += RenderMessage(texts, sentence);
  }
  if (!check.fix.empty()) out.fix = RenderMessage(texts, check.fix);
  return out;
}

nlohmann::json DoctorToJson(const doctor::DoctorReport& report, const report::Texts& texts) {
  auto doc = report::MakeDocument("doctor");
  doc["lang"] = report::LanguageCode(texts.language());
  doc["gpu_present"] = report.gpu_present;
  doc["driver_version"] = report.driver_version;
  doc["status"] = doctor::CheckStatusName(doctor::WorstStatus(report.checks));
  doc["checks"] = nlohmann::json::array();
  for (const auto& c : report.checks) {
    RenderedCheck r = RenderCheck(texts, c);
    doc["checks"].push_back({{"id", c.id},
                             {"title", r.title},
                             {"status", doctor::CheckStatusName(c.status)},
                             {"evidence", r.evidence},
                             {"fix", r.fix},
                             {"values", c.values}});
  }
  return doc;
}

std::string DoctorTextView(const doctor::DoctorReport& report, const report::Texts& texts) {
  std::string out = texts.Get("doctor.title") + "\n\n";
  for (const auto& c : report.checks) {
    RenderedCheck r = RenderCheck(texts, c);
    out += report::Tr(texts, "doctor.view.line", fmt::arg("marker", r.marker),
                      fmt::arg("title", r.title), fmt::arg("evidence", r.evidence)) +
           "\n";
    if (!r.fix.empty() && c.status != doctor::CheckStatus::kOk) {
      out += report::Tr(texts, "doctor.view.fix", fmt::arg("fix", r.fix)) + "\n";
    }
  }
  out += "\n";
  doctor::CheckStatus worst = doctor::WorstStatus(report.checks);
  bool problems = worst == doctor::CheckStatus::kFail || worst == doctor::CheckStatus::kWarn;
  const char* verdict = !report.gpu_present
                            ? (problems ? "doctor.no_gpu_problems" : "doctor.no_gpu")
                        : worst == doctor::CheckStatus::kFail ? "doctor.verdict.fail"
                        : worst == doctor::CheckStatus::kWarn ? "doctor.verdict.warn"
                                                              : "doctor.verdict.ok";
  out += texts.Get(verdict) + "\n";
  return out;
}

}  // namespace gpuprobe::app
