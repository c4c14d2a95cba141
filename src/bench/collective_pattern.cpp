#include "bench/collective_pattern.h"

#include <algorithm>

namespace gpuprobe::bench {

float PatternBase(std::uint64_t index) { return static_cast<float>(index % 251 + 1); }

float PatternInput(int rank, std::uint64_t index) { return static_cast<float>(rank + 1) * PatternBase(index); }

float PatternExpected(model::Collective collective, int rank, int ranks, std::uint64_t count, std::uint64_t index) {
  // Sum over ranks q of (q + 1) = n (n + 1) / 2.
  float rank_sum = static_cast<float>(ranks) * static_cast<float>(ranks + 1) / 2;
  std::uint64_t c = count == 0 ? 1 : count;
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

std::uint64_t PatternOutputElements(model::Collective collective, int ranks, std::uint64_t count) {
  std::uint64_t n = ranks > 0 ? static_cast<std::uint64_t>(ranks) : 1;
  switch (collective) {
    case model::Collective::kAllGather:
    case model::Collective::kAllToAll: return count * n;
    default: return count;
  }
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> VerifyRanges(std::uint64_t elements, int ranks, std::uint64_t per_block_end) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  std::uint64_t n = ranks > 0 ? static_cast<std::uint64_t>(ranks) : 1;
  std::uint64_t block = (elements + n - 1) / n;
  if (block <= 2 * per_block_end) {
    if (elements > 0) ranges.emplace_back(0, elements);
    return ranges;
  }
  for (std::uint64_t b = 0; b < n; ++b) {
    std::uint64_t begin = b * block, end = std::min(elements, begin + block);
    if (begin >= end) break;
    std::uint64_t head_end = std::min(end, begin + per_block_end);
    std::uint64_t tail_begin = end > per_block_end ? std::max(head_end, end - per_block_end) : head_end;
    auto add = [&](std::uint64_t lo, std::uint64_t hi) {
      if (lo >= hi) return;
      if (!ranges.empty() && ranges.back().second >= lo) {
        ranges.back().second = std::max(ranges.back().second, hi);
      } else {
        ranges.emplace_back(lo, hi);
      }
    };
    add(begin, head_end);
    add(tail_begin, end);
  }
  return ranges;
}

}  // namespace gpuprobe::bench
