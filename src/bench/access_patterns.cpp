#include "bench/access_patterns.h"

#include <algorithm>

namespace gpuprobe::bench::gpu {

std::vector<int> SimulateAccess(AccessPattern p, std::uint64_t n, std::uint32_t stride, const std::uint32_t* perm,
                                std::uint64_t threads) {
  std::vector<int> counts(n, 0);
  for (std::uint64_t t = 0; t < threads; ++t) {
    for (std::uint64_t base = t; base < n; base += threads * kAccessLoadsInFlight) {
      for (int j = 0; j < kAccessLoadsInFlight; ++j) {
        std::uint64_t i = base + static_cast<std::uint64_t>(j) * threads;
        if (i < n) ++counts[AccessIndex(p, i, n, stride, perm)];
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
