// Parses `nvidia-smi -q` text (the human-readable full query) into Snapshots: a tree built
// from indentation, then fields looked up by path. Handles the R610 banner rename (KMD
// Version / CUDA UMD Version), deprecation suffixes, both process layouts and MIG devices.
//
// Thread safety: pure functions.
#pragma once

#include <string_view>
#include <vector>

#include "core/status.h"
#include "telemetry/snapshot.h"

namespace gpuprobe::telemetry {

/// ParseError when the text has no "NVSMI LOG" banner or no GPU section, or is truncated
/// inside the first GPU section before its name.
core::Result<std::vector<Snapshot>> ParseSmiText(std::string_view text);

}  // namespace gpuprobe::telemetry
