// memory.sweep on the GPU, CUDA-free: the working-set sizes, which level of the hierarchy
// each one targets, how many passes one launch reads, and the bytes that makes. The kernel
// reads every element once per pass through the grid-stride loop of gpu_kernel_math.h, with
// loads that bypass L1 (.cg), so a size that fits in L2 measures L2, not L1.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpuprobe::bench::gpu {

/// Each launch reads at least this much, so L2-sized sets are not launch-bound.
constexpr std::uint64_t kSweepBytesPerLaunch = 256ull << 20;

/// The level a read of `bytes` targets with `l2_bytes` of L2: "L2" up to half of it (the
/// rest of L2 holds other lines; Hopper also splits it in two partitions), "HBM" from 4x it
/// (DESIGN.md's rule for bandwidth), "L2/HBM" in between.
std::string SweepLevel(std::uint64_t bytes, std::uint64_t l2_bytes);

/// "4 MiB (L2)": the size and the level it targets.
std::string SweepLabel(std::uint64_t bytes, std::uint64_t l2_bytes);

/// Passes over `bytes` in one launch: kSweepBytesPerLaunch / bytes, at least 1.
int SweepPasses(std::uint64_t bytes);

/// Bytes one launch reads: every element of `bytes` once per pass.
double SweepBytesRead(std::uint64_t bytes);

/// 1 MiB, then x4 (x2 with `full`) up to `top` bytes.
std::vector<std::uint64_t> SweepSizes(std::uint64_t top, bool full);

}  // namespace gpuprobe::bench::gpu
