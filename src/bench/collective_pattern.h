// The data the many-GPU benchmarks move, and what each output element must be afterwards, so
// every collective's result is checked on the host: rank r's input element x is
// (r + 1) x k(x), with k(x) = x mod 251 + 1. Sums over up to 364 ranks stay below 2^24, so
// every value is exact in float32 and the check is equality, not a tolerance.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "model/collective_bandwidth.h"

namespace gpuprobe::bench {

/// The most ranks for which every expected value is an exact float32.
inline constexpr int kPatternMaxRanks = 364;

/// k(x) = x mod 251 + 1 (251 is prime, so the pattern does not line up with power-of-two blocks).
float PatternBase(std::uint64_t index);
/// Rank `rank`'s input element `index`: (rank + 1) x k(index).
float PatternInput(int rank, std::uint64_t index);

/// What element `index` of rank `rank`'s output holds after `collective` over `ranks` ranks
/// fed with PatternInput (sum for the reductions, root 0 for broadcast and reduce). `count` is
/// the NCCL count argument: all_reduce / broadcast / reduce the buffer's elements; all_gather
/// the per-rank send count; reduce_scatter the per-rank receive count; alltoall the count sent
/// to each peer. For reduce, ranks other than the root have no defined output (returns 0).
float PatternExpected(model::Collective collective, int rank, int ranks, std::uint64_t count, std::uint64_t index);

/// Elements in rank's output buffer for `count` (see PatternExpected).
std::uint64_t PatternOutputElements(model::Collective collective, int ranks, std::uint64_t count);

/// The element ranges [begin, end) of an output of `elements` checked on the host: the
/// output is cut into `ranks` blocks (one per source or destination rank) and the first and
/// last `per_block_end` elements of each are checked; everything when that covers it all.
/// Ranges are sorted and do not overlap.
std::vector<std::pair<std::uint64_t, std::uint64_t>> VerifyRanges(std::uint64_t elements, int ranks, std::uint64_t per_block_end);

}  // namespace gpuprobe::bench
