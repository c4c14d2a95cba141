#include "telemetry/topology_findings.h"

#include <algorithm>
#include <map>

namespace gpuprobe::telemetry {
namespace {

struct Pair {
  size_t a, b;
  TopoLink link;
};

// Every GPU pair whose link the capture holds (a truncated capture leaves some unknown).
std::vector<Pair> KnownGpuPairs(const TopologyMatrix& m) {
  std::vector<Pair> out;
  auto gpus = m.Gpus();
  for (size_t i = 0; i < gpus.size(); ++i) {
    for (size_t j = i + 1; j < gpus.size(); ++j) {
      auto link = m.Link(gpus[i], gpus[j]);
      if (link && link->kind != LinkKind::kUnknown) out.push_back({gpus[i], gpus[j], *link});
    }
  }
  return out;
}

std::string PairName(const TopologyMatrix& m, const Pair& p) { return m.devices[p.a].name + "-" + m.devices[p.b].name; }

// "GPU0-GPU5 (SYS), GPU0-GPU6 (SYS)", at most `limit` pairs then "+N".
std::string PairList(const TopologyMatrix& m, const std::vector<Pair>& pairs, size_t limit = 6) {
  std::string out;
  for (size_t i = 0; i < pairs.size() && i < limit; ++i) {
    out += (out.empty() ? "" : ", ") + PairName(m, pairs[i]) + " (" + pairs[i].link.code + ")";
  }
  if (pairs.size() > limit) out += ", +" + std::to_string(pairs.size() - limit);
  return out;
}

void AddDevice(std::vector<std::string>* devices, const std::string& name) {
  if (std::find(devices->begin(), devices->end(), name) == devices->end()) devices->push_back(name);
}

TopoFinding Make(const std::string& id, const TopologyMatrix& m, const std::vector<Pair>& pairs) {
  TopoFinding f;
  f.id = id;
  for (const auto& p : pairs) {
    AddDevice(&f.devices, m.devices[p.a].name);
    AddDevice(&f.devices, m.devices[p.b].name);
    f.facts.push_back({PairName(m, p), p.link.code});
  }
  return f;
}

// Every GPU pair crosses the socket interconnect: peer-to-peer copies and NCCL go through
// both CPUs' memory paths. GPUs on the same NUMA node reported SYS usually means the real PCIe
// tree is hidden (a VM, some risers) or the platform routes P2P through the CPU.
void AllSys(const TopologyMatrix& m, const std::vector<Pair>& pairs, std::vector<TopoFinding>* out) {
  if (pairs.empty()) return;
  for (const auto& p : pairs) {
    if (p.link.kind != LinkKind::kSys) return;
  }
  TopoFinding f = Make("all_sys", m, pairs);
  f.facts.resize(std::min<size_t>(f.facts.size(), 8));
  f.args = {{"gpus", std::to_string(m.Gpus().size())}, {"pairs", std::to_string(pairs.size())}};
  std::vector<Pair> same_node;
  for (const auto& p : pairs) {
    const auto& na = m.devices[p.a].numa_affinity;
    const auto& nb = m.devices[p.b].numa_affinity;
    if (na && nb && !na->empty() && *na != "N/A" && *na == *nb) same_node.push_back(p);
  }
  if (!same_node.empty()) {
    f.variant = "same_numa";
    f.args.push_back({"same_node", PairList(m, same_node, 4)});
  }
  out->push_back(std::move(f));
}

// Some pairs have NVLink and some do not: a job spread over every GPU runs its collectives at
// the speed of the PCIe pairs.
void MixedNvlink(const TopologyMatrix& m, const std::vector<Pair>& pairs, std::vector<TopoFinding>* out) {
  std::vector<Pair> nv, other;
  for (const auto& p : pairs) (p.link.kind == LinkKind::kNvLink ? nv : other).push_back(p);
  if (nv.empty() || other.empty()) return;
  TopoFinding f = Make("mixed_nvlink", m, other);
  f.args = {{"nv_pairs", std::to_string(nv.size())}, {"pairs", std::to_string(pairs.size())},
            {"others", PairList(m, other)}, {"nvlinked", PairList(m, nv, 4)}};
  out->push_back(std::move(f));
}

// NV pairs where most share one link count and a few have fewer: a link down, a bridge
// missing or badly seated. Designs with two counts in even shares (DGX-1's hybrid cube-mesh:
// NV1 and NV2) are not flagged: the lower count must be a minority.
void FewerLinks(const TopologyMatrix& m, const std::vector<Pair>& pairs, std::vector<TopoFinding>* out) {
  std::map<int, size_t> by_count;
  size_t nv_pairs = 0;
  for (const auto& p : pairs) {
    if (p.link.kind != LinkKind::kNvLink) continue;
    ++by_count[p.link.nvlinks];
    ++nv_pairs;
  }
  if (by_count.size() < 2) return;
  auto common = std::max_element(by_count.begin(), by_count.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
  if (common->second * 2 <= nv_pairs) return;
  std::vector<Pair> fewer;
  for (const auto& p : pairs) {
    if (p.link.kind == LinkKind::kNvLink && p.link.nvlinks < common->first) fewer.push_back(p);
  }
  if (fewer.empty()) return;
  TopoFinding f = Make("nvlink_fewer_links", m, fewer);
  f.args = {{"expected", std::to_string(common->first)}, {"common_pairs", std::to_string(common->second)},
            {"nv_pairs", std::to_string(nv_pairs)}, {"fewer", PairList(m, fewer)}};
  out->push_back(std::move(f));
}

// A GPU whose closest NIC is SYS: GPUDirect RDMA from that GPU crosses the socket
// interconnect (or falls back to staging through host memory), and inter-node traffic of
// that rank is slower than its neighbours'.
void NicAcrossSockets(const TopologyMatrix& m, std::vector<TopoFinding>* out) {
  if (m.Nics().empty()) return;
  TopoFinding f;
  f.id = "nic_across_sockets";
  std::string list;
  for (size_t g : m.Gpus()) {
    auto nearest = NearestNicsOf(m, g);
    if (nearest.nics.empty() || nearest.link.kind != LinkKind::kSys) continue;
    f.devices.push_back(m.devices[g].name);
    f.facts.push_back({m.devices[g].name + "-" + m.devices[nearest.nics.front()].name, nearest.link.code});
  }
  if (f.devices.empty()) return;
  for (const auto& d : f.devices) list += (list.empty() ? "" : ", ") + d;
  f.args = {{"gpus", list}, {"count", std::to_string(f.devices.size())}, {"nics", std::to_string(m.Nics().size())}};
  out->push_back(std::move(f));
}

}  // namespace

int LinkRank(LinkKind kind) {
  switch (kind) {
    case LinkKind::kSelf: return 0;
    case LinkKind::kNvLink: return 1;
    case LinkKind::kPix: return 2;
    case LinkKind::kPxb: return 3;
    case LinkKind::kPhb: return 4;
    case LinkKind::kNode: return 5;
    case LinkKind::kSys: return 6;
    case LinkKind::kUnknown: return 7;
  }
  return 7;
}

NearestNics NearestNicsOf(const TopologyMatrix& m, size_t gpu) {
  NearestNics out;
  int best = LinkRank(LinkKind::kUnknown);
  for (size_t n : m.Nics()) {
    auto link = m.Link(gpu, n);
    if (!link || link->kind == LinkKind::kUnknown) continue;
    int rank = LinkRank(link->kind);
    if (rank < best) {
      best = rank;
      out.nics.clear();
      out.link = *link;
    }
    if (rank == best) out.nics.push_back(n);
  }
  return out;
}

std::string TopoFinding::EvidenceKey() const {
  return "topology.finding." + id + ".evidence" + (variant.empty() ? "" : "." + variant);
}

const std::vector<std::string>& TopologyFindingIds() {
  static const std::vector<std::string> ids = {"all_sys", "mixed_nvlink", "nvlink_fewer_links", "nic_across_sockets"};
  return ids;
}

std::vector<TopoFinding> AssessTopology(const TopologyMatrix& m) {
  std::vector<TopoFinding> out;
  auto pairs = KnownGpuPairs(m);
  AllSys(m, pairs, &out);
  MixedNvlink(m, pairs, &out);
  FewerLinks(m, pairs, &out);
  NicAcrossSockets(m, &out);
  return out;
}

}  // namespace gpuprobe::telemetry
