// Parses `nvidia-smi -q` text (the human-readable full query) into Snapshots: a tree built
// from indentation, then fields looked up by path. Handles the R610 banner rename (KMD
// Version / CUDA UMD Version), deprecation suffixes, both process layouts and MIG devices.
//
// Thread safety: pure functions.
#pragma once

#include <string_view>
#include <vector>

#include "core/status.h"
#include "telemetry/smi_values.h"
#include "telemetry/snapshot.h"

namespace gpuprobe::telemetry {

/// ParseError when the text has no "NVSMI LOG" banner or no GPU section, has an empty GPU
/// section (cut off), or is indented deeper than nvidia-smi ever indents. Filtered output
/// (`nvidia-smi -q -d MEMORY`) is read for what it has. Values that are not possible are left
/// empty with a note in `diagnostics` (may be null).
core::Result<std::vector<Snapshot>> ParseSmiText(std::string_view text, smi::Diagnostics* diagnostics = nullptr);

}  // namespace gpuprobe::telemetry
