// Snapshots and findings in the Prometheus text exposition format (version 0.0.4).
// dcgm-exporter's metric names and units where the same quantity exists (labels in snake_case); gpuprobe_* in base units for the rest (findings, the poller's health).
// Pure: no I/O.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "telemetry/findings.h"
#include "telemetry/snapshot.h"

namespace gpuprobe::serve {

/// What the poller knows about its own health, exported beside the GPU metrics.
struct PollHealth {
  bool last_poll_ok = false;
  double last_success_unix_seconds = 0;  ///< 0 = never
  double last_poll_duration_seconds = 0;
  double poll_interval_seconds = 0;
  long long polls_total = 0, poll_errors_total = 0;
  std::string last_error;
};

/// `"a\"b"` -> `a\"b` with backslash, quote and newline escaped, as the format requires.
std::string EscapeLabelValue(const std::string& value);

/// A sample value in the shortest form that reads back as the same double ("0.3", "1e+21",
/// "NaN", "+Inf").
std::string FormatSampleValue(double value);

std::string RenderMetrics(const std::vector<telemetry::Snapshot>& gpus, const std::vector<telemetry::Finding>& findings,
                          const PollHealth& health, const std::string& hostname);

}  // namespace gpuprobe::serve
