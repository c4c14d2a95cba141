// ReportSources: the documents a machine summary is made from, whether measured now (the
// tour, `report` without --from) or loaded from saved files (`report --from`). The bench run
// is typed (bench/bench_document.h); the others are the JSON their verbs print.
//
// Thread safety: plain values; LoadReportSources is reentrant.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_document.h"
#include "core/status.h"

namespace gpuprobe::app {

struct ReportSources {
  std::optional<bench::BenchDocument> bench;  ///< the side-by-side run, when there was one
  nlohmann::json inspect;  ///< gpuprobe.inspect.v1 (null when absent)
  nlohmann::json doctor;   ///< gpuprobe.doctor.v1 (null when absent)
  nlohmann::json gpu;      ///< the tour's "gpu" object: availability and devices
  nlohmann::json cpu;      ///< the tour's "cpu" object: identity without measurements
  std::vector<std::string> origins;  ///< "bench: run.json", "this machine, now", ...
};

/// Reads saved documents (`bench --json`, `inspect --json`, `doctor --json` or the tour's
/// `--json`), each kind at most once. InvalidArgument or ParseError naming the file (and the
/// field) for anything else; never throws.
core::Result<ReportSources> LoadReportSources(const std::vector<std::string>& paths);

}  // namespace gpuprobe::app
