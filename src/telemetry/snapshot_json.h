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

nlohmann::json SnapshotToJson(const Snapshot& snapshot);
/// ParseError naming the field whose type is wrong.
core::Result<Snapshot> SnapshotFromJson(const nlohmann::json& json);
/// Reads a document with "schema": "gpuprobe.inspect.v1" and a "gpus" list.
core::Result<std::vector<Snapshot>> ParseSnapshotJson(std::string_view text);

}  // namespace gpuprobe::telemetry
