// GpuSpec: one GPU's reference specification, as the spec database holds it. Units are in
// every field name. A SpecFigure distinguishes "unknown" (no value, not published or not
// confirmed) from "not applicable" (the hardware has no such unit, e.g. TF32 on Turing).
//
// Thread safety: plain values.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gpuprobe::model {

struct SpecFigure {
  std::optional<double> value;   ///< the figure, in the unit named by the field
  bool not_applicable = false;   ///< true when the hardware has no such unit or type

  bool known() const { return value.has_value(); }
  double ValueOr(double fallback) const { return value.value_or(fallback); }
};

struct GpuSpec {
  std::string name;                  ///< canonical name, e.g. "H200 SXM 141GB"
  std::vector<std::string> aliases;  ///< short names that resolve to this GPU ("h200")
  std::string vendor;                ///< "NVIDIA", "AMD"
  std::string architecture;          ///< "Hopper"
  std::string chip;                  ///< "GH100"
  std::string compute_capability;    ///< "sm_90" (NVIDIA) or "gfx942" (AMD)

  SpecFigure sm_count;      ///< SMs (NVIDIA) or CUs (AMD)
  SpecFigure fp32_lanes;    ///< FP32 lanes ("CUDA cores")
  SpecFigure tensor_cores;
  SpecFigure boost_clock_mhz;

  std::string memory_type;                          ///< "HBM3e"
  SpecFigure memory_size_gb_vendor;                 ///< the marketing figure
  SpecFigure memory_bus_width_bits;
  SpecFigure memory_data_rate_gbit_per_s_per_pin;
  SpecFigure memory_bandwidth_vendor_gb_per_s;
  /// The source table's own bandwidth arithmetic (kept so tests can check ours against it).
  SpecFigure memory_bandwidth_computed_reference_gb_per_s;
  SpecFigure l2_cache_mib;

  SpecFigure fp64_vector_tflops;
  SpecFigure fp64_tensor_tflops;
  SpecFigure fp32_vector_tflops;
  SpecFigure tf32_tensor_dense_tflops;
  SpecFigure fp16_bf16_tensor_dense_tflops;  ///< FP16/BF16 inputs, FP32 accumulate, dense
  SpecFigure fp8_tensor_dense_tflops;
  SpecFigure int8_tensor_dense_tops;
  std::string vendor_figures_with_sparsity;  ///< the vendor's 2:4-sparse headline figures

  SpecFigure tdp_watts;
  std::string host_interface;             ///< "PCIe Gen5 x16"
  std::optional<int> pcie_generation;     ///< 5 for "PCIe Gen5 x16"; empty when not PCIe
  std::optional<int> pcie_lanes;
  SpecFigure nvlink_total_bidirectional_gb_per_s;  ///< GPU-to-GPU link, both directions added
  /// The SKU's GPU-to-GPU link as the data names it: "NVLink (SXM)", "NVLink bridge (2 cards)",
  /// "NVLink-C2C + NVLink", "Infinity Fabric (xGMI)", "NVLink (board)" or "none (PCIe only)"
  /// (model/gpu_link.h turns it into a kind).
  std::string interconnect;
  std::optional<int> nvlink_generation;   ///< 1 (P100) .. 5 (Blackwell); empty without NVLink
  std::string form_factor;
  std::string form_factor_zh;             ///< the same in Chinese (shown with --lang zh)
  std::string confidence;                 ///< "high", "medium" or "low"
  std::string notes;
  std::string notes_zh;                   ///< the same in Chinese, every figure as in `notes`
  std::vector<std::string> sources;       ///< keys defined in data/gpu_specs_NOTES.md

  std::string pci_vendor_id;                 ///< "0x10de"; empty when unknown
  std::vector<std::string> pci_device_ids;   ///< lower-case "0x2335"
  std::string pci_device_ids_source;

  /// Framebuffer total and reserved as a real driver reported them (nvidia-smi), in MiB.
  std::optional<double> driver_memory_total_mib;
  std::optional<double> driver_memory_reserved_mib;
  std::string driver_memory_source;
};

}  // namespace gpuprobe::model
