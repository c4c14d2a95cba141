// GPU-to-GPU links per SKU, read from the spec data's `interconnect`, `nvlink_generation` and
// `nvlink_total_bidirectional_gb_per_s` fields, never guessed from the vendor: an H100 SXM
// talks over NVLink 4 through NVSwitch, an H100 PCIe only to the one card its bridge joins,
// an L40S over PCIe alone, an MI300X over AMD's Infinity Fabric (xGMI).
//
// Bandwidths are per GPU and per direction (the vendor's bidirectional total / 2), the figure
// a ring all-reduce streams at.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>

#include "model/gpu_spec.h"
#include "model/phrase.h"

namespace gpuprobe::model {

enum class LinkKind {
  kNvlinkSxm,       ///< NVLink on an SXM baseboard, through NVSwitch (HGX)
  kNvlinkBridge,    ///< PCIe cards joined in pairs by an NVLink bridge
  kNvlinkC2c,       ///< Grace superchips: NVLink-C2C to the CPU, NVLink between GPUs
  kNvlinkBoard,     ///< NVLink between the GPUs of one board
  kInfinityFabric,  ///< AMD Instinct: Infinity Fabric (xGMI) between OAM modules
  kPcie,            ///< no GPU-to-GPU link: traffic crosses PCIe
  kNone,            ///< integrated parts (SoC): no link to another GPU at all
};

struct GpuLink {
  LinkKind kind = LinkKind::kNone;
  std::optional<int> nvlink_generation;
  double bytes_per_s = 0;  ///< per GPU, per direction; 0 when the spec does not say
  /// GPUs one such link joins directly: 2 (bridge), 8 (HGX, OAM platforms), 72 (GB200/GB300
  /// NVL72), 256 (DGX GH200); 0 = no stated limit (PCIe: every card of the host).
  int max_gpus = 0;
};

/// The SKU's own GPU-to-GPU link; its PCIe slot when it has none (kNone for SoCs).
/// An integrated GPU (a system-on-chip part: Jetson, GB10): no PCIe link of its own, not a
/// card one rents or racks.
bool IsIntegrated(const GpuSpec& gpu);

GpuLink PeerLink(const GpuSpec& gpu);
/// The SKU's PCIe link as a GpuLink (kNone when the spec gives no PCIe generation and width).
GpuLink PcieLink(const GpuSpec& gpu);

/// The link a group of `gpus` GPUs of this SKU exchanges data over.
struct GroupLink {
  GpuLink link;
  bool fell_back_to_pcie = false;  ///< the SKU's link cannot join this many (bridges join 2) or its bandwidth is unknown
  bool beyond_domain = false;      ///< more GPUs than one NVLink/xGMI domain: the rest is the network between hosts
};
GroupLink LinkForGroup(const GpuSpec& gpu, int gpus);

/// The link's name as a phrase ("NVLink 4 (SXM)", "Infinity Fabric (xGMI)", "PCIe only").
Phrase LinkName(const GpuSpec& gpu, const GpuLink& link);
/// A stable id for JSON: nvlink_sxm, nvlink_bridge, nvlink_c2c, nvlink_board, infinity_fabric, pcie, none.
std::string LinkKindId(LinkKind kind);

}  // namespace gpuprobe::model
