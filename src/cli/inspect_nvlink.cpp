#include "cli/inspect_nvlink.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/inspect_topology.h"
#include "report/json_document.h"
#include "telemetry/interconnect_facts.h"
#include "telemetry/nvlink_findings.h"

namespace gpuprobe::cli {
namespace {

using telemetry::NvLinkGpu;
using telemetry::NvLinkLink;

template <typename T>
nlohmann::json Opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

std::string NoteText(const telemetry::TopoNote& n, const report::Texts& t) {
  return Tr(t, "topology.note." + n.id, fmt::arg("device", n.device), fmt::arg("detail", n.detail), fmt::arg("line", n.line));
}

std::string Numbers(const std::vector<int>& v) {
  std::string out;
  for (int i : v) out += (out.empty() ? "" : ", ") + std::to_string(i);
  return out;
}

// The lines of one GPU: its link states and speed, counters, far ends and capabilities.
std::string GpuBlock(const NvLinkGpu& g, const report::Texts& t) {
  std::string out = Tr(t, "topology.nvlink.gpu", fmt::arg("gpu", g.index), fmt::arg("name", g.name)) + "\n";
  auto active = telemetry::ActiveLinks(g);
  std::vector<int> inactive;
  for (const auto& l : g.links) {
    if (l.inactive) inactive.push_back(l.index);
  }
  if (g.all_inactive) out += "    " + t.Get("topology.nvlink.all_inactive") + "\n";
  if (!active.empty()) {
    double lo = *active.front()->speed_gbps, hi = lo;
    for (const auto* l : active) {
      lo = std::min(lo, *l->speed_gbps);
      hi = std::max(hi, *l->speed_gbps);
    }
    std::string speed = lo == hi ? fmt::format("{:g}", hi) : fmt::format("{:g}-{:g}", lo, hi);
    out += "    " + Tr(t, "topology.nvlink.active", fmt::arg("active", active.size()), fmt::arg("listed", active.size() + inactive.size()),
                       fmt::arg("speed", speed), fmt::arg("total", fmt::format("{:.1f}", *telemetry::PerDirectionGbps(g)))) + "\n";
  }
  if (!inactive.empty()) out += "    " + Tr(t, "topology.nvlink.inactive", fmt::arg("links", Numbers(inactive))) + "\n";
  // Error counters (-e): all zero in one line, else each link with a non-zero counter.
  size_t counted = 0;
  std::vector<std::string> nonzero;
  std::map<std::string, size_t> remotes;
  size_t p2p = 0, caps = 0;
  for (const auto& l : g.links) {
    if (l.replay_errors || l.recovery_errors || l.crc_errors) {
      ++counted;
      auto r = l.replay_errors.value_or(0), rc = l.recovery_errors.value_or(0), c = l.crc_errors.value_or(0);
      if (r + rc + c > 0) nonzero.push_back(fmt::format("link{} {}/{}/{}", l.index, r, rc, c));
    }
    if (l.remote_device) ++remotes[*l.remote_device];
    if (l.p2p_supported) {
      ++caps;
      p2p += *l.p2p_supported ? 1 : 0;
    }
  }
  if (counted > 0 && nonzero.empty()) out += "    " + Tr(t, "topology.nvlink.errors_zero", fmt::arg("links", counted)) + "\n";
  for (const auto& n : nonzero) out += "    " + Tr(t, "topology.nvlink.errors", fmt::arg("link", n)) + "\n";
  if (!remotes.empty()) {
    std::string list;
    for (const auto& [device, count] : remotes) list += (list.empty() ? "" : ", ") + fmt::format("{} ({})", device, count);
    out += "    " + Tr(t, remotes.size() == 1 ? "topology.nvlink.remote_one" : "topology.nvlink.remote_many", fmt::arg("count", remotes.size()),
                       fmt::arg("list", list)) + "\n";
  }
  if (caps > 0) out += "    " + Tr(t, "topology.nvlink.p2p", fmt::arg("p2p", p2p), fmt::arg("links", caps)) + "\n";
  if (g.elided) out += "    " + t.Get("topology.nvlink.elided") + "\n";
  return out;
}

std::string Quote(const std::optional<std::string>& v) { return v ? "'" + *v + "'" : "-"; }

}  // namespace

nlohmann::json NvLinkJson(const telemetry::NvLinkOutput& out, const std::vector<telemetry::TopoFinding>& findings,
                          const std::string& source, const report::Texts& t) {
  nlohmann::json doc = report::MakeDocument("inspect");
  doc["kind"] = "nvlink";
  doc["format"] = "nvidia-smi nvlink";
  doc["source"] = source;
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : out.gpus) {
    nlohmann::json links = nlohmann::json::array();
    for (const auto& l : g.links) {
      nlohmann::json state = l.inactive ? nlohmann::json("inactive") : l.speed_gbps ? nlohmann::json("active") : nlohmann::json(nullptr);
      links.push_back({{"index", l.index}, {"state", state}, {"speed_gbps", Opt(l.speed_gbps)},
                       {"replay_errors", Opt(l.replay_errors)}, {"recovery_errors", Opt(l.recovery_errors)},
                       {"crc_errors", Opt(l.crc_errors)}, {"remote_device", Opt(l.remote_device)},
                       {"remote_link", Opt(l.remote_link)}, {"p2p_supported", Opt(l.p2p_supported)}});
    }
    gpus.push_back({{"index", g.index}, {"name", g.name}, {"uuid", g.uuid}, {"all_inactive", g.all_inactive},
                    {"elided", g.elided}, {"active_links", telemetry::ActiveLinks(g).size()}, {"listed_links", g.links.size()},
                    {"per_direction_gbps", Opt(telemetry::PerDirectionGbps(g))}, {"links", links}});
  }
  doc["gpus"] = gpus;
  nlohmann::json notes = nlohmann::json::array();
  for (const auto& n : out.notes) notes.push_back({{"id", n.id}, {"device", n.device}, {"detail", n.detail}, {"line", n.line}, {"text", NoteText(n, t)}});
  doc["notes"] = notes;
  doc["findings"] = TopoFindingsJson(findings, t);
  return doc;
}

std::string RenderNvLink(const telemetry::NvLinkOutput& out, const std::vector<telemetry::TopoFinding>& findings,
                         const std::string& source, const report::Texts& t) {
  std::string text = t.Get("topology.nvlink.title") + "\n" + Tr(t, "inspect.source", fmt::arg("source", source)) + "\n\n";
  for (const auto& g : out.gpus) text += GpuBlock(g, t);
  if (!out.notes.empty()) {
    text += "\n" + t.Get("topology.notes") + "\n";
    for (const auto& n : out.notes) text += "  - " + NoteText(n, t) + "\n";
  }
  return text + RenderTopoFindings(findings, t);
}

nlohmann::json FabricJson(const telemetry::FabricState& state, const std::vector<telemetry::TopoFinding>& findings,
                          const std::string& source, const report::Texts& t) {
  nlohmann::json doc = report::MakeDocument("inspect");
  doc["kind"] = "fabric";
  doc["format"] = "nvidia-smi -q Fabric / Fabric Manager log";
  doc["source"] = source;
  nlohmann::json blocks = nlohmann::json::array();
  for (const auto& b : state.blocks) {
    blocks.push_back({{"state", Opt(b.state)}, {"status", Opt(b.status)}, {"clique_id", Opt(b.clique_id)},
                      {"cluster_uuid", Opt(b.cluster_uuid)}, {"health_summary", Opt(b.health_summary)}, {"bandwidth", Opt(b.bandwidth)}});
  }
  doc["fabric"] = blocks;
  const auto& fm = state.manager;
  doc["fabric_manager"] = {{"seen", fm.seen}, {"nothing_to_do", fm.nothing_to_do}, {"configured", fm.configured},
                           {"started", fm.started}, {"stopped", fm.stopped}, {"failed", fm.failed},
                           {"pre_nvl5", fm.pre_nvl5}, {"errors", fm.errors}};
  doc["findings"] = TopoFindingsJson(findings, t);
  return doc;
}

std::string RenderFabric(const telemetry::FabricState& state, const std::vector<telemetry::TopoFinding>& findings,
                         const std::string& source, const report::Texts& t) {
  std::string out = t.Get("topology.fabric.title") + "\n" + Tr(t, "inspect.source", fmt::arg("source", source)) + "\n\n";
  for (const auto& b : state.blocks) {
    out += Tr(t, "topology.fabric.block", fmt::arg("state", Quote(b.state)), fmt::arg("status", Quote(b.status)),
              fmt::arg("clique", Quote(b.clique_id)), fmt::arg("cluster", Quote(b.cluster_uuid))) + "\n";
    if (b.health_summary || b.bandwidth) {
      out += Tr(t, "topology.fabric.health", fmt::arg("summary", Quote(b.health_summary)), fmt::arg("bandwidth", Quote(b.bandwidth))) + "\n";
    }
  }
  const auto& fm = state.manager;
  if (fm.seen) {
    out += t.Get("topology.fm.title") + "\n";
    auto line = [&](bool on, const char* key) {
      if (on) out += "  - " + t.Get(key) + "\n";
    };
    line(fm.pre_nvl5, "topology.fm.pre_nvl5");
    line(fm.started, "topology.fm.started");
    line(fm.configured, "topology.fm.configured");
    line(fm.nothing_to_do, "topology.fm.nothing_to_do");
    line(fm.failed, "topology.fm.failed");
    line(fm.stopped, "topology.fm.stopped");
  }
  return out + RenderTopoFindings(findings, t);
}

namespace {

std::string P2pMeaning(const std::string& code, const report::Texts& t) {
  return t.Get("topology.p2p.code." + telemetry::P2pCodeId(code));
}

}  // namespace

nlohmann::json P2pJson(const telemetry::P2pMatrix& m, const std::vector<telemetry::TopoFinding>& findings, const std::string& source,
                       const report::Texts& t) {
  nlohmann::json doc = report::MakeDocument("inspect");
  doc["kind"] = "p2p";
  doc["format"] = "nvidia-smi topo -p2p";
  doc["source"] = source;
  doc["gpus"] = m.gpus;
  nlohmann::json pairs = nlohmann::json::array();
  for (const auto& p : m.pairs) pairs.push_back({{"a", p.a}, {"b", p.b}, {"code", p.code}, {"meaning", P2pMeaning(p.code, t)}});
  doc["pairs"] = pairs;
  doc["unread"] = m.unread;
  doc["findings"] = TopoFindingsJson(findings, t);
  return doc;
}

std::string RenderP2p(const telemetry::P2pMatrix& m, const std::vector<telemetry::TopoFinding>& findings, const std::string& source,
                      const report::Texts& t) {
  std::string out = t.Get("topology.p2p.title") + "\n" + Tr(t, "inspect.source", fmt::arg("source", source)) + "\n\n";
  for (const auto& p : m.pairs) out += fmt::format("  {}-{}  {:<4} {}\n", p.a, p.b, p.code, P2pMeaning(p.code, t));
  for (const auto& r : m.unread) out += "  " + Tr(t, "topology.p2p.unread", fmt::arg("device", r)) + "\n";
  return out + RenderTopoFindings(findings, t);
}

}  // namespace gpuprobe::cli
