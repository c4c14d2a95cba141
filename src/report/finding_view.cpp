#include "report/finding_view.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "report/status_text.h"

namespace gpuprobe::report {
namespace {

using telemetry::Finding;

// A field as nvidia-smi's query names it (utilization.gpu, persistence_mode) reads as an
// identifier; any other name (processes, process used_memory) is quoted in Chinese, where it
// stays English.
std::string FieldText(const std::string& field, const Texts& t) {
  bool identifier = field.find(' ') == std::string::npos && field.find_first_of("._") != std::string::npos;
  return identifier ? field : QuotedValue(field, t);
}

// Text `key` with the finding's named values (the one formatter, report/status_text.h): a
// text that does not format is shown as written rather than lost.
std::string Format(const Texts& texts, const std::string& key, const Finding& f) { return FormatWithArgs(texts, key, f.args); }

}  // namespace

std::string FindingEvidence(const Finding& f, const Texts& texts, bool with_capture_age) {
  // Chinese sentences follow each other without a space.
  const char* between = texts.language() == Language::kZh ? "" : " ";
  std::string out = Format(texts, f.EvidenceKey(), f);
  for (const auto& note : f.notes) {
    if (!with_capture_age && note.rfind("capture_age", 0) == 0) continue;
    out += between + Format(texts, "finding.note." + note, f);
  }
  return out;
}

std::string FindingTitle(const std::string& id, const Texts& texts) {
  const std::string key = "finding." + id + ".title";
  return texts.Has(key) ? texts.Get(key) : id;
}

nlohmann::json FindingJson(const Finding& f, const Texts& texts) {
  nlohmann::json facts = nlohmann::json::array();
  for (const auto& fact : f.facts) facts.push_back({{"field", fact.field}, {"value", fact.value}});
  return {{"id", f.id},
          {"title", FindingTitle(f.id, texts)},
          {"severity", telemetry::SeverityName(f.severity)},
          {"gpu", f.gpu},
          {"evidence", FindingEvidence(f, texts)},
          {"facts", facts},
          {"confidence", telemetry::ConfidenceName(f.confidence())},
          {"missing", f.missing},
          {"explanation", texts.Get("finding." + f.id + ".explain")},
          {"next_step", texts.Get("finding." + f.id + ".next")}};
}

nlohmann::json FindingsJson(const std::vector<Finding>& findings, const Texts& texts) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : findings) out.push_back(FindingJson(f, texts));
  return out;
}

nlohmann::json NotJudgedJson(const std::vector<telemetry::NotJudged>& not_judged) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& n : not_judged) {
    nlohmann::json j = {{"id", n.id}, {"gpu", n.gpu}, {"missing", n.missing}};
    if (!n.reason.empty()) j["reason"] = n.reason;
    out.push_back(std::move(j));
  }
  return out;
}

namespace {

const char* HealthName(telemetry::Severity worst) {
  switch (worst) {
    case telemetry::Severity::kInfo: return "healthy";
    case telemetry::Severity::kWarn: return "needs_attention";
    case telemetry::Severity::kFail: return "unhealthy";
  }
  return "healthy";
}

}  // namespace

std::string RenderHealthVerdict(const telemetry::HealthVerdict& v, const Texts& t, bool at_capture) {
  std::string body;
  if (v.worst == telemetry::Severity::kInfo) {
    body = v.gpus == 1 ? t.Get("inspect.verdict.healthy_one") : Tr(t, "inspect.verdict.healthy_many", fmt::arg("count", v.gpus));
    if (v.notes > 0) body += Tr(t, v.notes == 1 ? "inspect.verdict.notes_one" : "inspect.verdict.notes_many", fmt::arg("count", v.notes));
  } else {
    // At most three causes on the line; the Findings block has them all.
    constexpr size_t kShown = 3;
    std::string causes;
    for (size_t i = 0; i < v.causes.size() && i < kShown; ++i) {
      if (i > 0) causes += t.Get("inspect.verdict.separator");
      causes += Tr(t, "inspect.verdict.cause", fmt::arg("gpu", v.causes[i]->gpu), fmt::arg("title", FindingTitle(v.causes[i]->id, t)));
    }
    if (v.causes.size() > kShown) causes += Tr(t, "inspect.verdict.more", fmt::arg("count", v.causes.size() - kShown));
    body = Tr(t, v.worst == telemetry::Severity::kFail ? "inspect.verdict.unhealthy" : "inspect.verdict.attention", fmt::arg("causes", causes));
  }
  return Tr(t, "inspect.verdict.line", fmt::arg("label", t.Get(at_capture ? "inspect.verdict.label_captured" : "inspect.verdict.label")),
            fmt::arg("body", body));
}

nlohmann::json HealthVerdictJson(const telemetry::HealthVerdict& v, const Texts& t, bool at_capture) {
  nlohmann::json causes = nlohmann::json::array();
  for (const auto* f : v.causes) causes.push_back({{"gpu", f->gpu}, {"id", f->id}, {"severity", telemetry::SeverityName(f->severity)}});
  return {{"health", HealthName(v.worst)}, {"gpus", v.gpus},   {"notes", v.notes}, {"causes", causes},
          {"at_capture", at_capture},      {"text", RenderHealthVerdict(v, t, at_capture)}};
}

std::string RenderAssessment(const telemetry::Assessment& a, const Texts& t) {
  std::string out = t.Get("inspect.findings") + "\n";
  if (a.findings.empty()) out += "  " + t.Get(a.not_judged.empty() ? "inspect.no_findings" : "inspect.no_findings_judged") + "\n";
  // The capture's age is said with the first finding; the others are of the same capture.
  bool age_said = false;
  for (const auto& f : a.findings) {
    out += fmt::format("  [{}] GPU {} · {}{}\n", t.Get("common.severity." + telemetry::SeverityName(f.severity)), f.gpu,
                       Labelled(t, FindingTitle(f.id, t)), FindingEvidence(f, t, !age_said));
    age_said = age_said || std::any_of(f.notes.begin(), f.notes.end(),
                                       [](const std::string& n) { return n.rfind("capture_age", 0) == 0; });
    std::string facts;
    for (const auto& fact : f.facts) facts += (facts.empty() ? "" : ", ") + Tr(t, "inspect.fact", fmt::arg("field", FieldText(fact.field, t)), fmt::arg("value", fact.value));
    if (!facts.empty()) out += "      " + Tr(t, "inspect.facts", facts) + "\n";
    if (!f.missing.empty()) {
      std::string missing;
      for (const auto& m : f.missing) missing += (missing.empty() ? "" : ", ") + FieldText(m, t);
      out += "      " + Tr(t, "inspect.confidence_reduced", missing) + "\n";
    }
    out += "      " + t.Get("finding." + f.id + ".explain") + "\n";
    out += "      -> " + t.Get("finding." + f.id + ".next") + "\n";
  }
  // What could not be judged: the rule ids and the fields they lacked, GPUs with the same
  // gaps on one line (an 8-GPU table lacks the same fields eight times).
  // Rules with a known reason (ECC off) get their own line: nothing is missing there.
  std::map<std::pair<std::string, int>, std::pair<std::vector<std::string>, std::vector<std::string>>> by_gpu;
  for (const auto& n : a.not_judged) {
    auto& [ids, fields] = by_gpu[{n.reason, n.gpu}];
    ids.push_back(n.id);
    for (const auto& m : n.missing) {
      if (std::find(fields.begin(), fields.end(), m) == fields.end()) fields.push_back(m);
    }
  }
  std::vector<std::pair<std::string, std::string>> lines;  // (gpus, rest)
  for (const auto& [key, entry] : by_gpu) {
    const auto& [reason, gpu] = key;
    std::string ids, fields;
    for (const auto& id : entry.first) ids += (ids.empty() ? "" : t.Get("inspect.list_separator")) + FindingTitle(id, t);
    for (const auto& m : entry.second) fields += (fields.empty() ? "" : ", ") + FieldText(m, t);
    std::string rest = reason.empty() ? Tr(t, "inspect.not_judged", fmt::arg("gpu", "{gpu}"), fmt::arg("ids", ids), fmt::arg("fields", fields))
                                      : Tr(t, "inspect.not_judged." + reason, fmt::arg("gpu", "{gpu}"), fmt::arg("ids", ids));
    auto same = std::find_if(lines.begin(), lines.end(), [&](const auto& l) { return l.second == rest; });
    if (same == lines.end()) {
      lines.emplace_back(std::to_string(gpu), rest);
    } else {
      same->first += "," + std::to_string(gpu);
    }
  }
  for (const auto& [gpus, rest] : lines) {
    std::string line = rest;
    size_t at = line.find("{gpu}");
    if (at != std::string::npos) line.replace(at, 5, gpus);
    out += "  " + line + "\n";
  }
  return out;
}

}  // namespace gpuprobe::report
