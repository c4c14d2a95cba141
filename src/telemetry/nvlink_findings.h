// Findings over `nvidia-smi nvlink` output and the fabric state: an inactive link among active
// ones, a GPU without links beside GPUs with them, a link slower than its siblings, non-zero
// Replay/Recovery/CRC counters, a fabric that is not trained or registered, and what the
// Fabric Manager journal says. Texts: "topology.finding.<id>.*", like the topo -m findings.
//
// Thread safety: pure functions.
#pragma once

#include <vector>

#include "telemetry/fabric_state.h"
#include "telemetry/nvlink_output.h"
#include "telemetry/p2p_matrix.h"
#include "telemetry/topology_findings.h"

namespace gpuprobe::telemetry {

/// Active links of `gpu` (not inactive, with a speed).
std::vector<const NvLinkLink*> ActiveLinks(const NvLinkGpu& gpu);

/// nvlink_inactive_link, nvlink_inactive_pattern, nvlink_gpu_without_links, nvlink_none_active,
/// nvlink_slow_link, nvlink_errors.
std::vector<TopoFinding> AssessNvLink(const NvLinkOutput& out);

/// fabric_not_ready, fabric_status_error, fabric_unhealthy, fm_failed, fm_nothing_to_do.
std::vector<TopoFinding> AssessFabric(const FabricState& state);

/// p2p_unavailable: a GPU pair whose topo -p2p status is not OK.
std::vector<TopoFinding> AssessP2p(const P2pMatrix& m);

}  // namespace gpuprobe::telemetry
