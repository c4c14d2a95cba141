#include "model/gpu_device_figures.h"

#include <cmath>

#include "model/advisor.h"
#include "model/spec_derivation.h"

namespace gpuprobe::model {

std::optional<double> TheoreticalBandwidth(const DeviceFigures& d) {
  if (d.memory_clock_hz <= 0 || d.memory_bus_width_bits <= 0) return std::nullopt;
  return 2.0 * d.memory_clock_hz * d.memory_bus_width_bits / 8.0;
}

int LanesPerSm(int major, int minor, const std::string& type) {
  // Per SM and clock, from NVIDIA's whitepapers and datasheets (Turing, Ampere GA100/GA10x,
  // Ada, Hopper, Blackwell B200/B300 and RTX Blackwell). fp16 and bf16 count paired lanes x
  // 2, non-tensor. 0 = not published: the prediction then says so instead of guessing.
  struct Row { int major, minor, fp32, fp64, fp16, bf16, int32; };
  static const Row kRows[] = {
      {7, 5, 64, 2, 128, 0, 64},      // Turing (T4, RTX 20): no bf16 arithmetic
      {8, 0, 64, 32, 256, 128, 64},   // A100: bf16 non-tensor at half the fp16 rate
      {8, 6, 128, 2, 128, 128, 64},   // RTX 30, A10, A40: fp16 and bf16 1:1 with fp32
      {8, 7, 128, 2, 128, 0, 64},     // Orin: no bf16 figure published
      {8, 9, 128, 2, 128, 128, 64},   // Ada: RTX 40, L4, L40S
      {9, 0, 128, 64, 256, 256, 64},  // Hopper: H100, H200
      // B200/GB200: 37 TFLOP/s fp64 and 74 fp32 on 148 SMs at ~1.97 GHz; no non-tensor
      // fp16, bf16 or int32 rate is published.
      {10, 0, 128, 64, 0, 0, 0},
      // B300/GB300: fp64 cut to ~1.25 TFLOP/s, about 2 lanes per SM.
      {10, 3, 128, 2, 0, 0, 0},
      // RTX Blackwell (RTX 50, RTX PRO 6000; GB10 is 12.1): fp16, bf16 and int32 1:1 with
      // fp32 (every core runs int32 or fp32), fp64 at 1/64.
      {12, 0, 128, 2, 128, 128, 128},
      {12, 1, 128, 2, 128, 128, 128},
  };
  for (const auto& r : kRows) {
    if (r.major != major || r.minor != minor) continue;
    if (type == "fp32") return r.fp32;
    if (type == "fp64") return r.fp64;
    if (type == "fp16") return r.fp16;
    if (type == "bf16") return r.bf16;
    if (type == "int32") return r.int32;
  }
  return 0;
}

std::optional<double> TheoreticalPeak(const DeviceFigures& d, const std::string& type) {
  int lanes = LanesPerSm(d.cc_major, d.cc_minor, type);
  if (lanes == 0 || d.sm_count <= 0 || d.sm_clock_hz <= 0) return std::nullopt;
  return static_cast<double>(lanes) * d.sm_count * 2.0 * d.sm_clock_hz;
}

std::optional<double> PinnedCopyBandwidth(const DeviceFigures& d) {
  if (d.pcie_generation <= 0 || d.pcie_lanes <= 0) return std::nullopt;
  auto link = PcieBytesPerSecondPerDirection(d.pcie_generation, d.pcie_lanes);
  if (!link) return std::nullopt;
  return *link * kPcieEfficiency;
}

DeviceFigures DeviceFiguresFromSpec(const GpuSpec& spec) {
  DeviceFigures d;
  // "sm_90" -> 9.0, "sm_100" -> 10.0, "sm_120" -> 12.0: the last digit is the minor version.
  const std::string& cc = spec.compute_capability;
  if (cc.rfind("sm_", 0) == 0 && cc.size() >= 5) {
    std::string digits = cc.substr(3);
    bool numeric = digits.find_first_not_of("0123456789") == std::string::npos;
    if (numeric) {
      d.cc_major = std::stoi(digits.substr(0, digits.size() - 1));
      d.cc_minor = digits.back() - '0';
    }
  }
  d.sm_count = static_cast<int>(spec.sm_count.ValueOr(0));
  d.sm_clock_hz = spec.boost_clock_mhz.ValueOr(0) * 1e6;
  // The runtime reports half the data rate per pin as the memory clock.
  d.memory_clock_hz = spec.memory_data_rate_gbit_per_s_per_pin.ValueOr(0) * 1e9 / 2;
  d.memory_bus_width_bits = static_cast<int>(spec.memory_bus_width_bits.ValueOr(0));
  d.l2_bytes = static_cast<std::uint64_t>(std::llround(spec.l2_cache_mib.ValueOr(0) * 1024 * 1024));
  d.pcie_generation = spec.pcie_generation.value_or(0);
  d.pcie_lanes = spec.pcie_lanes.value_or(0);
  return d;
}

}  // namespace gpuprobe::model
