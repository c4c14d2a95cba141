#include "model/spec_derivation.h"

#include <cmath>

#include <fmt/format.h>

namespace gpuprobe::model {
namespace {

DerivedFigure Compare(std::optional<double> derived, std::optional<double> vendor) {
  DerivedFigure f;
  f.derived = derived;
  f.vendor = vendor;
  if (derived && vendor && *vendor > 0) {
    f.gap_fraction = (*derived - *vendor) / *vendor;
    f.flagged = std::fabs(*f.gap_fraction) > kVendorRoundingTolerance;
  }
  return f;
}

std::optional<double> Tera(const SpecFigure& figure) {
  if (!figure.known()) return std::nullopt;
  return *figure.value * 1e12;
}

}  // namespace

DerivedFigure DeriveMemoryBandwidth(const GpuSpec& gpu) {
  std::optional<double> derived;
  if (gpu.memory_data_rate_gbit_per_s_per_pin.known() && gpu.memory_bus_width_bits.known()) {
    // Gbit/s per pin x pins / 8 bits per byte.
    derived = *gpu.memory_data_rate_gbit_per_s_per_pin.value * 1e9 *
              *gpu.memory_bus_width_bits.value / 8.0;
  }
  std::optional<double> vendor;
  if (gpu.memory_bandwidth_vendor_gb_per_s.known()) {
    vendor = *gpu.memory_bandwidth_vendor_gb_per_s.value * 1e9;
  }
  return Compare(derived, vendor);
}

DerivedFigure DeriveFp32Peak(const GpuSpec& gpu) {
  std::optional<double> derived;
  if (gpu.fp32_lanes.known() && gpu.boost_clock_mhz.known()) {
    derived = *gpu.fp32_lanes.value * 2.0 * *gpu.boost_clock_mhz.value * 1e6;
  }
  return Compare(derived, Tera(gpu.fp32_vector_tflops));
}

double PcieTransfersPerSecondPerLane(int generation) {
  switch (generation) {
    case 1: return 2.5e9;
    case 2: return 5e9;
    case 3: return 8e9;
    case 4: return 16e9;
    case 5: return 32e9;
    case 6: return 64e9;
    default: return 0;
  }
}

double PcieEncodingEfficiency(int generation) {
  if (generation <= 2) return 8.0 / 10.0;
  if (generation <= 5) return 128.0 / 130.0;
  return 242.0 / 256.0;  // Gen6 FLIT: 242 payload bytes of 256 (FEC + CRC), approximate
}

std::optional<double> PcieBytesPerSecondPerDirection(int generation, int lanes) {
  double rate = PcieTransfersPerSecondPerLane(generation);
  if (rate == 0 || lanes <= 0) return std::nullopt;
  return rate * lanes * PcieEncodingEfficiency(generation) / 8.0;
}

std::optional<double> DerivePcieBandwidth(const GpuSpec& gpu) {
  if (!gpu.pcie_generation || !gpu.pcie_lanes) return std::nullopt;
  return PcieBytesPerSecondPerDirection(*gpu.pcie_generation, *gpu.pcie_lanes);
}

std::optional<double> PeakFlops(const GpuSpec& gpu, const std::string& dtype) {
  if (dtype == "fp64") {
    if (gpu.fp64_tensor_tflops.known()) return Tera(gpu.fp64_tensor_tflops);
    return Tera(gpu.fp64_vector_tflops);
  }
  if (dtype == "fp32") return Tera(gpu.fp32_vector_tflops);
  if (dtype == "tf32") return Tera(gpu.tf32_tensor_dense_tflops);
  if (dtype == "fp16" || dtype == "bf16") return Tera(gpu.fp16_bf16_tensor_dense_tflops);
  if (dtype == "fp8") return Tera(gpu.fp8_tensor_dense_tflops);
  if (dtype == "int8") return Tera(gpu.int8_tensor_dense_tops);
  return std::nullopt;
}

std::optional<double> MemoryBandwidthBytesPerSecond(const GpuSpec& gpu) {
  DerivedFigure bw = DeriveMemoryBandwidth(gpu);
  if (bw.vendor) return bw.vendor;
  return bw.derived;
}

std::optional<double> RidgePointFlopsPerByte(const GpuSpec& gpu, const std::string& dtype) {
  auto flops = PeakFlops(gpu, dtype);
  auto bandwidth = MemoryBandwidthBytesPerSecond(gpu);
  if (!flops || !bandwidth || *bandwidth <= 0) return std::nullopt;
  return *flops / *bandwidth;
}

UsableMemory DriverUsableMemory(const GpuSpec& gpu) {
  UsableMemory usable;
  constexpr double kMiB = 1024.0 * 1024.0;
  constexpr double kGiB = kMiB * 1024.0;
  if (gpu.driver_memory_total_mib) {
    double reserved = gpu.driver_memory_reserved_mib.value_or(0);
    usable.bytes = (*gpu.driver_memory_total_mib - reserved) * kMiB;
    usable.estimated = false;
    usable.total_mib = *gpu.driver_memory_total_mib;
    usable.reserved_mib = reserved;
    usable.basis = fmt::format("{:.0f} MiB total - {:.0f} MiB reserved, as reported by a real driver ({})",
                               *gpu.driver_memory_total_mib, reserved, gpu.driver_memory_source);
    return usable;
  }
  // Vendors' "GB" on GPUs are binary sizes (80 GB = 81920 MiB of chips); drivers then hold
  // back 1-2.5% (H100: 79.2 of 80 GiB; 24 GB cards: 23.58 GiB). ECC on GDDR costs 6.25% more.
  double vendor = gpu.memory_size_gb_vendor.ValueOr(0);
  usable.bytes = vendor * kGiB * 0.98;
  usable.estimated = true;
  usable.vendor_gb = vendor;
  usable.basis = fmt::format("estimated as 98% of {} GiB (no driver capture for this GPU; "
                             "drivers keep 1-2.5% back, and ECC on GDDR costs 6.25% more)", vendor);
  return usable;
}

double MemoryTotalBytes(const GpuSpec& gpu) {
  constexpr double kMiB = 1024.0 * 1024.0;
  if (gpu.driver_memory_total_mib) return *gpu.driver_memory_total_mib * kMiB;
  return gpu.memory_size_gb_vendor.ValueOr(0) * kMiB * 1024.0;
}

}  // namespace gpuprobe::model
