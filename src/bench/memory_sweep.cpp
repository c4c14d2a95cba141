#include "bench/memory_sweep.h"

#include <algorithm>

#include "core/units.h"

namespace gpuprobe::bench::gpu {

std::string SweepLevel(std::uint64_t bytes, std::uint64_t l2_bytes) {
  if (l2_bytes == 0) return "?";
  if (bytes <= l2_bytes / 2) return "L2";
  if (bytes >= 4 * l2_bytes) return "HBM";
  return "L2/HBM";
}

std::string SweepLabel(std::uint64_t bytes, std::uint64_t l2_bytes) {
  return core::FormatBytesBinary(static_cast<double>(bytes)) + " (" + SweepLevel(bytes, l2_bytes) + ")";
}

int SweepPasses(std::uint64_t bytes) {
  return static_cast<int>(std::max<std::uint64_t>(1, kSweepBytesPerLaunch / std::max<std::uint64_t>(bytes, 1)));
}

double SweepBytesRead(std::uint64_t bytes) { return static_cast<double>(bytes) * SweepPasses(bytes); }

std::vector<std::uint64_t> SweepSizes(std::uint64_t top, bool full) {
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t b = 1ull << 20; b <= top; b *= full ? 2 : 4) sizes.push_back(b);
  return sizes;
}

}  // namespace gpuprobe::bench::gpu
