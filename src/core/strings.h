// The small string helpers every module needs, in one place: trimming, ASCII lower case,
// joining, prefix and suffix tests, and numbers read without exceptions.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuprobe::core {

/// `text` without leading and trailing white space (std::isspace in the C locale).
std::string Trim(std::string_view text);

/// `text` with ASCII letters in lower case; other bytes (UTF-8 included) unchanged.
std::string Lower(std::string_view text);

/// `items` with `separator` between them. As every caller had it: while nothing has been
/// written yet no separator is added, so leading empty items leave no trace.
std::string Join(const std::vector<std::string>& items, std::string_view separator);

/// Whether `text` starts with `prefix` / ends with `suffix`.
bool StartsWith(std::string_view text, std::string_view prefix);
bool EndsWith(std::string_view text, std::string_view suffix);

/// The number at the start of `text` (leading white space skipped, as std::strtod reads it:
/// "2400.000", "1.5 GiB", "3e9"); nullopt when no number starts there or it is out of range.
/// `consumed`, when given, gets how many characters the number took (with the white space),
/// so a caller that wants the whole text checks it against text.size().
std::optional<double> ParseDouble(std::string_view text, std::size_t* consumed = nullptr);

/// The same for a base-10 integer that fits an int ("6", " 143").
std::optional<int> ParseInt(std::string_view text, std::size_t* consumed = nullptr);

}  // namespace gpuprobe::core
