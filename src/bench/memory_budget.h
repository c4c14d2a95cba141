// Whether a run's --size fits the machine before anything is allocated: every selected
// benchmark's largest case (Benchmark::FootprintFor, all its buffers) against the memory free
// on the device that holds them (the CPU context: MemAvailable of /proc/meminfo; a GPU
// context: its free memory), less a margin. A size too big is refused with the bytes the
// run would allocate and the largest --size that fits, rather than met by the OOM killer or
// a failed allocation halfway through the run.
//
// Thread safety: pure functions over the contexts' figures.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/benchmark.h"
#include "core/status.h"

namespace gpuprobe::bench {

/// The share of the free memory a run may take: the rest is left to the page cache, the
/// other processes and the allocator's own overhead, so that a size just under the free
/// memory does not wake the OOM killer.
inline constexpr double kFreeMemoryShare = 0.9;

/// MemAvailable of a /proc/meminfo text, in bytes; empty when the line is missing (kernels
/// before 3.14) or malformed.
std::optional<std::uint64_t> MemAvailableBytes(std::string_view meminfo);

/// The case of a run that does not fit.
struct MemoryShortfall {
  std::string id;            ///< memory.triad
  std::string backend;       ///< "cpu", "cuda"
  std::string case_label;    ///< "all threads", "n=100000"
  bool device = false;       ///< the GPU's memory (else the host's RAM)
  double bytes = 0;          ///< what the case would allocate there
  double free_bytes = 0;     ///< free there now
  /// The largest --size (in the same unit as the request: bytes, or a matrix order) with which
  /// every selected benchmark fits everywhere and accepts the size (Benchmark::Check); 0 when
  /// even the smallest does not.
  std::uint64_t largest_size = 0;
};

/// The first case (in run order) that would not fit with `size_override`; empty when every
/// case fits, or when size_override is 0 (the default sizes adapt to the machine). Host
/// buffers (of CPU and GPU cases alike) are held to `host`'s free memory (the CPU context,
/// which may be absent from `contexts` when only the GPU runs; may be null), device buffers to
/// their GPU context's. A figure that is unknown (Device().memory_free_bytes == 0) checks nothing.
std::optional<MemoryShortfall> FindMemoryShortfall(const std::vector<const Benchmark*>& selection,
                                                   const std::vector<BackendContext*>& contexts, const BackendContext* host,
                                                   const model::CpuSpec& cpu, bool full, std::uint64_t size_override);

/// InvalidArgument naming --size, the benchmark, the bytes it would allocate (all its buffers),
/// the free memory and the largest --size that fits (text key bench.error.size_exceeds_memory).
core::Status MemoryShortfallStatus(const MemoryShortfall& shortfall, std::uint64_t size_override);

}  // namespace gpuprobe::bench
