#include "core/strings.h"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>

namespace gpuprobe::core {

std::string Trim(std::string_view text) {
  size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return std::string(text.substr(begin, end - begin));
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string Join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

bool StartsWith(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::optional<double> ParseDouble(std::string_view text, std::size_t* consumed) {
  const std::string copy(text);  // strtod needs the terminating NUL
  char* end = nullptr;
  errno = 0;
  double value = std::strtod(copy.c_str(), &end);
  if (end == copy.c_str() || errno == ERANGE) return std::nullopt;
  if (consumed) *consumed = static_cast<std::size_t>(end - copy.c_str());
  return value;
}

std::optional<int> ParseInt(std::string_view text, std::size_t* consumed) {
  const std::string copy(text);
  char* end = nullptr;
  errno = 0;
  long value = std::strtol(copy.c_str(), &end, 10);
  if (end == copy.c_str() || errno == ERANGE || value < INT_MIN || value > INT_MAX) return std::nullopt;
  if (consumed) *consumed = static_cast<std::size_t>(end - copy.c_str());
  return static_cast<int>(value);
}

}  // namespace gpuprobe::core
