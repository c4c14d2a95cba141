// Findings: rules over Snapshots that turn numbers into problems a backend engineer can act
// on. Each has a stable id, a severity, the evidence (numbers from the snapshot), and keys of
// its explanation and next step in data/texts (en, zh). Rules are load-aware: the idle clock
// bit is normal, links downtrain at idle, GPU-Util is "time with a kernel", not SM load.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "telemetry/snapshot.h"

namespace gpuprobe::telemetry {

enum class Severity { kInfo, kWarn, kFail };
std::string SeverityName(Severity severity);

struct Finding {
  std::string id;         ///< memory_nearly_full, thermal_throttling, ...
  Severity severity = Severity::kInfo;
  int gpu = 0;            ///< index of the snapshot
  std::string evidence;   ///< "used 137.2 of 140.4 GiB (97.7%)"
  // Texts: "finding.<id>.explain" and "finding.<id>.next" in data/texts.
};

/// Every rule id, in the order they are checked (for docs and tests).
const std::vector<std::string>& FindingIds();

/// Applies every rule to every snapshot.
std::vector<Finding> EvaluateFindings(const std::vector<Snapshot>& gpus);

/// The worst severity among `findings` (kInfo when empty).
Severity WorstSeverity(const std::vector<Finding>& findings);

}  // namespace gpuprobe::telemetry
