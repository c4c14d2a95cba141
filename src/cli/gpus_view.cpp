#include "cli/gpus_view.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "app/healthy_card.h"
#include "cli/command.h"
#include "report/phrase_text.h"
#include "core/units.h"
#include "model/gpu_link.h"
#include "model/spec_derivation.h"
#include "report/json_document.h"
#include "report/table.h"

namespace gpuprobe::cli {
namespace {

using model::GpuSpec;
using model::SpecFigure;
using nlohmann::json;

std::string Tflops(const SpecFigure& figure, const report::Texts& t) {
  if (figure.not_applicable) return t.Get("common.na");
  if (!figure.known()) return t.Get("common.unknown");
  return core::FormatFlops(*figure.value * 1e12);
}

std::string Gbps(double bytes_per_second) { return core::FormatBytesPerSecond(bytes_per_second); }

// The vendor's marketing size, shown once and labelled as such ("80 GB" on the box).
std::string VendorLabel(const GpuSpec& g) {
  return g.memory_size_gb_vendor.known() ? fmt::format("{:g} GB", *g.memory_size_gb_vendor.value) : "?";
}

// Memory sizes in binary units, as nvidia-smi counts them (MiB): one convention everywhere.
std::string MemoryTotal(const GpuSpec& g) {
  double total = model::MemoryTotalBytes(g);
  return total > 0 ? core::FormatBytesBinary(total) : "?";
}

// The GPU-to-GPU link as the SKU has it: NVLink (SXM or bridge), Infinity Fabric, or none.
std::string PeerLinkText(const GpuSpec& g, const report::Texts& t) {
  model::GpuLink link = model::PeerLink(g);
  if (link.kind == model::LinkKind::kPcie || link.kind == model::LinkKind::kNone) return t.Get("gpus.link.no_peer");
  std::string name = Say(t, model::LinkName(g, link));
  return link.bytes_per_s > 0 ? Tr(t, "gpus.link.with_rate", fmt::arg("link", name), fmt::arg("rate", Gbps(link.bytes_per_s)))
                              : name;
}

// English evidence shown in a Chinese text sits between ASCII double quotes (as the zh texts
// quote every untranslated value): one inside it would end the quotation early.
std::string QuotableEnglish(std::string text) {
  std::replace(text.begin(), text.end(), '"', '\'');
  return text;
}

// The spec data's own notes are English prose written with the figures (where a number came
// from, which capture): evidence a Chinese reader keeps too, quoted and marked as English.
std::string DataNote(const report::Texts& t, const std::string& note) {
  if (note.empty() || t.language() == report::Language::kEn) return note;
  return Tr(t, "gpus.show.data_note_english", fmt::arg("note", QuotableEnglish(note)));
}

// A data field written in both languages: the reader's, else the English quoted as data.
std::string Localised(const report::Texts& t, const std::string& en, const std::string& zh) {
  if (t.language() == report::Language::kZh && !zh.empty()) return zh;
  return Tr(t, "gpus.show.data", fmt::arg("value", en));
}

// One figure of `show`: label, value, and a line saying where it comes from.
struct Line {
  std::string label, value, explanation;
};

std::string Percent(double share) { return fmt::format("{:.0f}%", share * 100); }
std::string Rate(const app::HealthyFigure& f, double value) {
  return f.unit == "FLOP/s" ? core::FormatFlops(value) : core::FormatBytesPerSecond(value);
}

// What a healthy card of this kind measures (app/healthy_card.h): the value, the share of the
// peak it is, where the share comes from and when to worry.
std::vector<Line> HealthyLines(const GpuSpec& g, const report::Texts& t) {
  std::vector<Line> lines;
  for (const app::HealthyFigure& f : app::HealthyFigures(g)) {
    std::string label = Tr(t, "gpus.healthy." + f.id, fmt::arg("memory", g.memory_type), fmt::arg("bench", f.benchmark));
    std::string value, explanation;
    if (f.published()) {
      value = Tr(t, "gpus.healthy.range_value", fmt::arg("low", Rate(f, f.Low())), fmt::arg("high", Rate(f, f.High())),
                 fmt::arg("low_share", Percent(f.low_share)), fmt::arg("high_share", Percent(f.high_share)),
                 fmt::arg("peak", Rate(f, f.peak)));
      // What the source shows, in the reader's language where the table says it; else the
      // published figure's own words, in English and marked as such.
      const bool zh = t.language() == report::Language::kZh;
      const std::string& summary = zh ? f.summary_zh : f.summary_en;
      std::string source = !summary.empty() ? summary
                           : !zh          ? f.source
                                          : Tr(t, "gpus.healthy.source_english", fmt::arg("source", QuotableEnglish(f.source)));
      explanation = Tr(t, "gpus.healthy.published", fmt::arg("source", source)) + " ";
      if (f.own_best > 0) explanation += Tr(t, "gpus.healthy.own_best", fmt::arg("best", fmt::format("{:.1f}%", f.own_best * 100))) + " ";
      explanation +=
                    Tr(t, "gpus.healthy.worry_below", fmt::arg("low", Rate(f, f.Low()))) + " " +
                    t.Get("gpus.healthy.worry." + f.worry);
    } else {
      value = Tr(t, "gpus.healthy.expected_value", fmt::arg("value", Rate(f, f.Low())), fmt::arg("share", Percent(f.low_share)),
                 fmt::arg("peak", Rate(f, f.peak)));
      explanation = t.Get("gpus.healthy.model_expectation") + " " + t.Get("gpus.healthy.worry." + f.worry);
    }
    lines.push_back({label, value, explanation});
  }
  return lines;
}

void Emit(std::string* out, const std::vector<Line>& lines) {
  int width = 0;
  for (const auto& l : lines) width = std::max(width, report::DisplayWidth(l.label));
  for (const auto& l : lines) {
    std::string pad(static_cast<size_t>(width - report::DisplayWidth(l.label)), ' ');
    *out += fmt::format("  {}{}  {}\n", l.label, pad, l.value);
    if (!l.explanation.empty()) {
      *out += fmt::format("  {}  {}\n", std::string(static_cast<size_t>(width), ' '), "  " + l.explanation);
    }
  }
}

}  // namespace

std::string RenderGpuList(const model::SpecDatabase& db, const report::Texts& t) {
  report::TextTable table({t.Get("gpus.col.gpu"), t.Get("gpus.col.arch"), t.Get("gpus.col.memory"),
                           t.Get("gpus.col.bandwidth"), t.Get("gpus.col.bf16"), t.Get("gpus.col.fp32"),
                           t.Get("gpus.col.tdp"), t.Get("gpus.col.link")});
  for (size_t c = 2; c <= 6; ++c) table.SetAlign(c, report::Align::kRight);
  for (const auto& g : db.gpus()) {
    auto bw = model::MemoryBandwidthBytesPerSecond(g);
    model::GpuLink peer = model::PeerLink(g);
    std::string link;
    if (g.pcie_generation && g.pcie_lanes) link = fmt::format("PCIe {} x{}", *g.pcie_generation, *g.pcie_lanes);
    if (peer.kind != model::LinkKind::kPcie && peer.kind != model::LinkKind::kNone) {
      link += (link.empty() ? "" : ", ") + Say(t, model::LinkName(g, peer));
    }
    // An integrated GPU (a Jetson's) has no host link at all: said so, in the reader's language,
    // instead of a cut of the spec sheet's English wording.
    if (link.empty() && model::IsIntegrated(g)) link = t.Get("gpus.link.none");
    if (link.empty() && !g.host_interface.empty()) link = Tr(t, "gpus.show.data", fmt::arg("value", g.host_interface));
    table.AddRow({GpuNameText(g.name, t), g.architecture, MemoryTotal(g), bw ? Gbps(*bw) : "?", Tflops(g.fp16_bf16_tensor_dense_tflops, t),
                  Tflops(g.fp32_vector_tflops, t), g.tdp_watts.known() ? fmt::format("{:g} W", *g.tdp_watts.value) : "?", link});
  }
  return t.Get("gpus.units") + "\n" + table.Render() + "\n" + t.Get("gpus.list.footer") + "\n";
}

std::string RenderGpuShow(const GpuSpec& g, const report::Texts& t) {
  std::string out = fmt::format("{}  ({} {} {}, {})   {}{}\n", GpuNameText(g.name, t), g.vendor, g.architecture, g.chip,
                                g.compute_capability, report::Labelled(t, t.Get("gpus.confidence")),
                                t.Has("gpus.confidence." + g.confidence) ? t.Get("gpus.confidence." + g.confidence) : g.confidence);

  // Memory.
  std::vector<Line> memory;
  model::UsableMemory usable = model::DriverUsableMemory(g);
  memory.push_back({t.Get("gpus.show.memory_size"),
                    Tr(t, "gpus.show.memory_size_value", fmt::arg("total", MemoryTotal(g)), fmt::arg("vendor", VendorLabel(g)),
                       fmt::arg("usable", core::FormatBytesBinary(usable.bytes))),
                    usable.estimated
                        ? Tr(t, "gpus.usable.estimated", fmt::arg("vendor", usable.vendor_gb))
                        : Tr(t, "gpus.usable.captured", fmt::arg("total", usable.total_mib),
                             fmt::arg("reserved", usable.reserved_mib), fmt::arg("source", g.driver_memory_source))});
  model::DerivedFigure bw = model::DeriveMemoryBandwidth(g);
  if (bw.vendor || bw.derived) {
    std::string value = bw.vendor ? Tr(t, "gpus.show.vendor_value", fmt::arg("value", Gbps(*bw.vendor))) : "";
    if (bw.derived) value += (value.empty() ? "" : "   ") + Tr(t, "gpus.show.derived_value", fmt::arg("value", Gbps(*bw.derived)));
    std::string why;
    if (bw.derived) {
      why = Tr(t, "gpus.explain.bandwidth", fmt::arg("rate", *g.memory_data_rate_gbit_per_s_per_pin.value),
               fmt::arg("bus", *g.memory_bus_width_bits.value), fmt::arg("derived", Gbps(*bw.derived)));
      if (bw.gap_fraction) {
        std::string gap = core::FormatSignedPercent(-*bw.gap_fraction / (1 + *bw.gap_fraction));
        why += " " + (bw.flagged ? Tr(t, "gpus.explain.bandwidth_flagged", fmt::arg("gap", gap))
                                 : std::fabs(*bw.gap_fraction) < 0.001 ? t.Get("gpus.explain.bandwidth_exact")
                                                                       : Tr(t, "gpus.explain.bandwidth_rounding", fmt::arg("gap", gap)));
      }
    } else {
      why = t.Get("gpus.explain.bandwidth_no_derivation");
    }
    memory.push_back({t.Get("gpus.show.bandwidth"), value, why});
  }
  memory.push_back({t.Get("gpus.show.memory_type"),
                    fmt::format("{}{}", g.memory_type,
                                g.memory_bus_width_bits.known() ? fmt::format(", {:g}-bit", *g.memory_bus_width_bits.value) : ""),
                    t.Get("gpus.explain.memory_type")});
  if (g.l2_cache_mib.known()) {
    memory.push_back({t.Get("gpus.show.l2"), fmt::format("{:g} MiB", *g.l2_cache_mib.value), t.Get("gpus.explain.l2")});
  }
  out += "\n" + t.Get("gpus.section.memory") + "\n";
  Emit(&out, memory);

  // Compute.
  std::vector<Line> compute;
  model::DerivedFigure fp32 = model::DeriveFp32Peak(g);
  {
    std::string value = Tflops(g.fp32_vector_tflops, t);
    std::string why;
    if (fp32.derived) {
      value += "   " + Tr(t, "gpus.show.derived_value", fmt::arg("value", core::FormatFlops(*fp32.derived)));
      why = Tr(t, "gpus.explain.fp32", fmt::arg("lanes", core::FormatInteger(static_cast<std::uint64_t>(*g.fp32_lanes.value))),
               fmt::arg("clock", *g.boost_clock_mhz.value));
      if (fp32.flagged && fp32.gap_fraction) {
        why += " " + Tr(t, "gpus.explain.fp32_flagged", fmt::arg("gap", core::FormatSignedPercent(-*fp32.gap_fraction / (1 + *fp32.gap_fraction))));
      }
    } else {
      why = t.Get("gpus.explain.fp32_no_derivation");
    }
    compute.push_back({t.Get("gpus.show.fp32"), value, why});
  }
  compute.push_back({t.Get("gpus.show.fp64"), Tflops(g.fp64_vector_tflops, t), t.Get("gpus.explain.fp64")});
  if (g.fp64_tensor_tflops.known()) {
    compute.push_back({t.Get("gpus.show.fp64_tensor"), Tflops(g.fp64_tensor_tflops, t), t.Get("gpus.explain.fp64_tensor")});
  }
  compute.push_back({t.Get("gpus.show.tf32"), Tflops(g.tf32_tensor_dense_tflops, t), t.Get("gpus.explain.tf32")});
  compute.push_back({t.Get("gpus.show.bf16"), Tflops(g.fp16_bf16_tensor_dense_tflops, t), t.Get("gpus.explain.bf16")});
  compute.push_back({t.Get("gpus.show.fp8"), Tflops(g.fp8_tensor_dense_tflops, t), t.Get("gpus.explain.fp8")});
  compute.push_back({t.Get("gpus.show.int8"),
                     g.int8_tensor_dense_tops.known() ? fmt::format("{} TOP/s", core::FormatSignificant(*g.int8_tensor_dense_tops.value))
                                                      : Tflops(g.int8_tensor_dense_tops, t),
                     t.Get("gpus.explain.int8")});
  if (!g.vendor_figures_with_sparsity.empty()) {
    compute.push_back({t.Get("gpus.show.sparse"), g.vendor_figures_with_sparsity, t.Get("gpus.explain.sparse")});
  }
  if (auto ridge = model::RidgePointFlopsPerByte(g, "bf16")) {
    compute.push_back({t.Get("gpus.show.ridge"), fmt::format("{:.0f} FLOP/byte (BF16)", *ridge),
                       Tr(t, "gpus.explain.ridge", fmt::arg("ridge", fmt::format("{:.0f}", *ridge)))});
  }
  out += "\n" + t.Get("gpus.section.compute") + "\n";
  Emit(&out, compute);

  // Links, power, identity.
  std::vector<Line> links;
  if (auto pcie = model::DerivePcieBandwidth(g)) {
    links.push_back({t.Get("gpus.show.pcie"),
                     Tr(t, "gpus.show.pcie_value", fmt::arg("gen", *g.pcie_generation), fmt::arg("lanes", *g.pcie_lanes),
                        fmt::arg("rate", Gbps(*pcie))),
                     Tr(t, "gpus.explain.pcie", fmt::arg("gts", model::PcieTransfersPerSecondPerLane(*g.pcie_generation) / 1e9),
                        fmt::arg("lanes", *g.pcie_lanes),
                        fmt::arg("encoding", *g.pcie_generation <= 2 ? "8b/10b" : "128b/130b"),
                        fmt::arg("raw", Gbps(*pcie / model::PcieEncodingEfficiency(*g.pcie_generation) * 2)))});
  } else {
    links.push_back({t.Get("gpus.show.host"), Tr(t, "gpus.show.data", fmt::arg("value", g.host_interface)), ""});
  }
  {
    model::GpuLink peer = model::PeerLink(g);
    std::string explanation = t.Get("gpus.explain.link." + model::LinkKindId(peer.kind));
    if (peer.bytes_per_s > 0 && peer.kind != model::LinkKind::kPcie) {
      explanation = Tr(t, "gpus.explain.peer_rate", fmt::arg("total", Gbps(peer.bytes_per_s * 2)),
                       fmt::arg("per_direction", Gbps(peer.bytes_per_s))) + " " + explanation;
    }
    links.push_back({t.Get("gpus.show.peer_link"), PeerLinkText(g, t), explanation});
  }
  if (g.tdp_watts.known()) links.push_back({t.Get("gpus.show.tdp"), fmt::format("{:g} W", *g.tdp_watts.value), t.Get("gpus.explain.tdp")});
  if (!g.pci_device_ids.empty()) {
    std::string ids;
    for (const auto& id : g.pci_device_ids) ids += (ids.empty() ? "" : ", ") + g.pci_vendor_id.substr(2) + ":" + id.substr(2);
    links.push_back({t.Get("gpus.show.pci_id"), ids, DataNote(t, g.pci_device_ids_source)});
  }
  links.push_back({t.Get("gpus.show.form_factor"), Localised(t, g.form_factor, g.form_factor_zh), t.Get("gpus.explain.form_factor")});
  out += "\n" + t.Get("gpus.section.links") + "\n";
  Emit(&out, links);

  std::vector<Line> healthy = HealthyLines(g, t);
  if (!healthy.empty()) {
    out += "\n" + t.Get("gpus.section.healthy") + "\n";
    Emit(&out, healthy);
    std::string ids;
    for (const auto& f : app::HealthyFigures(g)) ids += (ids.empty() ? "" : " ") + f.benchmark;
    out += "  " + Tr(t, "gpus.healthy.measure", fmt::arg("ids", ids)) + "\n";
  }

  out += "\n" + t.Get("gpus.section.notes") + "\n  " +
         (t.language() == report::Language::kZh && !g.notes_zh.empty() ? g.notes_zh : DataNote(t, g.notes)) + "\n";
  std::string sources;
  for (const auto& s : g.sources) sources += (sources.empty() ? "" : ", ") + Tr(t, "gpus.show.data", fmt::arg("value", s));
  out += "  " + Tr(t, "gpus.show.sources", fmt::arg("sources", sources)) + "\n";
  return out;
}

std::string RenderHealthyBrief(const GpuSpec& g, const report::Texts& t) {
  std::vector<Line> lines = HealthyLines(g, t);
  if (lines.empty()) return {};
  for (auto& l : lines) l.explanation.clear();  // the sources and when to worry: gpus show
  std::string out = "\n" + Tr(t, "plan.healthy.title", fmt::arg("gpu", GpuNameText(g.name, t))) + "\n";
  Emit(&out, lines);
  // A name `gpus show` resolves: the shortest alias, else the full name quoted.
  std::string name = "\"" + g.name + "\"";
  for (const auto& a : g.aliases) {
    if (name.front() == '"' || a.size() < name.size()) name = a;
  }
  return out + "  " + Tr(t, "plan.healthy.more", fmt::arg("name", name)) + "\n";
}

std::string RenderGpuCompare(const std::vector<const GpuSpec*>& gpus, const report::Texts& t) {
  std::vector<std::string> headers = {""};
  for (const auto* g : gpus) headers.push_back(g->name);
  report::TextTable table(headers);
  for (size_t c = 1; c < headers.size(); ++c) table.SetAlign(c, report::Align::kRight);
  auto row = [&](const std::string& label, auto&& cell) {
    std::vector<std::string> cells = {label};
    for (const auto* g : gpus) cells.push_back(cell(*g));
    table.AddRow(cells);
  };
  row(t.Get("gpus.col.arch"), [](const GpuSpec& g) { return g.architecture + " " + g.compute_capability; });
  row(t.Get("gpus.show.memory_size"), [](const GpuSpec& g) { return MemoryTotal(g); });
  row(t.Get("gpus.show.usable"), [](const GpuSpec& g) { return core::FormatBytesBinary(model::DriverUsableMemory(g).bytes); });
  row(t.Get("gpus.show.bandwidth"), [](const GpuSpec& g) {
    auto bw = model::MemoryBandwidthBytesPerSecond(g);
    return bw ? Gbps(*bw) : std::string("?");
  });
  row(t.Get("gpus.show.l2"), [](const GpuSpec& g) {
    return g.l2_cache_mib.known() ? fmt::format("{:g} MiB", *g.l2_cache_mib.value) : std::string("?");
  });
  row(t.Get("gpus.show.fp64"), [&](const GpuSpec& g) { return Tflops(g.fp64_vector_tflops, t); });
  row(t.Get("gpus.show.fp32"), [&](const GpuSpec& g) { return Tflops(g.fp32_vector_tflops, t); });
  row(t.Get("gpus.show.tf32"), [&](const GpuSpec& g) { return Tflops(g.tf32_tensor_dense_tflops, t); });
  row(t.Get("gpus.show.bf16"), [&](const GpuSpec& g) { return Tflops(g.fp16_bf16_tensor_dense_tflops, t); });
  row(t.Get("gpus.show.fp8"), [&](const GpuSpec& g) { return Tflops(g.fp8_tensor_dense_tflops, t); });
  row(t.Get("gpus.show.ridge"), [](const GpuSpec& g) {
    auto r = model::RidgePointFlopsPerByte(g, "bf16");
    return r ? fmt::format("{:.0f} FLOP/B", *r) : std::string("?");
  });
  row(t.Get("gpus.show.pcie"), [](const GpuSpec& g) {
    auto p = model::DerivePcieBandwidth(g);
    return p ? fmt::format("Gen{} x{} {}", *g.pcie_generation, *g.pcie_lanes, Gbps(*p)) : std::string("-");
  });
  row(t.Get("gpus.show.peer_link"), [&](const GpuSpec& g) { return PeerLinkText(g, t); });
  row(t.Get("gpus.show.tdp"), [](const GpuSpec& g) {
    return g.tdp_watts.known() ? fmt::format("{:g} W", *g.tdp_watts.value) : std::string("?");
  });
  row(t.Get("gpus.show.vendor_label"), [](const GpuSpec& g) { return VendorLabel(g); });
  std::string out = t.Get("gpus.units") + "\n" + table.Render();
  // Ratios against the first GPU: what a backend engineer asks ("how much faster?").
  const GpuSpec& base = *gpus.front();
  auto ratio = [](std::optional<double> a, std::optional<double> b) -> std::string {
    if (!a || !b || *b <= 0) return "?";
    return fmt::format("x{:.2f}", *a / *b);
  };
  out += "\n" + Tr(t, "gpus.compare.ratios", fmt::arg("base", GpuNameText(base.name, t))) + "\n";
  for (size_t i = 1; i < gpus.size(); ++i) {
    const GpuSpec& g = *gpus[i];
    out += "  " + Tr(t, "gpus.compare.ratio_line", fmt::arg("gpu", GpuNameText(g.name, t)),
                     fmt::arg("bandwidth", ratio(model::MemoryBandwidthBytesPerSecond(g), model::MemoryBandwidthBytesPerSecond(base))),
                     fmt::arg("bf16", ratio(model::PeakFlops(g, "bf16"), model::PeakFlops(base, "bf16"))),
                     fmt::arg("memory", ratio(model::MemoryTotalBytes(g), model::MemoryTotalBytes(base)))) +
           "\n";
  }
  out += t.Get("gpus.compare.footer") + "\n";
  return out;
}

// A data phrase ("one 64-bit channel", "each direction (full duplex)") in the reader's language
// where the texts have it under `prefix` + its slug ("one_64_bit_channel"), else as written.
std::string DataPhrase(const std::string& phrase, const char* prefix, const report::Texts& t) {
  std::string slug;
  for (char c : phrase) {
    bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z');
    if (alnum) slug.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
    else if (!slug.empty() && slug.back() != '_') slug.push_back('_');
  }
  while (!slug.empty() && slug.back() == '_') slug.pop_back();
  const std::string key = std::string(prefix) + slug;
  return t.Has(key) ? t.Get(key) : phrase;
}

// "DDR4-3200 (one 64-bit channel)": the name as written, its qualifier translated.
std::string HostLinkName(const std::string& name, const report::Texts& t) {
  size_t open = name.find(" (");
  if (open == std::string::npos || name.back() != ')') return name;
  std::string qualifier = name.substr(open + 2, name.size() - open - 3);
  return Tr(t, "gpus.links.name", fmt::arg("name", name.substr(0, open)),
            fmt::arg("qualifier", DataPhrase(qualifier, "gpus.links.qualifier.", t)));
}

std::string RenderHostLinks(const model::SpecDatabase& db, const report::Texts& t) {
  report::TextTable table({t.Get("gpus.links.link"), t.Get("gpus.links.peak"), t.Get("gpus.links.vendor"), t.Get("gpus.links.direction")});
  table.SetAlign(1, report::Align::kRight);
  table.SetAlign(2, report::Align::kRight);
  for (const auto& link : db.host_links()) {
    table.AddRow({HostLinkName(link.name, t), link.peak_bandwidth_gb_per_s ? Gbps(*link.peak_bandwidth_gb_per_s * 1e9) : "?",
                  link.vendor_quoted_gb_per_s ? Gbps(*link.vendor_quoted_gb_per_s * 1e9) : "-",
                  DataPhrase(link.direction, "gpus.links.direction.", t)});
  }
  return table.Render() + "\n" + t.Get("gpus.links.footer") + "\n";
}

}  // namespace gpuprobe::cli
