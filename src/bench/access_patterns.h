// access.* on the GPU, CUDA-free: which element each thread reads for every pattern (the
// kernel calls AccessIndex, the tests replay it), how the loop hands out elements (each
// thread keeps kAccessLoadsInFlight independent loads in flight, whatever the pattern), and
// the share of the bytes each pattern fetches from DRAM that it uses.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <vector>

#include "bench/host_device.h"

namespace gpuprobe::bench::gpu {

enum class AccessPattern { kSequential, kStrided, kRandom, kMisaligned };

/// Independent 4-byte loads per thread per loop iteration: 32 bytes in flight per thread,
/// as much as two of memory.triad's 16-byte loads, so the sequential pattern is not held back
/// by memory-level parallelism that the vector kernels have and it lacks.
constexpr int kAccessLoadsInFlight = 8;

/// The element item `i` of [0, n) reads: a permutation of [0, n) for every pattern
/// (strided walks column by column of an (n / stride) x stride matrix; n is a multiple of
/// the stride). `perm` is the random pattern's permutation, read by the kernel too.
GPUPROBE_HOST_DEVICE inline std::uint64_t AccessIndex(AccessPattern p, std::uint64_t i, std::uint64_t n, std::uint32_t stride,
                                                      const std::uint32_t* perm) {
  switch (p) {
    case AccessPattern::kStrided: {
      std::uint64_t rows = n / stride;
      return (i % rows) * stride + i / rows;
    }
    case AccessPattern::kRandom: return perm[i];
    default: return i;  // sequential; misaligned reads the same, from a base 4 bytes on
  }
}

/// How often each element is read by a grid of `threads` threads running the kernel's loop:
/// thread t reads items t + (m * kAccessLoadsInFlight + j) * threads, j < kAccessLoadsInFlight.
std::vector<int> SimulateAccess(AccessPattern p, std::uint64_t n, std::uint32_t stride, const std::uint32_t* perm,
                                std::uint64_t threads);

/// The share of the bytes fetched from DRAM that the pattern uses (32-byte sectors):
/// sequential 1; misaligned 1 too (a warp's fifth sector is the next warp's first, read at
/// the same time and served by L2: the extra cost is L2 traffic, not DRAM); strided
/// 1 / min(stride, 8); random 4 / 36 (a 32-byte sector per element plus its 4-byte index).
double AccessUsefulFraction(AccessPattern p, std::uint32_t stride);

}  // namespace gpuprobe::bench::gpu
