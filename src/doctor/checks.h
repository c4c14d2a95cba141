// doctor's checks: each looks at one thing that must be right for CUDA programs to run, and
// says ok / warn / fail (or info / skip), its evidence and the fix. They read the machine only
// through an Environment, so tests run them on recorded /proc, /sys and /dev trees with fake
// nvcc and python3 scripts. The GPU smoke test is added by the CLI (it needs the CUDA build).
//
// Thread safety: pure functions of the Environment and the snapshots.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "doctor/environment.h"
#include "telemetry/snapshot.h"

namespace gpuprobe::doctor {

enum class CheckStatus { kOk, kInfo, kWarn, kFail, kSkip };
std::string CheckStatusName(CheckStatus status);

struct CheckResult {
  std::string id;        ///< gpu_hardware, kernel_module, nouveau, device_nodes, ...
  std::string title;     ///< one line
  CheckStatus status = CheckStatus::kOk;
  std::string evidence;  ///< what was seen
  std::string fix;       ///< what to do (empty when ok)
};

/// What NVML said, when the CLI could load it (empty optional: not loadable, with the reason).
struct NvmlView {
  bool loaded = false;
  std::string error;                      ///< why not, when not loaded
  std::string driver_version, cuda_ceiling;
  std::vector<telemetry::Snapshot> gpus;
};

struct DoctorReport {
  std::vector<CheckResult> checks;
  bool gpu_present = false;  ///< an NVIDIA device is on the PCI bus
  std::string driver_version;
};

/// Runs every check. `nvml` is what the caller read through NVML.
DoctorReport RunChecks(const Environment& env, const NvmlView& nvml);

/// Worst status (kOk when empty; kInfo and kSkip count as ok).
CheckStatus WorstStatus(const std::vector<CheckResult>& checks);

}  // namespace gpuprobe::doctor
