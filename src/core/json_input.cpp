#include "core/json_input.h"

#include <algorithm>
#include <vector>

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

namespace {

// Python's non-finite literals quoted where they stand as values; `shifts` records, for each
// quoted literal, its offset in the result and the 2 bytes it added, to map errors back.
std::string QuotePythonLiterals(std::string_view text, std::vector<size_t>* shifts) {
  static constexpr std::string_view kLiterals[] = {"-Infinity", "Infinity", "NaN"};
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  char previous = 0;  // the last character outside strings that is not white space
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    if (previous == ':' || previous == ',' || previous == '[' || previous == 0) {
      bool quoted = false;
      for (std::string_view literal : kLiterals) {
        if (text.substr(i, literal.size()) == literal) {
          shifts->push_back(out.size());
          out += '"';
          out += literal;
          out += '"';
          i += literal.size() - 1;
          previous = '"';
          quoted = true;
          break;
        }
      }
      if (quoted) continue;
    }
    out += c;
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') previous = c;
  }
  return out;
}

// Parses `parsed` (the text, or the text with Python's literals quoted) and reports errors at
// their place in `text`: each quoted literal before the error added 2 bytes.
Result<nlohmann::json> Parse(std::string_view text, std::string_view parsed, const std::vector<size_t>& shifts,
                             const std::string& label, int max_depth) {
  GPUPROBE_RETURN_IF_ERROR(CheckJsonNesting(text, label, max_depth));
  try {
    return nlohmann::json::parse(parsed.begin(), parsed.end());
  } catch (const nlohmann::json::parse_error& error) {
    size_t at = error.byte > 0 ? error.byte - 1 : 0;
    size_t before = static_cast<size_t>(std::count_if(shifts.begin(), shifts.end(), [at](size_t s) { return s < at; }));
    auto [line, column] = LineAndColumn(text, at >= 2 * before ? at - 2 * before : 0);
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

}  // namespace

Result<nlohmann::json> ParseJsonInput(std::string_view text, const std::string& label, int max_depth) {
  return Parse(text, text, {}, label, max_depth);
}

Result<nlohmann::json> ParsePythonJsonInput(std::string_view text, const std::string& label, int max_depth) {
  std::vector<size_t> shifts;
  std::string quoted = QuotePythonLiterals(text, &shifts);
  return Parse(text, quoted, shifts, label, max_depth);
}

}  // namespace gpuprobe::core
