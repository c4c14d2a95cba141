#include "bench/access_patterns.h"

#include <algorithm>

namespace gpuprobe::bench::gpu {

AccessGeometry MakeAccessGeometry(std::uint64_t n, std::uint32_t stride) {
  AccessGeometry g;
  g.n = n;
  g.stride = std::max<std::uint32_t>(stride, 1);
  g.rows = std::max<std::uint64_t>(n / g.stride, 1);
  // Granlund-Montgomery: for x < 2^31 and l = ceil(log2 rows), magic = ceil(2^(31+l) / rows)
  // gives floor(x / rows) = (x * magic) >> (31 + l); magic <= 2^32, so x * magic < 2^63.
  std::uint32_t l = 0;
  while (l < 31 && (1ull << l) < g.rows) ++l;  // rows <= 2^31 (n <= kAccessMaxStridedItems)
  g.shift = 31 + l;                              // <= 62: 2^shift fits in 64 bits
  g.magic = ((1ull << g.shift) + g.rows - 1) / g.rows;
  return g;
}

std::vector<int> SimulateAccess(AccessPattern p, std::uint64_t n, std::uint32_t stride, const std::uint32_t* perm,
                                std::uint64_t threads) {
  std::vector<int> counts(n, 0);
  const AccessGeometry g = MakeAccessGeometry(n, stride);
  for (std::uint64_t t = 0; t < threads; ++t) {
    for (std::uint64_t base = t; base < n; base += threads * kAccessLoadsInFlight) {
      for (int j = 0; j < kAccessLoadsInFlight; ++j) {
        std::uint64_t i = base + static_cast<std::uint64_t>(j) * threads;
        if (i < n) ++counts[AccessIndex(p, i, g, perm)];
      }
    }
  }
  return counts;
}

double AccessUsefulFraction(AccessPattern p, std::uint32_t stride) {
  switch (p) {
    case AccessPattern::kSequential:
    case AccessPattern::kMisaligned: return 1.0;
    case AccessPattern::kStrided: return 1.0 / std::min<double>(std::max<std::uint32_t>(stride, 1), 8.0);
    case AccessPattern::kRandom: return 4.0 / (32.0 + 4.0);
  }
  return 1.0;
}

}  // namespace gpuprobe::bench::gpu
