#include "core/json_input.h"

#include <fmt/format.h>

namespace gpuprobe::core {

std::pair<int, int> LineAndColumn(std::string_view text, size_t offset) {
  int line = 1;
  int column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

Status CheckJsonNesting(std::string_view text, const std::string& label, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character cannot end the string
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        auto [line, column] = LineAndColumn(text, i);
        return Status::ParseError(
                   fmt::format("{}: arrays and objects nest more than {} levels deep (line {}, column {})",
                               label, max_depth, line, column),
                   "this is not a file gpuprobe reads; check that the right file was given")
            .WithKeys("error.json.too_deep",
                      {{"label", label}, {"depth", std::to_string(max_depth)}, {"line", std::to_string(line)},
                       {"column", std::to_string(column)}},
                      "error.json.too_deep.hint");
      }
    } else if (c == ']' || c == '}') {
      if (depth > 0) --depth;
    }
  }
  return Status::Ok();
}

Result<nlohmann::json> ParseJsonInput(std::string_view text, const std::string& label, int max_depth) {
  GPUPROBE_RETURN_IF_ERROR(CheckJsonNesting(text, label, max_depth));
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& error) {
    auto [line, column] = LineAndColumn(text, error.byte > 0 ? error.byte - 1 : 0);
    return Status::ParseError(fmt::format("{}: not valid JSON (line {}, column {})", label, line, column))
        .WithKeys("error.json.syntax", {{"label", label}, {"line", std::to_string(line)}, {"column", std::to_string(column)}});
  } catch (const nlohmann::json::out_of_range&) {
    // A number too large for a double (1e999): the text is JSON, the value is not.
    return Status::ParseError(fmt::format("{}: not valid JSON (a number is out of range)", label))
        .WithKeys("error.json.number_range", {{"label", label}});
  } catch (const nlohmann::json::exception& error) {
    // nlohmann's own words stay in the English message; the translation says what it means.
    return Status::ParseError(fmt::format("{}: not valid JSON ({})", label, error.what()))
        .WithKeys("error.json.other", {{"label", label}});
  }
}

}  // namespace gpuprobe::core
