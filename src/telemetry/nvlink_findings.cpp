#include "telemetry/nvlink_findings.h"

#include <algorithm>
#include <fmt/format.h>

#include "core/strings.h"

namespace gpuprobe::telemetry {
namespace {

std::string GpuName(const NvLinkGpu& g) { return "GPU " + std::to_string(g.index); }

std::vector<int> InactiveLinks(const NvLinkGpu& g) {
  std::vector<int> out;
  for (const auto& l : g.links) {
    if (l.inactive) out.push_back(l.index);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string Numbers(const std::vector<int>& v) {
  std::string out;
  for (int i : v) out += (out.empty() ? "" : ", ") + std::to_string(i);
  return out;
}


TopoFinding Make(const std::string& id, Severity severity) {
  TopoFinding f;
  f.id = id;
  f.severity = severity;
  return f;
}

bool Reported(const std::optional<std::string>& v) { return v && !v->empty() && *v != "N/A"; }

// Inactive links beside active ones. When every GPU with links has the same inactive set
// (an H100 PCIe pair whose bridge wires 12 of 18 link slots), that is the wiring, not a fault.
void Inactive(const NvLinkOutput& out, std::vector<TopoFinding>* findings) {
  std::vector<const NvLinkGpu*> partial;
  std::vector<const NvLinkGpu*> with_links;
  for (const auto& g : out.gpus) {
    if (ActiveLinks(g).empty()) continue;
    with_links.push_back(&g);
    if (!InactiveLinks(g).empty()) partial.push_back(&g);
  }
  if (partial.empty()) return;
  bool same = with_links.size() >= 2 && partial.size() == with_links.size() &&
              std::all_of(partial.begin(), partial.end(), [&](const NvLinkGpu* g) { return InactiveLinks(*g) == InactiveLinks(*partial.front()); });
  TopoFinding f = same ? Make("nvlink_inactive_pattern", Severity::kInfo) : Make("nvlink_inactive_link", Severity::kWarn);
  std::vector<std::string> parts;
  for (const auto* g : partial) {
    f.devices.push_back(GpuName(*g));
    auto inactive = InactiveLinks(*g);
    f.facts.push_back({GpuName(*g) + " inactive links", Numbers(inactive)});
    parts.push_back(fmt::format("{}: {} / {} ({})", GpuName(*g), inactive.size(), g->links.size(), Numbers(inactive)));
  }
  f.args = {{"gpus", core::Join(parts, "; ")}, {"active", std::to_string(ActiveLinks(*partial.front()).size())}};
  findings->push_back(std::move(f));
}

// Some GPUs have active links, others none (the NVML all-inactive message): a missing or
// unseated bridge, or a GPU wired without NVLink. Every GPU without links: PCIe only.
void WithoutLinks(const NvLinkOutput& out, std::vector<TopoFinding>* findings) {
  if (!out.has_status) return;
  std::vector<std::string> none, some;
  for (const auto& g : out.gpus) {
    bool read_status = g.all_inactive || std::any_of(g.links.begin(), g.links.end(), [](const NvLinkLink& l) { return l.inactive || l.speed_gbps; });
    if (!read_status) continue;
    (ActiveLinks(g).empty() ? none : some).push_back(GpuName(g));
  }
  if (none.empty()) return;
  TopoFinding f = some.empty() ? Make("nvlink_none_active", Severity::kInfo) : Make("nvlink_gpu_without_links", Severity::kWarn);
  f.devices = none;
  std::string list, with;
  for (const auto& n : none) list += (list.empty() ? "" : ", ") + n;
  for (const auto& s : some) with += (with.empty() ? "" : ", ") + s;
  f.args = {{"gpus", list}, {"with_links", with}};
  findings->push_back(std::move(f));
}

// An active link slower than the fastest link of its GPU: trained at a lower rate.
void SlowLinks(const NvLinkOutput& out, std::vector<TopoFinding>* findings) {
  TopoFinding f = Make("nvlink_slow_link", Severity::kWarn);
  std::vector<std::string> parts;
  for (const auto& g : out.gpus) {
    auto active = ActiveLinks(g);
    if (active.size() < 2) continue;
    double top = 0;
    for (const auto* l : active) top = std::max(top, *l->speed_gbps);
    for (const auto* l : active) {
      if (*l->speed_gbps < top * 0.99) {
        parts.push_back(fmt::format("GPU{} link{}: {:g} GB/s < {:g} GB/s", g.index, l->index, *l->speed_gbps, top));
        f.devices.push_back(GpuName(g));
        f.facts.push_back({fmt::format("{} link {}", GpuName(g), l->index), fmt::format("{:g} GB/s", *l->speed_gbps)});
      }
    }
  }
  if (parts.empty()) return;
  f.devices.erase(std::unique(f.devices.begin(), f.devices.end()), f.devices.end());
  f.args = {{"links", core::Join(parts, "; ")}};
  findings->push_back(std::move(f));
}

// Non-zero error counters. Replay: the link resent a packet after a CRC failure (data is
// still correct, bandwidth is lost). Recovery: the link retrained. CRC: corrupted flits.
void Errors(const NvLinkOutput& out, std::vector<TopoFinding>* findings) {
  TopoFinding f = Make("nvlink_errors", Severity::kWarn);
  std::vector<std::string> parts;
  for (const auto& g : out.gpus) {
    for (const auto& l : g.links) {
      std::uint64_t replay = l.replay_errors.value_or(0), recovery = l.recovery_errors.value_or(0), crc = l.crc_errors.value_or(0);
      if (replay == 0 && recovery == 0 && crc == 0) continue;
      parts.push_back(fmt::format("GPU{} link{}: {}/{}/{}", g.index, l.index, replay, recovery, crc));
      if (std::find(f.devices.begin(), f.devices.end(), GpuName(g)) == f.devices.end()) f.devices.push_back(GpuName(g));
      f.facts.push_back({fmt::format("{} link {} replay/recovery/CRC", GpuName(g), l.index), fmt::format("{}/{}/{}", replay, recovery, crc)});
    }
  }
  if (parts.empty()) return;
  f.args = {{"links", core::Join(parts, "; ")}};
  findings->push_back(std::move(f));
}

}  // namespace

std::vector<const NvLinkLink*> ActiveLinks(const NvLinkGpu& gpu) {
  std::vector<const NvLinkLink*> out;
  for (const auto& l : gpu.links) {
    if (!l.inactive && l.speed_gbps) out.push_back(&l);
  }
  return out;
}

std::vector<TopoFinding> AssessNvLink(const NvLinkOutput& out) {
  std::vector<TopoFinding> findings;
  Inactive(out, &findings);
  WithoutLinks(out, &findings);
  SlowLinks(out, &findings);
  Errors(out, &findings);
  return findings;
}

std::vector<TopoFinding> AssessFabric(const FabricState& state) {
  std::vector<TopoFinding> findings;
  for (const auto& b : state.blocks) {
    // "Not Supported" / N/A: not an NVSwitch (or multi-node NVLink) GPU; nothing to judge.
    bool applies = Reported(b.state) && *b.state != "Not Supported";
    if (!applies) continue;
    if (*b.state != "Completed") {
      TopoFinding f = Make("fabric_not_ready", Severity::kFail);
      f.args = {{"state", *b.state}};
      f.facts.push_back({"Fabric.State", *b.state});
      findings.push_back(std::move(f));
    }
    if (Reported(b.status) && *b.status != "Success") {
      TopoFinding f = Make("fabric_status_error", Severity::kFail);
      f.args = {{"state", *b.state}, {"status", *b.status}};
      f.facts = {{"Fabric.State", *b.state}, {"Fabric.Status", *b.status}};
      if (b.clique_id) f.facts.push_back({"Fabric.CliqueId", *b.clique_id});
      if (b.cluster_uuid) f.facts.push_back({"Fabric.ClusterUUID", *b.cluster_uuid});
      findings.push_back(std::move(f));
    }
    if (Reported(b.health_summary) && *b.health_summary != "Healthy") {
      TopoFinding f = Make("fabric_unhealthy", Severity::kWarn);
      f.args = {{"summary", *b.health_summary}, {"bandwidth", b.bandwidth.value_or("?")}};
      f.facts.push_back({"Fabric.Health.Summary", *b.health_summary});
      if (b.bandwidth) f.facts.push_back({"Fabric.Health.Bandwidth", *b.bandwidth});
      findings.push_back(std::move(f));
    }
  }
  const auto& fm = state.manager;
  if (fm.nothing_to_do) {
    findings.push_back(Make("fm_nothing_to_do", Severity::kInfo));
  } else if (fm.failed || !fm.errors.empty()) {
    TopoFinding f = Make("fm_failed", Severity::kFail);
    std::string lines;
    for (const auto& e : fm.errors) lines += (lines.empty() ? "" : " | ") + e;
    f.args = {{"lines", lines.empty() ? "-" : lines}};
    findings.push_back(std::move(f));
  }
  return findings;
}

// Peer-to-peer refused between GPUs: NCCL and cudaMemcpyPeer stage every transfer through
// host memory instead.
std::vector<TopoFinding> AssessP2p(const P2pMatrix& m) {
  TopoFinding f = Make("p2p_unavailable", Severity::kWarn);
  std::string list;
  size_t shown = 0, refused = 0;
  for (const auto& p : m.pairs) {
    if (p.code == "OK") continue;
    ++refused;
    if (shown++ < 8) list += (list.empty() ? "" : ", ") + p.a + "-" + p.b + " " + p.code;
    for (const auto& d : {p.a, p.b}) {
      if (std::find(f.devices.begin(), f.devices.end(), d) == f.devices.end()) f.devices.push_back(d);
    }
    f.facts.push_back({p.a + "-" + p.b, p.code});
  }
  if (refused == 0) return {};
  if (refused > shown) list += ", +" + std::to_string(refused - shown);
  f.args = {{"pairs", list}, {"refused", std::to_string(refused)}, {"total", std::to_string(m.pairs.size())}};
  return {f};
}

}  // namespace gpuprobe::telemetry
