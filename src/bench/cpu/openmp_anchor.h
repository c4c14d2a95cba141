// The comparison point for the pool's fork-join cost: an empty OpenMP parallel region with
// the same number of threads, timed in the same run (OpenMP's runtime is what most CPU code
// users run uses for parallel loops). Built with the compiler's OpenMP where CMake finds it.
//
// Thread safety: call from one thread.
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.h"

namespace gpuprobe::bench {

/// Whether this build has OpenMP.
bool OpenMpAvailable();

/// Runs `regions` empty parallel regions of `threads` threads (each thread counts its visits
/// in counts[thread * stride]) on the OS CPUs `cpus` (the pool's, so both run on the same
/// cores); returns the seconds they took. Unavailable without OpenMP.
core::Result<double> TimeOpenMpRegions(int threads, int regions, const std::vector<int>& cpus,
                                       std::vector<std::uint64_t>* counts, std::size_t stride);

}  // namespace gpuprobe::bench
