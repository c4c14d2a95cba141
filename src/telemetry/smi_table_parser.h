// Parses nvidia-smi's default table (what `nvidia-smi` prints with no arguments): the banner
// with the driver and CUDA versions, one box per GPU and the Processes box. The layout changed
// width between drivers (the 3xx-4xx boxes are narrower than R550's, Windows shows the driver
// model where Linux shows persistence mode), so cells are found by splitting on '|', never by
// column offsets. The table holds less than -q: no clocks, PCIe link, throttle reasons or
// thresholds, and product names cut with "...".
//
// Thread safety: pure functions.
#pragma once

#include <string_view>
#include <vector>

#include "core/status.h"
#include "telemetry/smi_values.h"
#include "telemetry/snapshot.h"

namespace gpuprobe::telemetry {

/// True when `text` looks like the default table (an "NVIDIA-SMI" banner inside a box).
bool LooksLikeSmiTable(std::string_view text);

/// ParseError when no GPU box can be read. Values that are not possible are left empty with
/// a note in `diagnostics` (may be null).
core::Result<std::vector<Snapshot>> ParseSmiTable(std::string_view text, smi::Diagnostics* diagnostics = nullptr);

}  // namespace gpuprobe::telemetry
