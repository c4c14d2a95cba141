#include "telemetry/smi_values.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace gpuprobe::telemetry::smi {

std::string Trim(std::string_view text) {
  size_t b = 0, e = text.size();
  while (b < e && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1]))) --e;
  return std::string(text.substr(b, e - b));
}

bool IsAbsent(std::string_view raw) {
  std::string cell = Trim(raw);
  if (cell.empty()) return true;
  if (cell.front() == '[') return true;  // [N/A], [Not Supported], [Unknown Error], ...
  if (cell == "N/A" || cell == "n/a" || cell == "NA" || cell == "Unknown" || cell == "Not Available") return true;
  if (cell.find("deprecated") != std::string::npos || cell.find("Deprecated") != std::string::npos) return true;
  if (cell.find("Not Supported") != std::string::npos || cell.find("Insufficient Permissions") != std::string::npos) return true;
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
  return *value * unit;
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

std::optional<int> Integer(std::string_view raw) {
  auto value = Number(raw);
  if (!value || *value < -2147483648.0 || *value > 2147483647.0) return std::nullopt;
  return static_cast<int>(*value);
}

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
  if (digits.empty() || digits.size() > 16) return std::nullopt;
  for (char c : digits) {
    if (!(base == 16 ? std::isxdigit(static_cast<unsigned char>(c)) : std::isdigit(static_cast<unsigned char>(c)))) return std::nullopt;
  }
  return std::strtoull(digits.c_str(), nullptr, base);
}

}  // namespace gpuprobe::telemetry::smi
