// The data the many-GPU benchmarks move, and what each output element must be afterwards, so
// every element of every collective's and copy's result is checked: rank r's input element x
// is (r + 1) x k(x), with k(x) = x mod 251 + 1. Sums over up to 364 ranks stay below 2^24, so
// every value is exact in float32 and the check is equality, not a tolerance. The expected
// values are closed-form functions that the GPUs' compare kernel evaluates for each element
// (GPUPROBE_HOST_DEVICE: the same code on both sides) and the host tests against the
// collectives done on the host.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "bench/host_device.h"
#include "model/collective_bandwidth.h"

namespace gpuprobe::bench {

/// The most ranks for which every expected value is an exact float32.
inline constexpr int kPatternMaxRanks = 364;

/// k(x) = x mod 251 + 1 (251 is prime, so the pattern does not line up with power-of-two blocks).
GPUPROBE_HOST_DEVICE inline float PatternBase(std::uint64_t index) { return static_cast<float>(index % 251 + 1); }
/// Rank `rank`'s input element `index`: (rank + 1) x k(index).
GPUPROBE_HOST_DEVICE inline float PatternInput(int rank, std::uint64_t index) {
  return static_cast<float>(rank + 1) * PatternBase(index);
}

/// What element `index` of rank `rank`'s output holds after `collective` over `ranks` ranks
/// fed with PatternInput (sum for the reductions, root 0 for broadcast and reduce). `count` is
/// the NCCL count argument: all_reduce / broadcast / reduce the buffer's elements; all_gather
/// the per-rank send count; reduce_scatter the per-rank receive count; alltoall the count sent
/// to each peer. For reduce, ranks other than the root have no defined output (returns 0).
GPUPROBE_HOST_DEVICE inline float PatternExpected(model::Collective collective, int rank, int ranks, std::uint64_t count,
                                                  std::uint64_t index) {
  // Sum over ranks q of (q + 1) = n (n + 1) / 2.
  const float rank_sum = static_cast<float>(ranks) * static_cast<float>(ranks + 1) / 2;
  const std::uint64_t c = count == 0 ? 1 : count;
  switch (collective) {
    case model::Collective::kAllReduce: return rank_sum * PatternBase(index);
    case model::Collective::kReduce: return rank == 0 ? rank_sum * PatternBase(index) : 0;
    case model::Collective::kBroadcast: return PatternInput(0, index);
    // Block q of the output is rank q's input.
    case model::Collective::kAllGather: return PatternInput(static_cast<int>(index / c), index % c);
    // Rank r receives block r of the element-wise sum.
    case model::Collective::kReduceScatter: return rank_sum * PatternBase(static_cast<std::uint64_t>(rank) * c + index);
    // Block q of rank r's output is block r of rank q's input.
    case model::Collective::kAllToAll:
      return PatternInput(static_cast<int>(index / c), static_cast<std::uint64_t>(rank) * c + index % c);
    // Rank r receives rank (r - 1)'s buffer in a ring of pairs.
    case model::Collective::kSendRecv: return PatternInput((rank + ranks - 1) % ranks, index);
  }
  return 0;
}

/// What a rank's output is compared with, element by element, by the compare kernel
/// (multi_gpu_cuda.h) and by its host replay: a collective's expected values, or a copy's
/// source pattern (bench p2p: the destination must hold PatternInput(source rank, x)).
struct PatternCheck {
  bool copy = false;  ///< a copy of rank `rank`'s source; else `collective` seen by `rank`
  model::Collective collective = model::Collective::kAllReduce;
  int rank = 0;
  int ranks = 1;
  std::uint64_t count = 0;
};

/// The value element `index` must hold under `check`.
GPUPROBE_HOST_DEVICE inline float PatternCheckExpected(const PatternCheck& check, std::uint64_t index) {
  return check.copy ? PatternInput(check.rank, index) : PatternExpected(check.collective, check.rank, check.ranks, check.count, index);
}

/// Whether element `index` holds what `check` expects: exact equality (a NaN, the receive
/// buffers' fill, never passes).
GPUPROBE_HOST_DEVICE inline bool PatternElementOk(const PatternCheck& check, std::uint64_t index, float got) {
  return got == PatternCheckExpected(check, index);
}

/// What a compare found: how many elements differ, and the first one (the lowest index).
struct PatternMismatches {
  std::uint64_t count = 0;
  std::uint64_t first_index = 0;  ///< meaningful when count > 0
  float first_value = 0;
};

/// The compare kernel's loop on the host, for the tests: every element of `output` through
/// PatternElementOk.
PatternMismatches ComparePattern(const PatternCheck& check, const float* output, std::uint64_t elements);

/// Elements in rank's output buffer for `count` (see PatternExpected).
std::uint64_t PatternOutputElements(model::Collective collective, int ranks, std::uint64_t count);

/// The element ranges [begin, end) of an output of `elements` checked on the host: the
/// output is cut into `ranks` blocks (one per source or destination rank) and the first and
/// last `per_block_end` elements of each are checked; everything when that covers it all.
/// Ranges are sorted and do not overlap.
std::vector<std::pair<std::uint64_t, std::uint64_t>> VerifyRanges(std::uint64_t elements, int ranks, std::uint64_t per_block_end);

}  // namespace gpuprobe::bench
