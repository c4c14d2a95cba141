#include "bench/collective_pattern.h"

#include <algorithm>

namespace gpuprobe::bench {

PatternMismatches ComparePattern(const PatternCheck& check, const float* output, std::uint64_t elements) {
  PatternMismatches m;
  for (std::uint64_t i = 0; i < elements; ++i) {
    if (PatternElementOk(check, i, output[i])) continue;
    if (m.count == 0) {
      m.first_index = i;
      m.first_value = output[i];
    }
    ++m.count;
  }
  return m;
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
