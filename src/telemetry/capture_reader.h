// Reading a saved capture whatever its format: nvidia-smi -q -x XML, -q text, the default
// table, --query-gpu CSV, gpuprobe's own JSON, or a multi-section capture file (sections headed
// "# <state> :: <command>", as the nvidia_gpu_exporter project records them, idle and load).
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "telemetry/snapshot.h"

namespace gpuprobe::telemetry {

enum class CaptureFormat { kXml, kText, kTable, kCsv, kJson, kSectioned, kUnknown };
std::string CaptureFormatName(CaptureFormat format);

/// Detects the format from the content (not the file name).
CaptureFormat DetectCaptureFormat(std::string_view text);

struct CaptureSet {
  std::string state;             ///< "idle", "load"; empty for single-moment files
  std::vector<Snapshot> gpus;
};

struct CaptureResult {
  CaptureFormat format = CaptureFormat::kUnknown;
  std::vector<CaptureSet> sets;          ///< one per moment in the file
  std::vector<std::string> warnings;     ///< format remarks and every value rejected or repaired (naming the field)
  std::vector<core::TextRef> warning_texts;  ///< the same warnings as text keys, one per warning
};

/// One section of a sectioned capture ("# <state> :: <command>" and the text below it).
struct CaptureSection {
  std::string state, command, body;
};
/// Splits a sectioned capture into its sections (empty for any other format).
std::vector<CaptureSection> CaptureSections(std::string_view text);

/// Parses `text` (the one entry point every format and fuzz target goes through). ParseError
/// saying which format was detected and what is wrong with it; ParseError "unrecognised
/// format" listing the formats it accepts. Never throws.
core::Result<CaptureResult> ReadCapture(std::string_view text);

}  // namespace gpuprobe::telemetry
