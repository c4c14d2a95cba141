// `inspect --from` on interconnect captures, recognised by their content: nvidia-smi topo -m
// (inspect_topology.h), nvidia-smi topo -p2p, nvlink -s/-e/-R/-c and the NVLink fabric's state
// (inspect_nvlink.h). GPU state captures (-q, -q -x, the table, CSV) go to the GPU view.
//
// Thread safety: not thread-safe (writes to the context's streams).
#pragma once

#include <optional>
#include <string>

#include "cli/command.h"

namespace gpuprobe::cli {

/// Shows `text` if it is an interconnect capture read from `label`; nullopt if it is not one.
/// Exit code 1 when a finding is warn or fail, as for GPU state.
std::optional<core::Result<core::ExitCode>> RunInterconnectInspect(VerbContext& ctx, const std::string& label, const std::string& text);

/// `inspect --topology`: the live GPU topology through NVML (telemetry/nvml_topology.h), in
/// the topo -m view. Exit 3 when NVML cannot be loaded or lacks the topology query.
core::Result<core::ExitCode> RunLiveTopology(VerbContext& ctx);

}  // namespace gpuprobe::cli
