// A GPU's theoretical figures from what the CUDA runtime (or the spec database) says about
// it: compute capability, SMs, clocks, memory bus, L2 and the PCIe link. The formulas a
// reader can check by eye:
//   memory bandwidth = 2 (double data rate) x memory clock x bus width / 8
//   vector peak      = SMs x lanes per SM x 2 (an FMA is 2 FLOPs) x SM clock
//   pinned copies    = kPcieEfficiency x the link's encoded rate per direction
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/gpu_spec.h"

namespace gpuprobe::model {

struct DeviceFigures {
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  double sm_clock_hz = 0;
  double memory_clock_hz = 0;       ///< as the runtime reports it (half the data rate)
  int memory_bus_width_bits = 0;
  std::uint64_t l2_bytes = 0;
  int pcie_generation = 0, pcie_lanes = 0;  ///< 0 when unknown (from NVML)
};

/// 2 (double data rate) x memory clock x bus width / 8; empty when a figure is missing.
std::optional<double> TheoreticalBandwidth(const DeviceFigures& d);

/// Lanes per SM and clock for "fp32", "fp64", "fp16" (half2 lanes x 2, non-tensor), "bf16"
/// (bf16x2 lanes x 2, non-tensor) and "int32" (multiply-add), from NVIDIA's whitepapers and datasheets, Turing to Blackwell
/// (compute capability 7.5 to 12.x); 0 when the architecture or the type is not in the
/// table, or when NVIDIA publishes no figure for it (no guess).
int LanesPerSm(int cc_major, int cc_minor, const std::string& type);

/// SMs x lanes x 2 (FMA) x SM clock; empty when unknown. For int32 the unit is op/s.
std::optional<double> TheoreticalPeak(const DeviceFigures& d, const std::string& type);

/// kPcieEfficiency x the PCIe link's encoded rate per direction; empty when the link is
/// unknown.
std::optional<double> PinnedCopyBandwidth(const DeviceFigures& d);

/// The figures the runtime would report for `spec` (memory clock = data rate / 2, boost
/// clock as the SM clock, L2 in bytes, the PCIe link); fields the spec lacks stay 0. For
/// planning a run on a GPU that is not here.
DeviceFigures DeviceFiguresFromSpec(const GpuSpec& spec);

}  // namespace gpuprobe::model
