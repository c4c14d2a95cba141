// Figures derived from a GpuSpec by the formulas a reader can check by eye, shown beside
// the vendor's figures so a gap explains itself:
//   memory bandwidth = data rate per pin x bus width / 8            (NOTES: "bandwidth check")
//   FP32 peak        = FP32 lanes x 2 (an FMA is 2 FLOPs) x boost clock
//   PCIe per direction = GT/s per lane x lanes x encoding / 8  (128b/130b from Gen3 on)
//   ridge point      = peak FLOP/s / bandwidth (FLOP per byte where the roofline bends)
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>

#include "model/gpu_spec.h"

namespace gpuprobe::model {

/// Gaps larger than this between a derived and a vendor figure are flagged.
inline constexpr double kVendorRoundingTolerance = 0.03;

struct DerivedFigure {
  std::optional<double> derived;  ///< SI base units (B/s, FLOP/s); empty when inputs are missing
  std::optional<double> vendor;   ///< the vendor's figure in the same unit, when published
  /// (derived - vendor) / vendor; empty unless both are known.
  std::optional<double> gap_fraction;
  bool flagged = false;           ///< |gap| > kVendorRoundingTolerance
};

/// data rate (Gbit/s per pin) x bus width (bits) / 8, against the vendor bandwidth.
DerivedFigure DeriveMemoryBandwidth(const GpuSpec& gpu);

/// FP32 lanes x 2 x boost clock, against the vendor FP32 vector figure.
DerivedFigure DeriveFp32Peak(const GpuSpec& gpu);

/// Per-direction PCIe bandwidth after line encoding, in bytes/s; empty when not PCIe.
std::optional<double> PcieBytesPerSecondPerDirection(int generation, int lanes);

/// The GPU's host link per direction (from pcie_generation and pcie_lanes).
std::optional<double> DerivePcieBandwidth(const GpuSpec& gpu);

/// GT/s per lane of a PCIe generation (1..6); 0 when unknown.
double PcieTransfersPerSecondPerLane(int generation);
/// Line-encoding efficiency: 8b/10b for Gen1-2, 128b/130b for Gen3-5, ~FLIT for Gen6.
double PcieEncodingEfficiency(int generation);

/// Peak dense FLOP/s for a data type name ("fp64", "fp32", "tf32", "fp16", "bf16", "fp8",
/// "int8"), using tensor cores where the GPU has them; empty when not published.
std::optional<double> PeakFlops(const GpuSpec& gpu, const std::string& dtype);

/// Memory bandwidth in B/s: the vendor figure, else the derived one.
std::optional<double> MemoryBandwidthBytesPerSecond(const GpuSpec& gpu);

/// Ridge point of the roofline for `dtype`: peak FLOP/s / bandwidth, in FLOP per byte.
std::optional<double> RidgePointFlopsPerByte(const GpuSpec& gpu, const std::string& dtype);

/// Memory the driver makes available to programs, in bytes: total minus reserved from a real
/// capture when the database has one, else an estimate (see `estimated`).
struct UsableMemory {
  double bytes = 0;
  bool estimated = true;   ///< true when no driver capture exists for this GPU
  std::string basis;       ///< one line (English) saying where the number comes from
  double total_mib = 0;    ///< captured driver total (when not estimated)
  double reserved_mib = 0; ///< captured driver reservation (when not estimated)
  double vendor_gb = 0;    ///< the vendor figure the estimate starts from
};
UsableMemory DriverUsableMemory(const GpuSpec& gpu);

/// The GPU's memory in bytes: the driver's total from a real capture when the database has
/// one, else the vendor's figure read as binary GiB (GPU vendors' "80 GB" is 81920 MiB of
/// chips). 0 when unknown.
double MemoryTotalBytes(const GpuSpec& gpu);

}  // namespace gpuprobe::model
