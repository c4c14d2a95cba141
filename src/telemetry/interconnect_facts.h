// Facts read off the interconnect captures that every view of them states the same way: the
// GPU pairs of a topo -m matrix with the link between them, an NVLink GPU's bandwidth per
// direction, and the vocabulary of topo -p2p's status codes. Views word them
// (cli/inspect_topology.cpp, cli/inspect_nvlink.cpp); findings reason over the same structures.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "telemetry/nvlink_output.h"
#include "telemetry/topology_matrix.h"

namespace gpuprobe::telemetry {

/// Two GPUs of a topo -m matrix (device indices, a < b) and the link between them; no link
/// when the cell was unreadable.
struct GpuPair {
  size_t a = 0, b = 0;
  std::optional<TopoLink> link;
};

/// Every pair of GPUs of `matrix`, in the matrix's order.
std::vector<GpuPair> GpuPairs(const TopologyMatrix& matrix);

/// The sum of the speeds of `gpu`'s active links (GB/s per direction, as nvidia-smi nvlink -s
/// gives each link's); nullopt when no link is active with a known speed.
std::optional<double> PerDirectionGbps(const NvLinkGpu& gpu);

/// The id of a topo -p2p status code ("OK", "CNS", "GNS", "TNS", "NS", "DR", "U"), lower case;
/// "u" (unknown) for anything else. Texts "topology.p2p.code.<id>" say what each means.
std::string P2pCodeId(const std::string& code);

}  // namespace gpuprobe::telemetry
