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

/// The strided pattern's largest item count: the index divides by the row count with a
/// precomputed reciprocal that is exact for items below 2^31 (8 GiB of floats).
inline constexpr std::uint64_t kAccessMaxStridedItems = 1ull << 31;

/// What the kernel needs to place item `i`, computed once on the host: n, the stride and,
/// for the strided pattern, rows = n / stride with its reciprocal (magic, shift) so that
/// i / rows = (i * magic) >> shift for every i < 2^31, a multiply and a shift instead of the
/// 64-bit division (div.u64, ~68 instructions per element) that bound small strides.
struct AccessGeometry {
  std::uint64_t n = 0;
  std::uint32_t stride = 1;
  std::uint64_t rows = 0, magic = 0;
  std::uint32_t shift = 0;
};

/// The geometry of n items at `stride` (n a multiple of the stride, n <= kAccessMaxStridedItems
/// for the strided pattern; the caller clamps).
AccessGeometry MakeAccessGeometry(std::uint64_t n, std::uint32_t stride);

/// floor(i / g.rows) for i < 2^31 without a division.
GPUPROBE_HOST_DEVICE inline std::uint64_t AccessRowQuotient(std::uint64_t i, const AccessGeometry& g) {
  return (i * g.magic) >> g.shift;
}

/// The element item `i` of [0, n) reads: a permutation of [0, n) for every pattern
/// (strided walks column by column of an (n / stride) x stride matrix; n is a multiple of
/// the stride). `perm` is the random pattern's permutation, read by the kernel too.
GPUPROBE_HOST_DEVICE inline std::uint64_t AccessIndex(AccessPattern p, std::uint64_t i, const AccessGeometry& g,
                                                      const std::uint32_t* perm) {
  switch (p) {
    case AccessPattern::kStrided: {
      std::uint64_t column = AccessRowQuotient(i, g);
      return (i - column * g.rows) * g.stride + column;
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
