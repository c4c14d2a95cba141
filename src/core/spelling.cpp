#include "core/spelling.h"

#include <algorithm>
#include <cctype>

namespace gpuprobe::core {

int EditDistance(std::string_view a, std::string_view b) {
  std::vector<int> previous(b.size() + 1);
  std::vector<int> current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                  std::tolower(static_cast<unsigned char>(b[j - 1]));
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (same ? 0 : 1)});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::vector<std::string> ClosestMatches(std::string_view word,
                                        const std::vector<std::string>& candidates,
                                        int max_distance, size_t limit) {
  if (max_distance < 0) max_distance = std::max<int>(2, static_cast<int>(word.size()) / 3);
  std::vector<std::pair<int, size_t>> scored;
  for (size_t i = 0; i < candidates.size(); ++i) {
    int distance = EditDistance(word, candidates[i]);
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
