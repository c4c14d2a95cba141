// Parses `nvidia-smi -q -x` XML (schema v10 to v13, chosen by the DOCTYPE; an unknown or
// missing DOCTYPE is read as the newest known schema with a warning, as telegraf does).
// External DTDs are never fetched and documents declaring entities are refused (XXE).
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "telemetry/snapshot.h"

namespace gpuprobe::telemetry {

struct XmlParseResult {
  std::vector<Snapshot> gpus;
  int schema_version = 0;             ///< 10..13; 0 when the DOCTYPE names none
  std::vector<std::string> warnings;  ///< e.g. attached_gpus disagreeing with the GPU blocks
  std::vector<core::TextRef> warning_texts;  ///< the same warnings as text keys, one per warning
};

/// ParseError with pugixml's description and offset for malformed XML, for a root that is not
/// <nvidia_smi_log>, for entity declarations, or for a document without any <gpu> block.
core::Result<XmlParseResult> ParseSmiXml(std::string_view xml);

}  // namespace gpuprobe::telemetry
