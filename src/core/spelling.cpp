#include "core/spelling.h"

#include <algorithm>
#include <cctype>

namespace gpuprobe::core {

int EditDistance(std::string_view a, std::string_view b) { return BoundedEditDistance(a, b, -1); }

int BoundedEditDistance(std::string_view a, std::string_view b, int bound) {
  const size_t la = a.size(), lb = b.size();
  const size_t diff = la > lb ? la - lb : lb - la;
  // Ukkonen's cut-off: the distance is at least the difference in length, and only the cells
  // within `bound` of the diagonal can stay within it, so the work is O(bound x length).
  if (bound >= 0 && diff > static_cast<size_t>(bound)) return bound + 1;
  const int big = static_cast<int>(la + lb + 1);
  const size_t band = bound < 0 ? std::max(la, lb) : static_cast<size_t>(bound);
  std::vector<int> before(lb + 1, big);  // row i - 2, for a swap of two neighbours
  std::vector<int> previous(lb + 1, big);
  std::vector<int> current(lb + 1, big);
  auto lower = [](char c) { return std::tolower(static_cast<unsigned char>(c)); };
  for (size_t j = 0; j <= std::min(lb, band); ++j) previous[j] = static_cast<int>(j);
  for (size_t i = 1; i <= la; ++i) {
    const size_t from = i > band ? i - band : 1;
    const size_t to = std::min(lb, i + band);
    std::fill(current.begin(), current.end(), big);
    if (i <= band) current[0] = static_cast<int>(i);
    int row_best = current[0];
    for (size_t j = from; j <= to; ++j) {
      bool same = lower(a[i - 1]) == lower(b[j - 1]);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (same ? 0 : 1)});
      // Two neighbouring characters typed the other way round ("4900" for "4090") is one edit.
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1])) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
      row_best = std::min(row_best, current[j]);
    }
    if (bound >= 0 && row_best > bound) return bound + 1;
    before = previous;
    std::swap(previous, current);
  }
  return std::min(previous[lb], bound >= 0 ? bound + 1 : big);
}

std::vector<std::string> ClosestMatches(std::string_view word,
                                        const std::vector<std::string>& candidates,
                                        int max_distance, size_t limit) {
  if (max_distance < 0) max_distance = std::max<int>(2, static_cast<int>(word.size()) / 3);
  max_distance = std::min(max_distance, kMaxSuggestionDistance);
  std::vector<std::pair<int, size_t>> scored;
  for (size_t i = 0; i < candidates.size(); ++i) {
    int distance = BoundedEditDistance(word, candidates[i], max_distance);
    if (distance <= max_distance) scored.emplace_back(distance, i);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& l, const auto& r) { return l.first < r.first; });
  std::vector<std::string> out;
  for (const auto& [distance, index] : scored) {
    if (out.size() >= limit) break;
    out.push_back(candidates[index]);
  }
  return out;
}

}  // namespace gpuprobe::core
