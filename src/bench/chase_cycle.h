// The pointer chase of latency.chase, CUDA-free: one random cycle through a buffer with one
// 4-byte element per 128-byte line (no two loads share a line), the index the chase reaches
// after any number of loads, the lines it has touched, and the footprint each case must
// have for the level it is named after. The kernel follows next[] and nothing else; each
// sample starts where the previous one ended, so a line is loaded again only after the whole
// cycle: the reuse footprint is the cycle, not one sample's loads.
//
// Thread safety: pure functions; a ChaseCycle is a value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpuprobe::bench::gpu {

constexpr std::uint64_t kChaseLineBytes = 128;   ///< a GPU cache line
constexpr std::uint32_t kChaseLineWords = 32;    ///< 4-byte elements per line
/// Dependent loads per timed sample (one kernel run): ~45 ms at HBM latency, ~1 ms in L1.
constexpr std::uint32_t kChaseStepsPerSample = 1u << 16;
/// The largest L1 of the GPUs gpuprobe knows (Hopper and Blackwell: 256 KiB of L1 and shared
/// memory per SM); an L2 case must be far beyond it.
constexpr std::uint64_t kLargestL1Bytes = 256ull << 10;

struct ChaseCycle {
  /// The buffer the kernel walks: next[line x 32] = the element index of the next line; the
  /// other 31 words of each line are 0 and never read.
  std::vector<std::uint32_t> next;
  /// order[p] = the line at position p of the cycle; position_of[line] = its position.
  std::vector<std::uint32_t> order, position_of;
  std::uint64_t lines() const { return order.size(); }
  std::uint64_t bytes() const { return order.size() * kChaseLineBytes; }
};

/// One random cycle through every one of `lines` lines (Sattolo's algorithm; at least 2).
ChaseCycle BuildChaseCycle(std::uint64_t lines, std::uint64_t seed);

/// The element index the chase holds after `steps` loads from element `start` (a line's
/// first word): start's line moved `steps` positions along the cycle.
std::uint32_t ChaseIndexAfter(const ChaseCycle& cycle, std::uint32_t start, std::uint64_t steps);

/// Distinct lines touched by `steps` loads continuing around a cycle of `lines` lines.
std::uint64_t ChaseLinesTouched(std::uint64_t steps, std::uint64_t lines);

/// One case of the chase: the level it is named after, the cycle's bytes, and whether that
/// is far (>= 4x) beyond the level above it, as the name claims; when memory is too small
/// for that, `far_enough` is false and the label says so.
struct ChaseLevel {
  std::string level;                 ///< "L1", "L2", "HBM"
  std::uint64_t bytes = 0;           ///< the cycle: every line reused only after all of it
  std::uint64_t level_above_bytes = 0;  ///< the capacity it must exceed (0 for L1)
  bool far_enough = true;
  std::string Label() const;         ///< "256 MiB cycle (HBM, 5.1x L2)"
};

/// The three cases for a GPU with `l2_bytes` of L2 and `free_bytes` of free memory:
/// L1 = 16 KiB (fits every L1); L2 = L2 / 4 clamped to [4 x kLargestL1Bytes, L2 / 2];
/// HBM = max(4 x L2, 256 MiB), at most a quarter of the free memory.
std::vector<ChaseLevel> ChaseLevels(std::uint64_t l2_bytes, std::uint64_t free_bytes);

}  // namespace gpuprobe::bench::gpu
