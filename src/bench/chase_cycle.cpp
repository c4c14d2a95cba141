#include "bench/chase_cycle.h"

#include <algorithm>
#include <numeric>
#include <random>

#include <fmt/format.h>

#include "core/units.h"

namespace gpuprobe::bench::gpu {

ChaseCycle BuildChaseCycle(std::uint64_t lines, std::uint64_t seed) {
  lines = std::max<std::uint64_t>(lines, 2);
  ChaseCycle cycle;
  cycle.order.resize(lines);
  std::iota(cycle.order.begin(), cycle.order.end(), 0u);
  // Sattolo: swapping only with earlier positions yields a single cycle through all lines.
  std::mt19937_64 rng(seed);
  for (std::uint64_t i = lines - 1; i > 0; --i) {
    std::swap(cycle.order[i], cycle.order[std::uniform_int_distribution<std::uint64_t>(0, i - 1)(rng)]);
  }
  cycle.position_of.resize(lines);
  for (std::uint64_t p = 0; p < lines; ++p) cycle.position_of[cycle.order[p]] = static_cast<std::uint32_t>(p);
  cycle.next.assign(lines * kChaseLineWords, 0);
  for (std::uint64_t p = 0; p < lines; ++p) {
    cycle.next[cycle.order[p] * kChaseLineWords] = cycle.order[(p + 1) % lines] * kChaseLineWords;
  }
  return cycle;
}

std::uint32_t ChaseIndexAfter(const ChaseCycle& cycle, std::uint32_t start, std::uint64_t steps) {
  std::uint64_t position = cycle.position_of[start / kChaseLineWords];
  return cycle.order[(position + steps) % cycle.lines()] * kChaseLineWords;
}

std::uint64_t ChaseLinesTouched(std::uint64_t steps, std::uint64_t lines) { return std::min(steps, lines); }

std::string ChaseLevel::Label() const {
  std::string size = core::FormatBytesBinary(static_cast<double>(bytes));
  if (level_above_bytes == 0) return fmt::format("{} cycle ({})", size, level);
  double ratio = static_cast<double>(bytes) / static_cast<double>(level_above_bytes);
  const char* above = level == "HBM" ? "L2" : "L1";
  return fmt::format("{} cycle ({}, {:.1f}x {}{})", size, level, ratio, above, far_enough ? "" : ": not far beyond it");
}

std::vector<ChaseLevel> ChaseLevels(std::uint64_t l2_bytes, std::uint64_t free_bytes) {
  std::vector<ChaseLevel> levels;
  auto line_multiple = [](std::uint64_t bytes) { return std::max<std::uint64_t>(bytes / kChaseLineBytes, 2) * kChaseLineBytes; };
  levels.push_back({"L1", 16ull << 10, 0, true});
  std::uint64_t l2_case = std::clamp<std::uint64_t>(l2_bytes / 4, std::min(4 * kLargestL1Bytes, l2_bytes / 2), l2_bytes / 2);
  levels.push_back({"L2", line_multiple(l2_case), kLargestL1Bytes, l2_case >= 4 * kLargestL1Bytes});
  std::uint64_t hbm = std::min<std::uint64_t>(std::max<std::uint64_t>(4 * l2_bytes, 256ull << 20), free_bytes / 4);
  levels.push_back({"HBM", line_multiple(hbm), l2_bytes, hbm >= 4 * l2_bytes});
  return levels;
}

}  // namespace gpuprobe::bench::gpu
