// Live GPU state through NVML: every GPU as a Snapshot. Fields the driver does not support,
// or whose symbol is missing, stay empty; a GPU that reports GPU_IS_LOST makes the read fail
// with that reason (the Xid 79 case), never a crash.
//
// Thread safety: one reader at a time per NvmlLibrary.
#pragma once

#include <vector>

#include "core/status.h"
#include "telemetry/nvml_library.h"
#include "telemetry/smi_values.h"
#include "telemetry/snapshot.h"

namespace gpuprobe::telemetry {

/// Every GPU NVML sees. Text NVML returns is made valid UTF-8, with a note in `diagnostics`
/// (may be null) naming the GPU and field. Processes: compute and graphics lists (type "C",
/// "G", "C+G"); graphics_processes_known is false when the driver lacks the graphics call.
core::Result<std::vector<Snapshot>> ReadNvmlSnapshots(const NvmlLibrary& nvml, smi::Diagnostics* diagnostics = nullptr);

}  // namespace gpuprobe::telemetry
