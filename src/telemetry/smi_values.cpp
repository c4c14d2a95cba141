#include "telemetry/smi_values.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace gpuprobe::telemetry::smi {

bool IsAbsent(std::string_view raw) {
  std::string cell = Trim(raw);
  if (cell.empty()) return true;
  if (cell.front() == '[') return true;  // [N/A], [Not Supported], [Unknown Error], ...
  if (cell == "N/A" || cell == "n/a" || cell == "NA" || cell == "Unknown" || cell == "Not Available" || cell == "ERR!") return true;
  for (const char* phrase : {"deprecated", "Deprecated", "Not Supported", "Not supported", "Insufficient Permissions",
                             "Not available", "Not Found"}) {
    if (cell.find(phrase) != std::string::npos) return true;
  }
  return false;
}

std::optional<double> Number(std::string_view raw) {
  if (IsAbsent(raw)) return std::nullopt;
  std::string cell = Trim(raw);
  const char* begin = cell.c_str();
  char* end = nullptr;
  double value = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<double> Bytes(std::string_view raw, double default_unit_bytes) {
  auto value = Number(raw);
  if (!value) return std::nullopt;
  std::string cell = Trim(raw);
  double unit = default_unit_bytes;
  if (cell.find("KiB") != std::string::npos) unit = 1024.0;
  else if (cell.find("MiB") != std::string::npos) unit = 1024.0 * 1024.0;
  else if (cell.find("GiB") != std::string::npos) unit = 1024.0 * 1024.0 * 1024.0;
  else if (cell.find("TiB") != std::string::npos) unit = 1024.0 * 1024.0 * 1024.0 * 1024.0;
  else if (cell.find(" B") != std::string::npos || (!cell.empty() && cell.back() == 'B' && cell.find("iB") == std::string::npos &&
                                                    cell.find("KB") == std::string::npos && cell.find("MB") == std::string::npos)) {
    unit = 1.0;
  }
  double bytes = *value * unit;
  if (!std::isfinite(bytes)) return std::nullopt;
  return bytes;
}

std::optional<double> KilobytesPerSecond(std::string_view raw) {
  auto value = Number(raw);
  if (!value) return std::nullopt;
  return *value * 1024.0;  // NVML reports PCIe throughput in KiB/s; nvidia-smi prints "KB/s"
}

std::optional<bool> Flag(std::string_view raw) {
  if (IsAbsent(raw)) return std::nullopt;
  std::string cell = Trim(raw);
  for (auto& c : cell) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (cell == "enabled" || cell == "yes" || cell == "active" || cell == "on" || cell == "true" || cell == "1") return true;
  if (cell == "disabled" || cell == "no" || cell == "not active" || cell == "off" || cell == "false" || cell == "0") return false;
  return std::nullopt;
}

std::optional<int> ToInt(std::optional<double> value) {
  // The range check comes before the cast: converting an out-of-range double is undefined.
  if (!value || !std::isfinite(*value) || *value < -2147483648.0 || *value > 2147483647.0) return std::nullopt;
  return static_cast<int>(*value);
}

std::optional<std::uint32_t> ToUint32(std::optional<double> value) {
  if (!value || !std::isfinite(*value) || *value < 0 || *value > 4294967295.0) return std::nullopt;
  return static_cast<std::uint32_t>(*value);
}

std::optional<int> Integer(std::string_view raw) { return ToInt(Number(raw)); }

std::optional<std::uint64_t> Hex(std::string_view raw) {
  if (IsAbsent(raw)) return std::nullopt;
  std::string cell = Trim(raw);
  if (cell.empty()) return std::nullopt;
  int base = 10;
  std::string digits = cell;
  if (cell.size() > 2 && cell[0] == '0' && (cell[1] == 'x' || cell[1] == 'X')) {
    base = 16;
    digits = cell.substr(2);
  }
  if (digits.empty() || digits.size() > (base == 16 ? 16u : 19u)) return std::nullopt;
  for (char c : digits) {
    if (!(base == 16 ? std::isxdigit(static_cast<unsigned char>(c)) : std::isdigit(static_cast<unsigned char>(c)))) return std::nullopt;
  }
  return std::strtoull(digits.c_str(), nullptr, base);
}

std::string ValidUtf8(std::string_view text, bool* replaced) {
  static const char kReplacement[] = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(text.size());
  bool any = false;
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t length = 0;
    std::uint32_t min = 0;
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      length = 2, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      length = 3, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      length = 4, min = 0x10000;
    }
    bool ok = length != 0 && i + length <= text.size();
    std::uint32_t code = ok ? (c & (0xFF >> (length + 1))) : 0;
    for (size_t k = 1; ok && k < length; ++k) {
      unsigned char next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) ok = false;
      code = (code << 6) | (next & 0x3F);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are invalid too.
    if (ok && (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF))) ok = false;
    if (ok) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      out += kReplacement;
      any = true;
      ++i;
    }
  }
  if (replaced != nullptr) *replaced = any;
  return out;
}

void Diagnostics::Note(std::string message, core::TextRef text) {
  if (notes_.size() >= kMaxNotes) {
    ++dropped_;
    return;
  }
  notes_.push_back(std::move(message));
  texts_.push_back(std::move(text));
}

std::vector<std::string> Diagnostics::Messages() const {
  std::vector<std::string> out = notes_;
  if (dropped_ > 0) out.push_back(fmt::format("... and {} more", dropped_));
  return out;
}

std::vector<core::TextRef> Diagnostics::Texts() const {
  std::vector<core::TextRef> out = texts_;
  if (dropped_ > 0) out.push_back({"inspect.warning.more", {{"count", std::to_string(dropped_)}}});
  return out;
}

namespace {

struct Range {
  double min, max;
  bool whole;
};

Range RangeOf(Quantity quantity) {
  switch (quantity) {
    case Quantity::kBytes: return {0, 18014398509481984.0, false};  // 2^54 bytes = 16 PiB
    case Quantity::kBytesPerSecond: return {0, 1e13, false};
    case Quantity::kPercent: return {0, 100, false};
    case Quantity::kCelsius: return {-100, 250, false};
    case Quantity::kWatts: return {0, 100000, false};
    case Quantity::kMegahertz: return {0, 100000, false};
    case Quantity::kCount: return {0, 9007199254740992.0, true};  // 2^53: exact in a double
    case Quantity::kPcieGeneration: return {1, 16, true};
    case Quantity::kPcieWidth: return {1, 64, true};
  }
  return {0, 0, false};
}

// Shown in notes; raw text from a hostile file is cut and made printable UTF-8 first.
std::string Shown(std::string_view raw) {
  std::string text = ValidUtf8(Trim(raw.substr(0, std::min<size_t>(raw.size(), 60))));
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  return text;
}

}  // namespace

std::optional<double> Checked(std::optional<double> value, Quantity quantity, std::string_view field, std::string_view raw,
                              std::string_view where, Diagnostics* diagnostics) {
  if (!value) return std::nullopt;
  Range range = RangeOf(quantity);
  bool ok = std::isfinite(*value) && *value >= range.min && *value <= range.max &&
            (!range.whole || std::floor(*value) == *value);
  if (ok) return value;
  if (diagnostics != nullptr) {
    diagnostics->Note(fmt::format("{}{}{}: '{}' is not a possible value; ignored", field, where.empty() ? "" : " of ", where, Shown(raw)),
                      {where.empty() ? "inspect.warning.value_ignored" : "inspect.warning.value_ignored_at",
                       {{"field", std::string(field)}, {"where", std::string(where)}, {"raw", Shown(raw)}}});
  }
  return std::nullopt;
}

std::string CleanText(std::string_view raw, std::string_view field, std::string_view where, Diagnostics* diagnostics) {
  if (IsAbsent(raw)) return "";
  bool replaced = false;
  std::string text = ValidUtf8(Trim(raw), &replaced);
  if (replaced && diagnostics != nullptr) {
    diagnostics->Note(fmt::format("{}{}{}: invalid UTF-8 replaced with U+FFFD", field, where.empty() ? "" : " of ", where),
                      {where.empty() ? "inspect.warning.bad_utf8" : "inspect.warning.bad_utf8_at",
                       {{"field", std::string(field)}, {"where", std::string(where)}}});
  }
  return text;
}

}  // namespace gpuprobe::telemetry::smi
