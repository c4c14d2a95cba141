#include "model/gpu_link.h"

#include "model/spec_derivation.h"

namespace gpuprobe::model {

// The spec database writes an integrated part's host interface as "SoC ..." (unified memory).
bool IsIntegrated(const GpuSpec& g) { return g.host_interface.find("SoC") != std::string::npos; }

namespace {

double PeerBytesPerSecond(const GpuSpec& g) {
  // The data holds NVLink/xGMI totals with both directions added (gpu_specs_NOTES.md).
  return g.nvlink_total_bidirectional_gb_per_s.known() ? *g.nvlink_total_bidirectional_gb_per_s.value * 1e9 / 2 : 0;
}

}  // namespace

std::string LinkKindId(LinkKind kind) {
  switch (kind) {
    case LinkKind::kNvlinkSxm: return "nvlink_sxm";
    case LinkKind::kNvlinkBridge: return "nvlink_bridge";
    case LinkKind::kNvlinkC2c: return "nvlink_c2c";
    case LinkKind::kNvlinkBoard: return "nvlink_board";
    case LinkKind::kInfinityFabric: return "infinity_fabric";
    case LinkKind::kPcie: return "pcie";
    case LinkKind::kNone: return "none";
  }
  return "none";
}

GpuLink PcieLink(const GpuSpec& g) {
  GpuLink link;
  if (IsIntegrated(g)) return link;
  if (auto pcie = DerivePcieBandwidth(g)) {
    link.kind = LinkKind::kPcie;
    link.bytes_per_s = *pcie;
  }
  return link;
}

GpuLink PeerLink(const GpuSpec& g) {
  GpuLink link;
  link.nvlink_generation = g.nvlink_generation;
  link.bytes_per_s = PeerBytesPerSecond(g);
  const std::string& kind = g.interconnect;
  if (kind == "NVLink (SXM)") {
    link.kind = LinkKind::kNvlinkSxm;
    link.max_gpus = 8;  // HGX/DGX baseboards: 8 GPUs behind NVSwitch (4 or 8 on older boards)
  } else if (kind == "NVLink bridge (2 cards)") {
    link.kind = LinkKind::kNvlinkBridge;
    link.max_gpus = 2;
  } else if (kind == "NVLink-C2C + NVLink") {
    link.kind = LinkKind::kNvlinkC2c;
    // GB200/GB300 NVL72: 72 GPUs in one NVLink domain; DGX GH200: 256 superchips.
    link.max_gpus = g.nvlink_generation.value_or(4) >= 5 ? 72 : 256;
  } else if (kind == "NVLink (board)") {
    link.kind = LinkKind::kNvlinkBoard;
    link.max_gpus = 8;
  } else if (kind == "Infinity Fabric (xGMI)") {
    link.kind = LinkKind::kInfinityFabric;
    link.max_gpus = 8;  // MI300X/MI325X/MI355X platforms: 8 OAM modules, fully connected
  } else {
    return PcieLink(g);
  }
  return link;
}

GroupLink LinkForGroup(const GpuSpec& g, int gpus) {
  GroupLink out;
  out.link = PeerLink(g);
  if (out.link.kind == LinkKind::kPcie || out.link.kind == LinkKind::kNone) return out;
  bool too_many = out.link.max_gpus > 0 && gpus > out.link.max_gpus;
  if (out.link.bytes_per_s <= 0 || (too_many && out.link.kind == LinkKind::kNvlinkBridge)) {
    // A bridge joins two cards: a ring over four crosses PCIe on every other hop, and the
    // slowest hop sets a ring's pace.
    out.link = PcieLink(g);
    out.fell_back_to_pcie = true;
    return out;
  }
  out.beyond_domain = too_many;
  return out;
}

Phrase LinkName(const GpuSpec& g, const GpuLink& link) {
  (void)g;
  switch (link.kind) {
    case LinkKind::kNvlinkSxm: return Say("gpus.link.nvlink_sxm").Int("gen", link.nvlink_generation.value_or(0));
    case LinkKind::kNvlinkBridge: return Say("gpus.link.nvlink_bridge").Int("gen", link.nvlink_generation.value_or(0));
    case LinkKind::kNvlinkC2c: return Say("gpus.link.nvlink_c2c").Int("gen", link.nvlink_generation.value_or(0));
    case LinkKind::kNvlinkBoard: return Say("gpus.link.nvlink_board").Int("gen", link.nvlink_generation.value_or(0));
    case LinkKind::kInfinityFabric: return Say("gpus.link.infinity_fabric");
    case LinkKind::kPcie: {
      Phrase p = Say("gpus.link.pcie");
      p.Int("gen", g.pcie_generation.value_or(0)).Int("lanes", g.pcie_lanes.value_or(0));
      return p;
    }
    case LinkKind::kNone: return Say("gpus.link.none");
  }
  return Say("gpus.link.none");
}

}  // namespace gpuprobe::model
