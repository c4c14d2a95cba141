// The live topology through NVML, in the shape `nvidia-smi topo -m` prints, so the same view,
// JSON and findings apply: each GPU pair's closest common ancestor
// (nvmlDeviceGetTopologyCommonAncestor: same board/one switch = PIX, several switches = PXB,
// host bridge = PHB, NUMA node = NODE, system = SYS) and NV# from the active NVLinks
// (nvmlDeviceGetNvLinkState) and their far ends (nvmlDeviceGetNvLinkRemotePciInfo): links
// landing on the peer GPU count for that pair; links landing on something else (NVSwitch
// chips) join every pair of GPUs that both have such links, with the smaller of the two
// counts. NICs are not known to NVML, so the matrix holds GPUs only.
//
// Thread safety: call from one thread (NvmlLibrary's contract).
#pragma once

#include "core/status.h"
#include "telemetry/nvml_library.h"
#include "telemetry/topology_matrix.h"

namespace gpuprobe::telemetry {

/// Unavailable when this NVML lacks nvmlDeviceGetTopologyCommonAncestor; a pair NVML will not
/// answer for is left unknown (a note), never guessed.
core::Result<TopologyMatrix> ReadNvmlTopology(const NvmlLibrary& nvml);

}  // namespace gpuprobe::telemetry
