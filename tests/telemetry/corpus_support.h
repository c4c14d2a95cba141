// What the corpus tests share: the list of real captures, and the "expected" document of one
// capture (every GPU with the spec entry it matched, every finding with its evidence in
// English and Chinese, and what could not be judged), written to and compared with
// tests/fixtures/<corpus>/expected/.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "knowledge/embedded_knowledge.h"
#include "model/device_match.h"
#include "model/fixture.h"
#include "report/finding_view.h"
#include "report/i18n.h"
#include "telemetry/capture_reader.h"
#include "telemetry/findings.h"

namespace gpuprobe::testing {

/// Every capture under tests/fixtures/`dir` (relative paths, sorted), skipping the expected
/// files, README and index.
inline std::vector<std::string> CaptureFiles(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(FixturePath(dir))) {
    if (!entry.is_regular_file()) continue;
    std::string relative = std::filesystem::relative(entry.path(), FixturePath(dir)).string();
    std::string name = entry.path().filename().string();
    if (relative.rfind("expected/", 0) == 0 || name == "README.md" || name == "index.json" || name == "LICENSE") continue;
    out.push_back(relative);
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// The expected file of capture `relative` in corpus `dir`: "xml/a.xml" -> "expected/xml__a.xml.json".
inline std::string ExpectedPath(const std::string& dir, const std::string& relative) {
  std::string flat = relative;
  for (size_t at = flat.find('/'); at != std::string::npos; at = flat.find('/')) flat.replace(at, 1, "__");
  return dir + "/expected/" + flat + ".json";
}

inline const report::Texts& TextsOf(report::Language language) {
  static const report::Texts en = report::Texts::Load(report::Language::kEn).value();
  static const report::Texts zh = report::Texts::Load(report::Language::kZh).value();
  return language == report::Language::kEn ? en : zh;
}

/// The findings of one state of a capture, as the expected files hold them.
inline nlohmann::json StateDocument(const std::vector<telemetry::Snapshot>& gpus) {
  const model::SpecDatabase* db = knowledge::Specs().value();
  nlohmann::json state;
  state["gpus"] = nlohmann::json::array();
  for (size_t i = 0; i < gpus.size(); ++i) {
    model::DeviceMatch match = model::MatchDevice(*db, gpus[i].pci_device_id, gpus[i].name);
    state["gpus"].push_back({{"gpu", gpus[i].index.value_or(static_cast<int>(i))},
                             {"name", gpus[i].name},
                             {"spec", match.spec ? nlohmann::json(match.spec->name) : nlohmann::json(nullptr)},
                             {"spec_by", match.by}});
  }
  telemetry::Assessment a = telemetry::Assess(gpus);
  state["findings"] = nlohmann::json::array();
  for (const auto& f : a.findings) {
    nlohmann::json facts = nlohmann::json::object();
    for (const auto& fact : f.facts) facts[fact.field] = fact.value;
    state["findings"].push_back({{"gpu", f.gpu},
                                 {"id", f.id},
                                 {"severity", telemetry::SeverityName(f.severity)},
                                 {"confidence", telemetry::ConfidenceName(f.confidence())},
                                 {"facts", facts},
                                 {"missing", f.missing},
                                 {"en", report::FindingEvidence(f, TextsOf(report::Language::kEn))},
                                 {"zh", report::FindingEvidence(f, TextsOf(report::Language::kZh))}});
  }
  nlohmann::json not_judged = nlohmann::json::object();
  for (const auto& n : a.not_judged) not_judged[std::to_string(n.gpu)].push_back(n.id);
  state["not_judged"] = not_judged;
  return state;
}

/// The expected document of one capture file (every state of a sectioned capture).
inline nlohmann::json CaptureDocument(const std::string& dir, const std::string& relative) {
  nlohmann::json doc;
  doc["capture"] = relative;
  auto capture = telemetry::ReadCapture(ReadFixture(dir + "/" + relative));
  if (!capture.ok()) {
    doc["error"] = capture.status().message();
    return doc;
  }
  doc["format"] = telemetry::CaptureFormatName(capture->format);
  doc["warnings"] = capture->warnings;
  doc["states"] = nlohmann::json::array();
  for (const auto& set : capture->sets) {
    nlohmann::json state = StateDocument(set.gpus);
    state["state"] = set.state;
    doc["states"].push_back(std::move(state));
  }
  return doc;
}

}  // namespace gpuprobe::testing
