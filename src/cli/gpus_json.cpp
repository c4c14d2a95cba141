// The JSON of the spec database's figures (SI base units, unit in the key), shared by every
// verb that shows a GPU: gpus list/show/compare/--task, plan, advise. Each figure comes from
// the one model function that computes it (model/spec_derivation.h, model/gpu_link.h), so the
// verbs cannot disagree.
#include <fmt/format.h>

#include "app/healthy_card.h"
#include "cli/gpus_view.h"
#include "report/phrase_text.h"
#include "model/spec_derivation.h"

namespace gpuprobe::cli {
namespace {

using model::GpuSpec;
using model::SpecFigure;
using nlohmann::json;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// A spec figure scaled to SI; null when unknown; records n/a keys.
json Si(const SpecFigure& figure, double scale, const char* key, json* not_applicable) {
  if (figure.not_applicable) not_applicable->push_back(key);
  if (!figure.known()) return nullptr;
  return *figure.value * scale;
}

json Opt(const std::optional<double>& value) { return value ? json(*value) : json(nullptr); }

}  // namespace

json HealthyFiguresJson(const GpuSpec& g) {
  json out = json::array();
  for (const app::HealthyFigure& f : app::HealthyFigures(g)) {
    out.push_back({{"id", f.id}, {"benchmark", f.benchmark}, {"unit", f.unit}, {"peak", f.peak},
                   {"low_share", f.low_share}, {"high_share", f.high_share}, {"low", f.Low()}, {"high", f.High()},
                   {"published", f.published()}, {"source", f.published() ? json(f.source) : json(nullptr)},
                   {"worry", f.worry}, {"own_best_share", f.own_best > 0 ? json(f.own_best) : json(nullptr)}});
  }
  return out;
}

json LinkJson(const GpuSpec& g, const model::GpuLink& link, const report::Texts& t) {
  return {{"kind", model::LinkKindId(link.kind)}, {"name", Say(t, model::LinkName(g, link))},
          {"nvlink_generation", link.nvlink_generation ? json(*link.nvlink_generation) : json(nullptr)},
          {"bytes_per_s_per_direction", link.bytes_per_s > 0 ? json(link.bytes_per_s) : json(nullptr)},
          {"max_gpus", link.max_gpus > 0 ? json(link.max_gpus) : json(nullptr)},
          {"spec_interconnect", g.interconnect}};
}

json GpuFiguresJson(const GpuSpec& g, const report::Texts& t) {
  model::UsableMemory usable = model::DriverUsableMemory(g);
  return {{"name", g.name}, {"vendor", g.vendor},
          {"memory_total_bytes", model::MemoryTotalBytes(g)}, {"memory_usable_bytes", usable.bytes},
          {"memory_usable_estimated", usable.estimated},
          {"memory_bandwidth_bytes_per_s", Opt(model::MemoryBandwidthBytesPerSecond(g))},
          {"bf16_tensor_dense_flops", Opt(model::PeakFlops(g, "bf16"))},
          {"fp8_tensor_dense_flops", Opt(model::PeakFlops(g, "fp8"))},
          {"fp32_flops", Opt(model::PeakFlops(g, "fp32"))},
          {"pcie_bytes_per_s_per_direction", Opt(model::DerivePcieBandwidth(g))},
          {"interconnect", LinkJson(g, model::PeerLink(g), t)}};
}

json GpuToJson(const GpuSpec& g, const report::Texts& t) {
  json na = json::array();
  json j;
  j["name"] = g.name;
  j["aliases"] = g.aliases;
  j["vendor"] = g.vendor;
  j["architecture"] = g.architecture;
  j["chip"] = g.chip;
  j["compute_capability"] = g.compute_capability;
  j["sm_count"] = Si(g.sm_count, 1, "sm_count", &na);
  j["fp32_lanes"] = Si(g.fp32_lanes, 1, "fp32_lanes", &na);
  j["tensor_cores"] = Si(g.tensor_cores, 1, "tensor_cores", &na);
  j["boost_clock_hz"] = Si(g.boost_clock_mhz, 1e6, "boost_clock_hz", &na);
  j["memory_type"] = g.memory_type;
  // GPU vendors' memory "GB" are binary: an 80 GB A100 carries 81920 MiB.
  j["memory_bytes"] = Si(g.memory_size_gb_vendor, kGiB, "memory_bytes", &na);
  j["memory_vendor_label"] = g.memory_size_gb_vendor.known() ? json(fmt::format("{:g} GB", *g.memory_size_gb_vendor.value)) : json(nullptr);
  j["memory_total_bytes"] = model::MemoryTotalBytes(g);
  model::UsableMemory usable = model::DriverUsableMemory(g);
  j["memory_usable_bytes"] = usable.bytes;
  j["memory_usable_estimated"] = usable.estimated;
  j["memory_usable_basis"] = usable.basis;
  j["memory_bus_width_bits"] = Si(g.memory_bus_width_bits, 1, "memory_bus_width_bits", &na);
  j["memory_data_rate_bits_per_s_per_pin"] =
      Si(g.memory_data_rate_gbit_per_s_per_pin, 1e9, "memory_data_rate_bits_per_s_per_pin", &na);
  model::DerivedFigure bw = model::DeriveMemoryBandwidth(g);
  // The figure every prediction uses: the vendor's, else the derived one.
  j["memory_bandwidth_bytes_per_s"] = Opt(model::MemoryBandwidthBytesPerSecond(g));
  j["memory_bandwidth_vendor_bytes_per_s"] = Opt(bw.vendor);
  j["memory_bandwidth_derived_bytes_per_s"] = Opt(bw.derived);
  j["memory_bandwidth_gap_fraction"] = Opt(bw.gap_fraction);
  j["memory_bandwidth_gap_flagged"] = bw.flagged;
  j["l2_cache_bytes"] = Si(g.l2_cache_mib, 1024.0 * 1024.0, "l2_cache_bytes", &na);
  j["fp64_flops"] = Si(g.fp64_vector_tflops, 1e12, "fp64_flops", &na);
  j["fp64_tensor_flops"] = Si(g.fp64_tensor_tflops, 1e12, "fp64_tensor_flops", &na);
  model::DerivedFigure fp32 = model::DeriveFp32Peak(g);
  j["fp32_flops"] = Si(g.fp32_vector_tflops, 1e12, "fp32_flops", &na);
  j["fp32_derived_flops"] = Opt(fp32.derived);
  j["fp32_gap_fraction"] = Opt(fp32.gap_fraction);
  j["fp32_gap_flagged"] = fp32.flagged;
  j["tf32_tensor_dense_flops"] = Si(g.tf32_tensor_dense_tflops, 1e12, "tf32_tensor_dense_flops", &na);
  j["bf16_tensor_dense_flops"] = Si(g.fp16_bf16_tensor_dense_tflops, 1e12, "bf16_tensor_dense_flops", &na);
  j["fp16_tensor_dense_flops"] = Si(g.fp16_bf16_tensor_dense_tflops, 1e12, "fp16_tensor_dense_flops", &na);
  j["fp8_tensor_dense_flops"] = Si(g.fp8_tensor_dense_tflops, 1e12, "fp8_tensor_dense_flops", &na);
  j["int8_tensor_dense_ops_per_s"] = Si(g.int8_tensor_dense_tops, 1e12, "int8_tensor_dense_ops_per_s", &na);
  j["vendor_figures_with_sparsity"] = g.vendor_figures_with_sparsity;
  j["ridge_point_bf16_flops_per_byte"] = Opt(model::RidgePointFlopsPerByte(g, "bf16"));
  j["tdp_watts"] = Si(g.tdp_watts, 1, "tdp_watts", &na);
  j["host_interface"] = g.host_interface;
  j["pcie_generation"] = g.pcie_generation ? json(*g.pcie_generation) : json(nullptr);
  j["pcie_lanes"] = g.pcie_lanes ? json(*g.pcie_lanes) : json(nullptr);
  j["pcie_bytes_per_s_per_direction"] = Opt(model::DerivePcieBandwidth(g));
  j["nvlink_bytes_per_s_bidirectional"] =
      Si(g.nvlink_total_bidirectional_gb_per_s, 1e9, "nvlink_bytes_per_s_bidirectional", &na);
  j["interconnect"] = LinkJson(g, model::PeerLink(g), t);
  j["form_factor"] = g.form_factor;
  j["form_factor_zh"] = g.form_factor_zh.empty() ? json(nullptr) : json(g.form_factor_zh);
  j["pci_vendor_id"] = g.pci_vendor_id.empty() ? json(nullptr) : json(g.pci_vendor_id);
  j["pci_device_ids"] = g.pci_device_ids;
  j["pci_device_ids_source"] = g.pci_device_ids_source;
  j["confidence"] = g.confidence;
  j["notes"] = g.notes;
  j["notes_zh"] = g.notes_zh.empty() ? json(nullptr) : json(g.notes_zh);
  j["sources"] = g.sources;
  j["not_applicable"] = na;
  return j;
}


}  // namespace gpuprobe::cli
