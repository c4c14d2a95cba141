// "Did you mean": the closest candidates to a mistyped word (ninja's spell check).
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpuprobe::core {

/// Case-insensitive edit distance between a and b: insertions, deletions, substitutions and
/// swaps of two neighbouring characters (optimal string alignment), each one edit.
int EditDistance(std::string_view a, std::string_view b);

/// The distance when it is at most `bound`, else bound + 1, in O(bound x length) time
/// (a 100,000-character typo costs microseconds against short names). bound < 0: no bound.
int BoundedEditDistance(std::string_view a, std::string_view b, int bound);

/// The most edits a suggestion may be away: beyond it a "did you mean" is no longer a typo.
inline constexpr int kMaxSuggestionDistance = 8;

/// Candidates within `max_distance` edits of `word`, closest first (ties keep input order).
/// `max_distance` < 0 means "a third of the word's length, at least 2"; never above kMaxSuggestionDistance.
std::vector<std::string> ClosestMatches(std::string_view word,
                                        const std::vector<std::string>& candidates,
                                        int max_distance = -1, size_t limit = 3);

}  // namespace gpuprobe::core
