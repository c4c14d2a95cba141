// Shared by the libFuzzer targets: after a parser accepts an input, the findings, their JSON
// and a dump of it run too, so a crash anywhere downstream of a parser is found as well.
#pragma once

#include <string>
#include <vector>

#include "telemetry/findings.h"
#include "telemetry/snapshot.h"
#include "telemetry/snapshot_json.h"

namespace gpuprobe::fuzz {

inline void Downstream(const std::vector<telemetry::Snapshot>& gpus) {
  telemetry::Assessment a = telemetry::Assess(gpus);
  for (const auto& g : gpus) (void)telemetry::SnapshotToJson(g).dump();
  (void)a;
}

}  // namespace gpuprobe::fuzz
