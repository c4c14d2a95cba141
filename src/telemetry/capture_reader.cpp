#include "telemetry/capture_reader.h"

#include <cctype>
#include <sstream>

#include "core/input_limits.h"
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
  // A parser that already named the format (the JSON reader labels its own errors) is not
  // named twice ("gpuprobe JSON: gpuprobe JSON: not valid JSON").
  const std::string name = CaptureFormatName(format);
  if (status.message().rfind(name + ":", 0) == 0) return status;
  return status.WithContext(name);
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

namespace {

core::Result<CaptureResult> ReadCaptureUnbounded(std::string_view text, CaptureResult result);

size_t CountOccurrences(std::string_view text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string_view::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

/// GPU records a capture holds, counted in one pass before any is parsed, so the budget
/// bounds the work and memory of the parse itself (a GPU record costs ~30 KB parsed).
size_t CountGpuRecords(std::string_view text, CaptureFormat format) {
  switch (format) {
    case CaptureFormat::kXml: return CountOccurrences(text, "<gpu ") + CountOccurrences(text, "<gpu>");
    case CaptureFormat::kText:
    case CaptureFormat::kSectioned: {
      size_t n = 0;  // "GPU 00000000:17:00.0" at the start of a line
      for (size_t at = text.find("GPU "); at != std::string_view::npos; at = text.find("GPU ", at + 4)) {
        bool line_start = at == 0 || text[at - 1] == '\n';
        if (line_start && at + 4 < text.size() && std::isxdigit(static_cast<unsigned char>(text[at + 4]))) ++n;
      }
      return n;
    }
    case CaptureFormat::kCsv: {
      size_t lines = CountOccurrences(text, "\n") + (text.empty() || text.back() == '\n' ? 0 : 1);
      return lines > 0 ? lines - 1 : 0;
    }
    case CaptureFormat::kTable: return CountOccurrences(text, "MiB /");  // the memory cell, one per GPU
    default: return 0;
  }
}

}  // namespace

core::Result<CaptureResult> ReadCapture(std::string_view text) {
  CaptureResult result;
  result.format = DetectCaptureFormat(text);
  if (size_t records = CountGpuRecords(text, result.format); records > core::limits::kGpusPerCapture) {
    return core::limits::OverLimit(CaptureFormatName(result.format), "gpus", records, core::limits::kGpusPerCapture);
  }
  auto result_or = ReadCaptureUnbounded(text, result);
  if (result_or.ok()) {
    for (const auto& set : result_or->sets) {
      if (set.gpus.size() > core::limits::kGpusPerCapture) {
        return core::limits::OverLimit(CaptureFormatName(result.format), "gpus", set.gpus.size(), core::limits::kGpusPerCapture);
      }
    }
  }
  return result_or;
}

namespace {

core::Result<CaptureResult> ReadCaptureUnbounded(std::string_view text, CaptureResult result) {
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
        if (!gpus.ok()) return WithFormat(gpus.status().WithContextKey(section.state + " section", "capture.section", {{"state", section.state}}), result.format);
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

}  // namespace

}  // namespace gpuprobe::telemetry
