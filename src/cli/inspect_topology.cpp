#include "cli/inspect_topology.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "cli/command.h"
#include "core/strings.h"
#include "report/json_document.h"
#include "report/status_text.h"
#include "telemetry/interconnect_facts.h"

namespace gpuprobe::cli {
namespace {

using telemetry::LinkKind;
using telemetry::TopoFinding;
using telemetry::TopoLink;
using telemetry::TopologyMatrix;

// What a link means for GPU-to-GPU traffic, in the user's words.
std::string LinkMeaning(const TopoLink& link, const report::Texts& t) {
  return Tr(t, "topology.link." + telemetry::LinkKindName(link.kind), fmt::arg("n", link.nvlinks), fmt::arg("code", link.code));
}

std::string ShortMeaning(const TopoLink& link, const report::Texts& t) {
  return Tr(t, "topology.short." + telemetry::LinkKindName(link.kind), fmt::arg("code", link.code));
}

std::string Format(const report::Texts& texts, const std::string& key, const core::MessageArgs& args) {
  return report::FormatWithArgs(texts, key, args);
}

std::string NoteText(const telemetry::TopoNote& n, const report::Texts& t) {
  return Tr(t, "topology.note." + n.id, fmt::arg("device", n.device), fmt::arg("detail", n.detail), fmt::arg("line", n.line));
}

std::string NicNames(const TopologyMatrix& m, const std::vector<size_t>& nics) {
  std::string out;
  for (size_t n : nics) {
    const auto& d = m.devices[n];
    std::string name = d.nic_device.empty() || d.nic_device == d.name ? d.name : d.name + " (" + d.nic_device + ")";
    out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

nlohmann::json Optional(const std::optional<std::string>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

using core::Join;

// One line per GPU: its CPUs, NUMA node and nearest NIC.
std::string GpuLine(const TopologyMatrix& m, size_t g, const report::Texts& t) {
  const auto& d = m.devices[g];
  std::vector<std::string> parts;
  if (d.cpu_affinity) parts.push_back(d.cpu_affinity->empty() ? t.Get("topology.gpu.cpus_empty") : Tr(t, "topology.gpu.cpus", fmt::arg("cpus", *d.cpu_affinity)));
  if (d.numa_affinity && !d.numa_affinity->empty()) parts.push_back(Tr(t, "topology.gpu.numa", fmt::arg("numa", *d.numa_affinity)));
  if (d.gpu_numa_id && !d.gpu_numa_id->empty() && *d.gpu_numa_id != "N/A") parts.push_back(Tr(t, "topology.gpu.gpu_numa", fmt::arg("id", *d.gpu_numa_id)));
  if (!m.Nics().empty()) {
    auto nearest = telemetry::NearestNicsOf(m, g);
    if (nearest.nics.empty()) {
      parts.push_back(t.Get("topology.gpu.nic_unknown"));
    } else {
      parts.push_back(Tr(t, "topology.gpu.nic", fmt::arg("nics", NicNames(m, nearest.nics)), fmt::arg("code", nearest.link.code),
                         fmt::arg("meaning", ShortMeaning(nearest.link, t))));
    }
  }
  if (!d.has_row) parts.push_back(t.Get("topology.gpu.no_row"));
  return Join(parts, "; ");
}

}  // namespace

nlohmann::json TopoFindingsJson(const std::vector<TopoFinding>& findings, const report::Texts& t) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : findings) {
    nlohmann::json facts = nlohmann::json::array();
    for (const auto& fact : f.facts) facts.push_back({{"field", fact.field}, {"value", fact.value}});
    std::string base = "topology.finding." + f.id;
    out.push_back({{"id", f.id},
                   {"severity", telemetry::SeverityName(f.severity)},
                   {"title", t.Get(base + ".title")},
                   {"evidence", Format(t, f.EvidenceKey(), f.args)},
                   {"explanation", Format(t, base + ".explain", f.args)},
                   {"next_step", Format(t, base + ".next", f.args)},
                   {"devices", f.devices},
                   {"facts", facts}});
  }
  return out;
}

std::string RenderTopoFindings(const std::vector<TopoFinding>& findings, const report::Texts& t) {
  std::string out = "\n" + t.Get("inspect.findings") + "\n";
  if (findings.empty()) out += "  " + t.Get("topology.no_findings") + "\n";
  for (const auto& f : findings) {
    std::string base = "topology.finding." + f.id;
    out += fmt::format("  [{}] {}{}\n", t.Get("common.severity." + telemetry::SeverityName(f.severity)), report::Labelled(t, t.Get(base + ".title")),
                       Format(t, f.EvidenceKey(), f.args));
    out += "      " + Format(t, base + ".explain", f.args) + "\n";
    out += "      -> " + Format(t, base + ".next", f.args) + "\n";
  }
  return out;
}

nlohmann::json TopologyJson(const TopologyMatrix& m, const std::vector<TopoFinding>& findings, const std::string& source,
                            const report::Texts& t) {
  nlohmann::json doc = report::MakeDocument("inspect");
  doc["kind"] = "topology";
  doc["format"] = "nvidia-smi topo -m";
  doc["source"] = source;
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& d : m.devices) {
    devices.push_back({{"name", d.name},
                       {"kind", d.kind == telemetry::DeviceKind::kGpu ? "gpu" : "nic"},
                       {"nic_device", d.kind == telemetry::DeviceKind::kNic ? nlohmann::json(d.nic_device) : nlohmann::json(nullptr)},
                       {"has_row", d.has_row},
                       {"cpu_affinity", Optional(d.cpu_affinity)},
                       {"numa_affinity", Optional(d.numa_affinity)},
                       {"gpu_numa_id", Optional(d.gpu_numa_id)}});
  }
  nlohmann::json pairs = nlohmann::json::array();
  for (const auto& p : telemetry::GpuPairs(m)) {
    nlohmann::json j = {{"a", m.devices[p.a].name}, {"b", m.devices[p.b].name}};
    j["code"] = p.link ? nlohmann::json(p.link->code) : nlohmann::json(nullptr);
    j["kind"] = p.link ? nlohmann::json(telemetry::LinkKindName(p.link->kind)) : nlohmann::json(nullptr);
    j["nvlinks"] = p.link && p.link->kind == LinkKind::kNvLink ? nlohmann::json(p.link->nvlinks) : nlohmann::json(nullptr);
    j["meaning"] = p.link ? nlohmann::json(LinkMeaning(*p.link, t)) : nlohmann::json(nullptr);
    pairs.push_back(std::move(j));
  }
  nlohmann::json gpu_nics = nlohmann::json::array();
  if (!m.Nics().empty()) {
    for (size_t g : m.Gpus()) {
      auto nearest = telemetry::NearestNicsOf(m, g);
      nlohmann::json names = nlohmann::json::array();
      for (size_t n : nearest.nics) names.push_back(m.devices[n].name);
      bool known = !nearest.nics.empty();
      gpu_nics.push_back({{"gpu", m.devices[g].name},
                          {"nearest", names},
                          {"code", known ? nlohmann::json(nearest.link.code) : nlohmann::json(nullptr)},
                          {"kind", known ? nlohmann::json(telemetry::LinkKindName(nearest.link.kind)) : nlohmann::json(nullptr)}});
    }
  }
  doc["topology"] = {{"devices", devices}, {"gpu_pairs", pairs}, {"gpu_nics", gpu_nics}, {"legend", m.legend_codes}};
  nlohmann::json notes = nlohmann::json::array();
  for (const auto& n : m.notes) {
    notes.push_back({{"id", n.id}, {"device", n.device}, {"detail", n.detail}, {"line", n.line}, {"text", NoteText(n, t)}});
  }
  doc["notes"] = notes;
  doc["findings"] = TopoFindingsJson(findings, t);
  return doc;
}

std::string RenderTopology(const TopologyMatrix& m, const std::vector<TopoFinding>& findings, const std::string& source,
                           const report::Texts& t) {
  std::string out = t.Get("topology.title") + "\n" + Tr(t, "inspect.source", fmt::arg("source", source)) + "\n";
  out += Tr(t, "topology.summary", fmt::arg("gpus", m.Gpus().size()), fmt::arg("nics", m.Nics().size())) + "\n\n";

  // The pairs grouped by how they connect, fastest first; each group says what it means once.
  auto pairs = telemetry::GpuPairs(m);
  out += t.Get("topology.pairs") + "\n";
  if (pairs.empty()) out += "  " + t.Get("topology.pairs.none") + "\n";
  std::map<std::pair<int, int>, std::vector<const telemetry::GpuPair*>> groups;  // (rank, -links) -> pairs
  std::vector<std::string> unknown;
  for (const auto& p : pairs) {
    std::string name = m.devices[p.a].name + "-" + m.devices[p.b].name;
    if (!p.link) {
      unknown.push_back(name);
      continue;
    }
    groups[{telemetry::LinkRank(p.link->kind), -p.link->nvlinks}].push_back(&p);
  }
  size_t known = pairs.size() - unknown.size();
  constexpr size_t kShown = 10;
  for (const auto& [key, rows] : groups) {
    std::string list;
    if (rows.size() == known && unknown.empty() && rows.size() > 1) {
      list = Tr(t, "topology.pairs.all", fmt::arg("count", rows.size()));
    } else {
      std::vector<std::string> names;
      for (size_t i = 0; i < rows.size() && i < kShown; ++i) names.push_back(m.devices[rows[i]->a].name + "-" + m.devices[rows[i]->b].name);
      list = Join(names, ", ");
      if (rows.size() > kShown) list += Tr(t, "topology.pairs.more", fmt::arg("count", rows.size() - kShown));
    }
    out += fmt::format("  {:<5} {}\n", rows.front()->link->code, list);
    out += "        " + LinkMeaning(*rows.front()->link, t) + "\n";
  }
  if (!unknown.empty()) {
    std::vector<std::string> shown(unknown.begin(), unknown.begin() + static_cast<std::ptrdiff_t>(std::min(unknown.size(), kShown)));
    std::string list = Join(shown, ", ");
    if (unknown.size() > kShown) list += Tr(t, "topology.pairs.more", fmt::arg("count", unknown.size() - kShown));
    out += "  " + Tr(t, "topology.pairs.unknown", fmt::arg("count", unknown.size()), fmt::arg("list", list)) + "\n";
  }

  out += "\n" + t.Get("topology.gpus") + "\n";
  for (size_t g : m.Gpus()) out += fmt::format("  {:<6} {}\n", m.devices[g].name, GpuLine(m, g, t));
  if (m.Nics().empty()) out += "  " + t.Get("topology.no_nics") + "\n";

  if (!m.notes.empty()) {
    out += "\n" + t.Get("topology.notes") + "\n";
    for (const auto& n : m.notes) out += "  - " + NoteText(n, t) + "\n";
  }

  return out + RenderTopoFindings(findings, t);
}

}  // namespace gpuprobe::cli
