#include "model/cpu_spec.h"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "core/strings.h"

namespace gpuprobe::model {

VectorPipes FmaPipes(const CpuSpec& cpu) {
  VectorPipes p;
  if (cpu.has_neon) {
    p = {2, 128, "NEON", "Arm: two 128-bit FMA pipes assumed (Neoverse N1/N2 class)", "neon"};
    return p;
  }
  if (!cpu.has_fma) {
    p = {1, 128, "SSE2", "no FMA instructions: one 128-bit multiply and one add per cycle, counted as one FMA pipe", "no_fma"};
    return p;
  }
  if (cpu.vendor == "AuthenticAMD") {
    if (cpu.family == 23 && cpu.model_number < 0x30) {
      return {2, 128, "AVX2+FMA",
              "AMD Zen/Zen+ (family 17h, model < 30h): two 128-bit FMA pipes, 256-bit instructions split in two", "zen1"};
    }
    if (cpu.family == 23 || cpu.family == 25) {
      // Zen 2/3: 2 x 256-bit; Zen 4 runs AVX-512 on the same 256-bit pipes.
      return {2, 256, cpu.has_avx512f ? "AVX-512" : "AVX2+FMA",
              "AMD Zen 2/3/4 (family 17h model >= 30h, 19h): two 256-bit FMA pipes", "zen234"};
    }
    if (cpu.family >= 26) {
      if (cpu.has_avx512f) return {2, 512, "AVX-512", "AMD Zen 5 (family 1Ah): two 512-bit FMA pipes assumed (server/desktop)", "zen5"};
      return {2, 256, "AVX2+FMA", "AMD family 1Ah without AVX-512: two 256-bit FMA pipes", "amd_1ah_avx2"};
    }
    return {2, 128, "AVX2+FMA", "older AMD with FMA: two 128-bit pipes assumed", "amd_older"};
  }
  if (cpu.has_avx512f) {
    return {2, 512, "AVX-512",
            "Intel with AVX-512: two 512-bit FMA units assumed (Xeon Gold 6xxx/Platinum; some parts have one)", "intel_avx512"};
  }
  return {2, 256, "AVX2+FMA", "Intel Haswell or newer: two 256-bit FMA units", "intel_avx2"};
}

double PeakClockHz(const CpuSpec& cpu) {
  return cpu.measured_clock_hz > 0 ? cpu.measured_clock_hz : cpu.max_clock_hz;
}

int ElementBits(const std::string& dtype) {
  if (dtype == "fp64") return 64;
  if (dtype == "fp16" || dtype == "bf16") return 16;
  return 32;
}

CpuPeak CpuPeakOf(const CpuSpec& cpu, const std::string& dtype, int cores) {
  CpuPeak peak;
  peak.clock_hz = PeakClockHz(cpu);
  peak.clock_measured = cpu.measured_clock_hz > 0;
  peak.cores = cores;
  peak.pipes = FmaPipes(cpu);
  peak.lanes = static_cast<double>(peak.pipes.width_bits) / ElementBits(dtype);
  if (peak.clock_hz <= 0 || cores <= 0) return peak;
  // bf16 dot products (AVX512-BF16 vdpbf16ps) do two multiply-adds per fp32 lane.
  peak.flops = cores * peak.pipes.fma_pipes * peak.lanes * 2.0 * peak.clock_hz;
  return peak;
}

std::optional<double> CpuPeakFlops(const CpuSpec& cpu, const std::string& dtype, int cores) {
  return CpuPeakOf(cpu, dtype, cores).flops;
}

std::uint64_t LastLevelCacheBytes(const CpuSpec& cpu) {
  if (cpu.l3_total_bytes > 0) return cpu.l3_total_bytes;
  if (cpu.l2_bytes > 0) return cpu.l2_bytes * static_cast<std::uint64_t>(std::max(1, cpu.physical_cores));
  return cpu.l1d_bytes;
}

double TypicalLatencySeconds(const CpuSpec& cpu, double bytes) {
  double clock = PeakClockHz(cpu) > 0 ? PeakClockHz(cpu) : 3e9;
  if (cpu.l1d_bytes > 0 && bytes <= static_cast<double>(cpu.l1d_bytes)) return 4.0 / clock;
  if (cpu.l2_bytes > 0 && bytes <= static_cast<double>(cpu.l2_bytes)) return 14.0 / clock;
  if (cpu.l3_bytes > 0 && bytes <= static_cast<double>(cpu.l3_bytes)) return 45.0 / clock;
  return 90e-9;
}

double AmdahlSpeedup(double parallel_fraction, double workers) {
  if (workers <= 0) return 0;
  return 1.0 / ((1.0 - parallel_fraction) + parallel_fraction / workers);
}

std::optional<double> DramPeakFromDmidecode(const std::string& text, std::string* basis, core::TextRef* basis_text) {
  std::istringstream in(text);
  std::string line;
  int populated = 0;
  double speed = 0;
  bool in_device = false, device_empty = false;
  while (std::getline(in, line)) {
    if (line.rfind("Memory Device", 0) == 0) {
      in_device = true;
      device_empty = false;
      continue;
    }
    if (!in_device) continue;
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    key.erase(0, key.find_first_not_of(" \t"));
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    if (key == "Size") {
      device_empty = value.rfind("No Module", 0) == 0;
      if (!device_empty) ++populated;
    } else if ((key == "Configured Memory Speed" || key == "Configured Clock Speed") && !device_empty) {
      std::optional<double> mts = core::ParseDouble(value);
      if (mts && *mts > 0) speed = speed == 0 ? *mts : std::min(speed, *mts);
    }
  }
  if (populated == 0 || speed <= 0) {
    if (basis) *basis = "unknown: the configured memory speed could not be read (dmidecode needs root and real SMBIOS data)";
    if (basis_text) *basis_text = {"bench.dram.unreadable", {}};
    return std::nullopt;
  }
  double peak = populated * speed * 1e6 * 8.0;
  if (basis) {
    *basis = fmt::format("{} populated DIMMs x {:.0f} MT/s x 8 B, assuming one DIMM per channel", populated, speed);
  }
  if (basis_text) *basis_text = {"bench.dram.dimms", {{"dimms", std::to_string(populated)}, {"speed", fmt::format("{:.0f}", speed)}}};
  return peak;
}

}  // namespace gpuprobe::model
