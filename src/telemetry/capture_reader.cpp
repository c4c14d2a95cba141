#include "telemetry/capture_reader.h"

#include <sstream>

#include "telemetry/smi_csv.h"
#include "telemetry/smi_table_parser.h"
#include "telemetry/smi_text_parser.h"
#include "telemetry/smi_values.h"
#include "telemetry/smi_xml_parser.h"
#include "telemetry/snapshot_json.h"

namespace gpuprobe::telemetry {
namespace {

using Section = CaptureSection;

// Sections start with a line "# <state> :: <command>" inside a block of '#' lines.
std::vector<Section> SplitSections(std::string_view text) {
  std::vector<Section> sections;
  std::istringstream in{std::string(text)};
  std::string line;
  Section* current = nullptr;
  bool in_header = false;
  while (std::getline(in, line)) {
    if (line.rfind("####", 0) == 0) {
      in_header = !in_header;
      continue;
    }
    if (line.rfind("# ", 0) == 0 && line.find(" :: ") != std::string::npos && in_header) {
      size_t sep = line.find(" :: ");
      sections.push_back({smi::Trim(line.substr(2, sep - 2)), smi::Trim(line.substr(sep + 4)), ""});
      current = &sections.back();
      continue;
    }
    if (in_header) continue;  // "# $ nvidia-smi ..." command lines
    if (current != nullptr) current->body += line + "\n";
  }
  return sections;
}

core::Status WithFormat(const core::Status& status, CaptureFormat format) {
  return status.WithContext(CaptureFormatName(format));
}

}  // namespace

std::vector<CaptureSection> CaptureSections(std::string_view text) { return SplitSections(text); }

std::string CaptureFormatName(CaptureFormat format) {
  switch (format) {
    case CaptureFormat::kXml: return "nvidia-smi -q -x XML";
    case CaptureFormat::kText: return "nvidia-smi -q text";
    case CaptureFormat::kTable: return "nvidia-smi table";
    case CaptureFormat::kCsv: return "nvidia-smi --query-gpu CSV";
    case CaptureFormat::kJson: return "gpuprobe JSON";
    case CaptureFormat::kSectioned: return "sectioned nvidia-smi capture";
    case CaptureFormat::kUnknown: return "unknown";
  }
  return "unknown";
}

CaptureFormat DetectCaptureFormat(std::string_view text) {
  size_t start = text.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
  if (start == std::string_view::npos) return CaptureFormat::kUnknown;
  std::string_view body = text.substr(start);
  if (body.front() == '{') return CaptureFormat::kJson;
  if (body.front() == '<') return CaptureFormat::kXml;
  std::string_view head = body.substr(0, std::min<size_t>(body.size(), 4096));
  if (head.find(" :: ") != std::string_view::npos && head.rfind("#", 0) == 0) return CaptureFormat::kSectioned;
  if (head.find("NVSMI LOG") != std::string_view::npos) return CaptureFormat::kText;
  if (LooksLikeSmiTable(body)) return CaptureFormat::kTable;
  std::string first_line(head.substr(0, head.find('\n')));
  for (const auto& field : QueryGpuFields()) {
    if (first_line.find(field) != std::string::npos && first_line.find(',') != std::string::npos) return CaptureFormat::kCsv;
  }
  if (first_line.find(',') == std::string::npos && (first_line.rfind("name", 0) == 0 || first_line.rfind("index", 0) == 0)) {
    return CaptureFormat::kCsv;
  }
  return CaptureFormat::kUnknown;
}

core::Result<CaptureResult> ReadCapture(std::string_view text) {
  CaptureResult result;
  result.format = DetectCaptureFormat(text);
  smi::Diagnostics diagnostics;
  auto finish = [&](CaptureResult* r) {
    for (auto& note : diagnostics.Messages()) r->warnings.push_back(std::move(note));
    for (auto& ref : diagnostics.Texts()) r->warning_texts.push_back(std::move(ref));
  };
  switch (result.format) {
    case CaptureFormat::kXml: {
      auto xml = ParseSmiXml(text);
      if (!xml.ok()) return WithFormat(xml.status(), result.format);
      result.sets.push_back({"", std::move(xml->gpus)});
      result.warnings = std::move(xml->warnings);
      result.warning_texts = std::move(xml->warning_texts);
      return result;
    }
    case CaptureFormat::kText: {
      auto gpus = ParseSmiText(text, &diagnostics);
      if (!gpus.ok()) return WithFormat(gpus.status(), result.format);
      result.sets.push_back({"", std::move(gpus.value())});
      finish(&result);
      return result;
    }
    case CaptureFormat::kTable: {
      auto gpus = ParseSmiTable(text, &diagnostics);
      if (!gpus.ok()) return WithFormat(gpus.status(), result.format);
      result.sets.push_back({"", std::move(gpus.value())});
      finish(&result);
      return result;
    }
    case CaptureFormat::kCsv: {
      auto gpus = ParseSmiCsv(text, &diagnostics);
      if (!gpus.ok()) return WithFormat(gpus.status(), result.format);
      result.sets.push_back({"", std::move(gpus.value())});
      finish(&result);
      return result;
    }
    case CaptureFormat::kJson: {
      auto gpus = ParseSnapshotJson(text);
      if (!gpus.ok()) return WithFormat(gpus.status(), result.format);
      result.sets.push_back({"", std::move(gpus.value())});
      return result;
    }
    case CaptureFormat::kSectioned: {
      for (const auto& section : SplitSections(text)) {
        if (section.command.rfind("query (-q)", 0) != 0) continue;
        auto gpus = ParseSmiText(section.body, &diagnostics);
        if (!gpus.ok()) return WithFormat(gpus.status().WithContext(section.state + " section"), result.format);
        for (auto& g : *gpus) g.source = "nvidia-smi-text (" + section.state + ")";
        result.sets.push_back({section.state, std::move(gpus.value())});
      }
      if (result.sets.empty()) {
        return core::Status::ParseError("sectioned capture: no 'query (-q)' section to read").WithKeys("error.capture.no_query_section", {});
      }
      finish(&result);
      return result;
    }
    case CaptureFormat::kUnknown:
      break;
  }
  return core::Status::ParseError("unrecognised format",
                                  "give nvidia-smi -q -x XML, nvidia-smi -q text, the default nvidia-smi table, --query-gpu CSV with a header, or gpuprobe inspect JSON")
      .WithKeys("error.capture.unrecognised", {}, "error.capture.unrecognised.hint");
}

}  // namespace gpuprobe::telemetry
