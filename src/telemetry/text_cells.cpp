#include "telemetry/text_cells.h"

#include <cctype>

namespace gpuprobe::telemetry::cells {


std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    std::string_view line = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.emplace_back(line);
    start = nl == std::string_view::npos ? text.size() : nl + 1;
  }
  return lines;
}

std::vector<std::string> SplitWhitespace(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t start = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i > start) out.emplace_back(s.substr(start, i - start));
  }
  return out;
}

std::vector<std::string> SplitTabs(std::string_view s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t tab = s.find('\t', start);
    out.push_back(Trim(s.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start)));
    if (tab == std::string_view::npos) break;
    start = tab + 1;
  }
  return out;
}

std::string StripAnsi(std::string_view s, bool* stripped) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\x1b') {
      out += s[i];
      continue;
    }
    *stripped = true;
    size_t j = i + 1;
    if (j < s.size() && s[j] == '[') {
      ++j;
      while (j < s.size() && !std::isalpha(static_cast<unsigned char>(s[j]))) ++j;
    }
    i = j;  // skips the final letter too
  }
  return out;
}

}  // namespace gpuprobe::telemetry::cells
