#include "hub/http_client.h"

#include <algorithm>
#include <cctype>

namespace gpuprobe::hub {
namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

}  // namespace

void HttpHeaders::Set(std::string_view name, std::string_view value) {
  std::string key = Lower(Trim(name));
  std::string text(Trim(value));
  for (auto& [k, v] : entries_) {
    if (k == key) {
      v = std::move(text);
      return;
    }
  }
  entries_.emplace_back(std::move(key), std::move(text));
}

std::optional<std::string> HttpHeaders::Get(std::string_view name) const {
  const std::string key = Lower(name);
  for (const auto& [k, v] : entries_) {
    if (k == key) return v;
  }
  return std::nullopt;
}

}  // namespace gpuprobe::hub
