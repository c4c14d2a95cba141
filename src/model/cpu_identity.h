// CpuIdentity: what the CPU is, parsed from the text of /proc/cpuinfo and /proc/meminfo
// (the caller reads the files; this stays pure). The bench module extends this with
// caches and measured clocks from hwloc.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuprobe::model {

struct CpuIdentity {
  std::string model_name;           ///< "AMD EPYC 9654 96-Core Processor"; empty when unknown
  std::string vendor;               ///< "GenuineIntel", "AuthenticAMD", "ARM"
  int logical_cpus = 0;             ///< processors listed
  std::optional<int> physical_cores;  ///< distinct (physical id, core id) pairs
  std::optional<int> sockets;
  std::vector<std::string> simd;    ///< widest first: "AMX", "AVX-512", "AVX2", "SSE4.2", "NEON"
  std::optional<double> max_mhz;    ///< "cpu MHz" is the current clock; this is the highest seen
  std::optional<double> memory_total_bytes;
  int family = 0;                   ///< x86 "cpu family"
  int model_number = 0;             ///< x86 "model"
  std::vector<std::string> flags;   ///< every feature flag of the first processor
};

/// Parses /proc/cpuinfo text (x86 and Arm layouts). Unknown fields stay empty.
CpuIdentity ParseCpuInfo(std::string_view cpuinfo_text);
/// Adds MemTotal from /proc/meminfo text to `identity`.
void AddMemInfo(std::string_view meminfo_text, CpuIdentity* identity);

}  // namespace gpuprobe::model
