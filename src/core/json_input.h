// Parsing JSON that came from a user (a config.json, a saved report, a bench document) with
// the limits hostile input needs: a nesting depth checked before the parser sees the text,
// so a file of 100,000 nested arrays is an error instead of a stack overflow in a recursive
// copy or dump later on, and a message that names the file, the line and the column.
//
// Thread safety: functions are reentrant.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace gpuprobe::core {

/// Nesting deeper than this is refused: real documents of ours or of Hugging Face stay
/// under 12 levels, and every recursive walk over a value stays far from the stack's end.
inline constexpr int kMaxJsonDepth = 64;

/// ParseError naming `label` and the line/column where arrays and objects nest deeper than
/// `max_depth`; ok otherwise. Linear in the text, no recursion; strings are skipped.
Status CheckJsonNesting(std::string_view text, const std::string& label, int max_depth = kMaxJsonDepth);

/// Parses `text` after CheckJsonNesting. ParseError "<label>: not valid JSON (line L, column
/// C)" on a syntax error; never throws.
Result<nlohmann::json> ParseJsonInput(std::string_view text, const std::string& label,
                                      int max_depth = kMaxJsonDepth);

/// ParseJsonInput for JSON as Python's json module writes it (transformers' save_pretrained,
/// the Hub): the bare values NaN, Infinity and -Infinity, which strict JSON does not have, are
/// read as the strings "NaN", "Infinity" and "-Infinity" (never as numbers, so no count is
/// computed from them). Everything else stays strict; error positions refer to the original text.
Result<nlohmann::json> ParsePythonJsonInput(std::string_view text, const std::string& label,
                                            int max_depth = kMaxJsonDepth);

/// Line and column (1-based) of byte `offset` in `text`.
std::pair<int, int> LineAndColumn(std::string_view text, size_t offset);

}  // namespace gpuprobe::core
