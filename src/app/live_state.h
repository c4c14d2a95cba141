// What the tour and `report` read from this machine in one go: GPU identity, a quick
// side-by-side bench, live GPU state and doctor's checks, each as the same JSON document its
// own verb prints, so a report made later from saved files (`report --from`) is the same.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "app/report_sources.h"
#include "core/status.h"
#include "model/cpu_identity.h"
#include "report/i18n.h"

namespace gpuprobe::app {

/// This machine's CPU identity from /proc/cpuinfo and /proc/meminfo (empty fields when absent).
model::CpuIdentity ReadCpuIdentity();
/// The tour's "cpu" object: model, vendor, cores, SIMD, clock and memory in SI units.
nlohmann::json CpuIdentityJson(const model::CpuIdentity& cpu);

/// The tour's "gpu" object: whether CUDA is built and a GPU usable, the reason when not,
/// and each device's identity with its spec-database name.
nlohmann::json GpuIdentityJson(bool smoke_test);

struct LiveRunOptions {
  bool smoke_test = true;
  bool bench = true;         ///< false: identity, state and doctor only
  double seconds_per_case = 0.25;
  bool live_state = true;    ///< false: no live GPU state (app/inspect_state.h)
};

/// Runs everything above; `progress` gets one short line per step (for stderr).
ReportSources CollectLiveSources(const LiveRunOptions& options, const report::Texts& texts,
                                 const std::function<void(const std::string&)>& progress);

/// The benchmarks of the quick side-by-side run (ids; GPU ones are included where built).
const std::vector<std::string>& SideBySideBenchmarks();

}  // namespace gpuprobe::app
