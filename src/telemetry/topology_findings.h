// What a topo -m matrix means for multi-GPU work: each GPU's nearest NICs, and the findings an
// operator raises from it (mixed NVLink, a pair with fewer links than the rest, every pair
// across sockets, a GPU whose nearest NIC is across the socket interconnect). Each finding is
// raised only where the matrix shows it; pairs the capture does not hold are not guessed.
//
// Texts: "topology.finding.<id>.{title,evidence,explain,next}" (evidence may have a variant:
// "topology.finding.<id>.evidence.<variant>") in data/texts/<lang>/topology.json.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "telemetry/findings.h"
#include "telemetry/topology_matrix.h"

namespace gpuprobe::telemetry {

/// Rank of a path, lower is closer: self 0, NV# 1, PIX 2, PXB 3, PHB 4, NODE 5, SYS 6, unknown 7.
int LinkRank(LinkKind kind);

/// The NICs closest to GPU `gpu` (device index) and the link they share; empty when there is
/// no NIC or no link to one is known.
struct NearestNics {
  std::vector<size_t> nics;
  TopoLink link;
};
NearestNics NearestNicsOf(const TopologyMatrix& m, size_t gpu);

struct TopoFinding {
  std::string id;                   ///< all_sys, mixed_nvlink, nvlink_fewer_links, nic_across_sockets
  Severity severity = Severity::kWarn;
  std::string variant;              ///< selects "...evidence.<variant>" when not empty
  std::vector<std::string> devices; ///< the GPUs concerned ("GPU0", ...)
  core::MessageArgs args;           ///< values for the evidence sentence
  std::vector<Fact> facts;          ///< the matrix cells used ("GPU0-GPU5" = "SYS")
  std::string EvidenceKey() const;
};

/// Every topology rule id, in the order they are checked.
const std::vector<std::string>& TopologyFindingIds();

/// Applies every rule to `m`.
std::vector<TopoFinding> AssessTopology(const TopologyMatrix& m);

}  // namespace gpuprobe::telemetry
