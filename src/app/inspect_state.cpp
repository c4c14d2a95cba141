#include "app/inspect_state.h"

#include <set>

#include <fmt/format.h>

#include "core/file_io.h"
#include "knowledge/embedded_knowledge.h"
#include "report/finding_view.h"
#include "report/json_document.h"
#include "telemetry/capture_time.h"
#include "telemetry/nvml_library.h"
#include "telemetry/nvml_source.h"
#include "telemetry/snapshot_json.h"

namespace gpuprobe::app {

core::Result<GpuReading> ReadGpuState(const std::string& from, const std::string* text) {
  GpuReading reading;
  if (!from.empty()) {
    const std::string label = from == "-" ? "standard input" : from;
    core::Result<std::string> read = text ? core::Result<std::string>(*text) : core::ReadTextFile(from, kMaxCaptureBytes);
    if (!read.ok()) return read.status();
    auto capture = telemetry::ReadCapture(*read);
    if (!capture.ok()) return capture.status().WithContext(label);
    reading.source_label = fmt::format("{} ({})", label, telemetry::CaptureFormatName(capture->format));
    reading.from = from;
    reading.format = capture->format;
    reading.sets = std::move(capture->sets);
    for (const auto& w : capture->warnings) reading.warnings.push_back(label + ": " + w);
    reading.warning_texts = capture->warning_texts;
    reading.warning_prefix = from;
    return reading;
  }
  auto nvml = telemetry::NvmlLibrary::Open();
  if (!nvml.ok()) return nvml.status();
  telemetry::smi::Diagnostics diagnostics;
  auto gpus = telemetry::ReadNvmlSnapshots(**nvml, &diagnostics);
  if (!gpus.ok()) return gpus.status();
  if (gpus->empty()) {
    return core::Status::NotFound("NVML works but reports no GPU", "check CUDA/NVIDIA device visibility in this container")
        .WithKeys("error.inspect.nvml_no_gpu", {}, "error.inspect.nvml_no_gpu.hint");
  }
  reading.source_label = "NVML (" + (*nvml)->loaded_from() + ")";
  reading.sets.push_back({"", std::move(gpus.value())});
  for (const auto& w : diagnostics.Messages()) reading.warnings.push_back(w);
  reading.warning_texts = diagnostics.Texts();
  return reading;
}

std::optional<CaptureDate> CaptureDateOf(const GpuReading& reading, std::int64_t now_s) {
  if (reading.from.empty()) return std::nullopt;  // live: the state is now
  for (const auto& set : reading.sets) {
    for (const auto& gpu : set.gpus) {
      if (gpu.timestamp.empty()) continue;
      CaptureDate date;
      date.timestamp = gpu.timestamp;
      date.epoch_s = telemetry::ParseSmiTimestamp(gpu.timestamp);
      if (date.epoch_s) {
        date.ahead_of_clock = *date.epoch_s > now_s + 86400;
        if (!date.ahead_of_clock) date.age_days = telemetry::AgeInDays(*date.epoch_s, now_s);
      }
      return date;
    }
  }
  return std::nullopt;
}

telemetry::Assessment AssessReading(const std::vector<telemetry::Snapshot>& gpus, const std::optional<CaptureDate>& date) {
  telemetry::Assessment assessment = telemetry::Assess(gpus);
  if (!date || !date->age_days || *date->age_days < 1) return assessment;
  for (auto& f : assessment.findings) {
    f.args.emplace_back("capture_days", std::to_string(*date->age_days));
    f.notes.push_back(*date->age_days == 1 ? "capture_age_one" : "capture_age");
  }
  return assessment;
}

nlohmann::json CaptureDateJson(const std::optional<CaptureDate>& date) {
  if (!date) return nullptr;
  auto opt = [](const std::optional<std::int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  return {{"timestamp", date->timestamp}, {"epoch_s", opt(date->epoch_s)}, {"age_days", opt(date->age_days)},
          {"ahead_of_clock", date->ahead_of_clock}};
}

model::DeviceMatch SpecOf(const telemetry::Snapshot& gpu) { return knowledge::MatchDevice(gpu.pci_device_id, gpu.name); }

nlohmann::json SpecMatchJson(const model::DeviceMatch& m) {
  return {{"matched", m.spec ? nlohmann::json(m.spec->name) : nlohmann::json(nullptr)},
          {"by", m.by.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.by)},
          {"pci_device_id", m.pci_device_id.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.pci_device_id)}};
}

nlohmann::json GpusJson(const std::vector<telemetry::Snapshot>& gpus) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& g : gpus) {
    nlohmann::json j = telemetry::SnapshotToJson(g);
    j["spec"] = SpecMatchJson(SpecOf(g));
    out.push_back(std::move(j));
  }
  return out;
}

int DistinctGpus(const GpuReading& reading) {
  std::set<std::string> seen;
  for (const auto& set : reading.sets) {
    for (const auto& g : set.gpus) {
      seen.insert(!g.uuid.empty() ? "uuid:" + g.uuid
                  : !g.pci_bus_id.empty() ? "pci:" + g.pci_bus_id
                                          : "index:" + std::to_string(g.index.value_or(-1)));
    }
  }
  return static_cast<int>(seen.size());
}

nlohmann::json InspectDocument(const GpuReading& reading, const report::Texts& texts, std::int64_t now_s,
                               std::vector<telemetry::Finding>* findings_all) {
  nlohmann::json doc = report::MakeDocument("inspect");
  doc["source"] = reading.source_label;
  const std::optional<CaptureDate> date = CaptureDateOf(reading, now_s);
  doc["captured"] = CaptureDateJson(date);
  doc["warnings"] = reading.warnings;
  doc["gpus"] = nlohmann::json::array();
  doc["states"] = nlohmann::json::array();
  std::vector<telemetry::NotJudged> not_judged_all;
  for (const auto& set : reading.sets) {
    auto assessment = AssessReading(set.gpus, date);
    findings_all->insert(findings_all->end(), assessment.findings.begin(), assessment.findings.end());
    not_judged_all.insert(not_judged_all.end(), assessment.not_judged.begin(), assessment.not_judged.end());
    doc["states"].push_back({{"state", set.state},
                             {"findings", report::FindingsJson(assessment.findings, texts)},
                             {"not_judged", report::NotJudgedJson(assessment.not_judged)}});
    for (auto& g : GpusJson(set.gpus)) doc["gpus"].push_back(std::move(g));
  }
  doc["verdict"] = report::HealthVerdictJson(telemetry::JudgeHealth(*findings_all, DistinctGpus(reading)), texts, date.has_value());
  doc["findings"] = report::FindingsJson(*findings_all, texts);
  doc["not_judged"] = report::NotJudgedJson(not_judged_all);
  return doc;
}

core::Result<nlohmann::json> LiveInspectDocument(const report::Texts& texts) {
  auto reading = ReadGpuState("");
  if (!reading.ok()) return reading.status();
  std::vector<telemetry::Finding> findings;
  return InspectDocument(*reading, texts, /*now_s=*/0, &findings);  // live: no capture date, "now" unused
}

}  // namespace gpuprobe::app
