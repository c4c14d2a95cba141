// gpuprobe's own JSON for Snapshots (schema gpuprobe.inspect.v1): written by `inspect --json`
// and read back by `inspect --from`. Field names are the Snapshot's, units in the names.
//
// Thread safety: pure functions.
#pragma once

#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "telemetry/snapshot.h"

namespace gpuprobe::telemetry {

/// Every string is written as valid UTF-8 (invalid bytes become U+FFFD), so dumping the JSON
/// never throws.
nlohmann::json SnapshotToJson(const Snapshot& snapshot);
/// ParseError naming the field (prefixed with `context`, e.g. "gpus[0].") whose type is
/// wrong or whose value is not possible (negative memory, 10^30 MHz, a fractional pid).
core::Result<Snapshot> SnapshotFromJson(const nlohmann::json& json, const std::string& context = "");
/// Reads a document with "schema": "gpuprobe.inspect.v1" and a "gpus" list, with the depth
/// limit and line/column errors of core::ParseJsonInput.
core::Result<std::vector<Snapshot>> ParseSnapshotJson(std::string_view text);

}  // namespace gpuprobe::telemetry
