// CpuSpec: what the CPU can do in theory, the CPU side of every prediction. Filled from
// detected facts (cpuinfo, hwloc, dmidecode, a measured clock) by bench/cpu; the formulas
// here are pure:
//   peak FLOP/s  = cores x FMA pipes x (pipe width / element bits) x 2 x clock
//   DRAM peak    = channels x MT/s x 8 bytes   (only when the configured speed can be read)
//
// Thread safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace gpuprobe::model {

struct CpuSpec {
  std::string model_name;
  std::string vendor;            ///< "AuthenticAMD", "GenuineIntel", "ARM"
  int family = 0;                ///< x86 cpu family (decimal, as /proc/cpuinfo prints it)
  int model_number = 0;          ///< x86 model
  int physical_cores = 1;
  int logical_cpus = 1;
  int sockets = 1;
  int numa_nodes = 1;
  bool has_avx2 = false, has_fma = false, has_avx512f = false;
  bool has_avx512_bf16 = false, has_avx512_fp16 = false, has_amx = false, has_neon = false;
  double max_clock_hz = 0;       ///< highest clock the OS reports (0 unknown)
  double measured_clock_hz = 0;  ///< clock measured under load (0 not measured)
  std::uint64_t l1d_bytes = 0;   ///< per core
  std::uint64_t l2_bytes = 0;    ///< per core (or per L2 instance)
  std::uint64_t l3_bytes = 0;    ///< per L3 instance
  std::uint64_t l3_total_bytes = 0;  ///< all L3 instances
  std::uint64_t memory_total_bytes = 0;
  std::optional<double> dram_bandwidth_bytes_per_s;  ///< theoretical, when readable
  std::string dram_basis;        ///< how it was derived, or why it is unknown (English)
  core::TextRef dram_basis_text{};  ///< the same as a text key ("bench.dram.*"); empty: English only
};

/// Vector FMA resources per core, from the microarchitecture.
struct VectorPipes {
  int fma_pipes = 1;       ///< FMA instructions issued per cycle (full width)
  int width_bits = 128;    ///< data path width the peak uses
  std::string isa;         ///< the instruction set the peak assumes: "AVX-512", "AVX2+FMA", "SSE2", "NEON"
  std::string basis;       ///< which microarchitecture rule gave this (English)
  std::string rule{};      ///< the rule's stable id ("zen234", "intel_avx512"): texts "bench.fma_rule.<rule>"
};

/// The FMA pipes of `cpu` by vendor, family and model (stated as an assumption where the
/// CPUID model does not settle it).
VectorPipes FmaPipes(const CpuSpec& cpu);

/// The clock a peak uses: the measured clock under load when known, else the maximum.
double PeakClockHz(const CpuSpec& cpu);

/// Bits of one element of a data type: "fp64" 64, "fp32" 32, "bf16"/"fp16" 16, "int32" 32.
int ElementBits(const std::string& dtype);

/// The CPU's theoretical peak: the one figure every verb states (bench's header and its
/// predictions, the tour, the report, advise), computed here from one clock.
struct CpuPeak {
  std::optional<double> flops;  ///< FLOP/s (FMA counted as 2); empty when the clock is unknown
  double clock_hz = 0;          ///< the clock it used
  bool clock_measured = false;  ///< true: measured under load on this machine; false: the max clock the OS reports
  int cores = 0;
  VectorPipes pipes;
  double lanes = 0;             ///< elements of the type per FMA pipe
};

/// cores x FMA pipes x (pipe width / element bits) x 2 x PeakClockHz(cpu).
CpuPeak CpuPeakOf(const CpuSpec& cpu, const std::string& dtype, int cores);
/// CpuPeakOf(...).flops.
std::optional<double> CpuPeakFlops(const CpuSpec& cpu, const std::string& dtype, int cores);

/// The largest cache a working set can live in: L3 total, else L2, else L1.
std::uint64_t LastLevelCacheBytes(const CpuSpec& cpu);

/// Typical load-to-use latency for a working set of `bytes` that is randomly chased, in
/// seconds: L1 4 cycles, L2 14, L3 45 (at the peak clock), DRAM 90 ns (stated assumptions).
double TypicalLatencySeconds(const CpuSpec& cpu, double bytes);

/// Amdahl's law: speed-up on n workers of work whose parallel fraction is p (0..1):
/// 1 / ((1 - p) + p / n).
double AmdahlSpeedup(double parallel_fraction, double workers);

/// DRAM theoretical peak from SMBIOS memory devices (dmidecode -t memory text): the number
/// of populated devices x configured MT/s x 8 bytes, assuming one DIMM per channel.
/// Sets `basis` (and, when given, `basis_text`: "bench.dram.dimms" with {dimms} and {speed}, or
/// "bench.dram.unreadable"); empty when no configured speed can be read.
std::optional<double> DramPeakFromDmidecode(const std::string& dmidecode_text, std::string* basis,
                                            core::TextRef* basis_text = nullptr);

}  // namespace gpuprobe::model
