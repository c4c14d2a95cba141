#include "core/units.h"

#include <cctype>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "core/strings.h"

namespace gpuprobe::core {
namespace {

struct Prefix {
  double scale;
  const char* name;
};

// Picks the largest prefix that keeps the mantissa >= 1, then prints 3 significant digits.
std::string FormatWithPrefixes(double value, const Prefix* prefixes, int count,
                               const char* suffix) {
  if (!std::isfinite(value)) return fmt::format("n/a");
  double magnitude = std::fabs(value);
  int chosen = 0;
  for (int i = 0; i < count; ++i) {
    if (magnitude >= prefixes[i].scale) chosen = i;
  }
  return fmt::format("{} {}{}", FormatSignificant(value / prefixes[chosen].scale),
                     prefixes[chosen].name, suffix);
}

const Prefix kBinary[] = {{1, ""}, {kKiB, "Ki"}, {kMiB, "Mi"}, {kGiB, "Gi"},
                          {kGiB * 1024, "Ti"}, {kGiB * 1024 * 1024, "Pi"}};
const Prefix kDecimal[] = {{1, ""}, {1e3, "k"}, {1e6, "M"}, {1e9, "G"}, {1e12, "T"},
                           {1e15, "P"}, {1e18, "E"}};


// Splits "1.5 GiB" into 1.5 and "GiB". Returns false when no number leads the text.
bool SplitNumber(const std::string& text, double* number, std::string* unit) {
  if (text.empty()) return false;
  size_t consumed = 0;
  std::optional<double> parsed = ParseDouble(text, &consumed);
  if (!parsed) return false;
  *number = *parsed;
  *unit = Trim(std::string_view(text).substr(consumed));
  return std::isfinite(*number);
}

}  // namespace

std::string FormatSignificant(double value, int digits) {
  if (!std::isfinite(value)) return "n/a";
  if (value == 0) return "0";
  int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  int decimals = digits - 1 - magnitude;
  if (decimals < 0) decimals = 0;
  std::string text = fmt::format("{:.{}f}", value, decimals);
  // Rounding can carry into a new digit (9.995 -> "10.00"); recompute once.
  double rounded = std::stod(text);
  if (rounded != 0) {
    int new_magnitude = static_cast<int>(std::floor(std::log10(std::fabs(rounded))));
    if (new_magnitude > magnitude && decimals > 0) {
      text = fmt::format("{:.{}f}", value, decimals - 1);
    }
  }
  return text;
}

std::string FormatBytesBinary(double bytes) {
  if (std::fabs(bytes) < kKiB) return fmt::format("{:.0f} B", bytes);
  return FormatWithPrefixes(bytes, kBinary, 6, "B");
}

std::string FormatBytesDecimal(double bytes) {
  if (std::fabs(bytes) < 1e3) return fmt::format("{:.0f} B", bytes);
  return FormatWithPrefixes(bytes, kDecimal, 7, "B");
}

std::string FormatBytesPerSecond(double bytes_per_second) {
  return FormatWithPrefixes(bytes_per_second, kDecimal, 7, "B/s");
}

std::string FormatFlops(double flops_per_second) {
  return FormatWithPrefixes(flops_per_second, kDecimal, 7, "FLOP/s");
}

std::string FormatCount(double count) {
  static const Prefix kCount[] = {{1, ""}, {1e3, "k"}, {1e6, "M"}, {1e9, "B"}, {1e12, "T"}};
  if (std::fabs(count) < 1e3) return fmt::format("{:.0f}", count);
  std::string text = FormatWithPrefixes(count, kCount, 5, "");
  return text;
}

std::string FormatSeconds(double seconds) {
  if (!std::isfinite(seconds)) return "n/a";
  double magnitude = std::fabs(seconds);
  if (magnitude == 0) return "0 s";
  if (magnitude < 1e-6) return FormatSignificant(seconds * 1e9) + " ns";
  if (magnitude < 1e-3) return FormatSignificant(seconds * 1e6) + " us";
  if (magnitude < 1) return FormatSignificant(seconds * 1e3) + " ms";
  if (magnitude < 120) return FormatSignificant(seconds) + " s";
  if (magnitude < 7200) return FormatSignificant(seconds / 60) + " min";
  if (magnitude < 172800) return FormatSignificant(seconds / 3600) + " h";
  return FormatSignificant(seconds / 86400) + " days";
}

std::string FormatInteger(std::uint64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  int count = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    if (count > 0 && count % 3 == 0) out.push_back(',');
    out.push_back(*it);
    ++count;
  }
  return std::string(out.rbegin(), out.rend());
}

std::string FormatSignedPercent(double fraction) {
  return fmt::format("{:+.1f}%", fraction * 100.0);
}

Result<double> ParseCount(std::string_view raw) {
  std::string text = Trim(raw);
  double number = 0;
  std::string unit;
  if (!SplitNumber(text, &number, &unit)) {
    return Status::InvalidArgument(fmt::format("'{}' is not a number (examples: 7B, 350M, 1.5T)", raw))
        .WithKeys("error.units.not_a_count", {{"text", std::string(raw)}});
  }
  double scale = 1;
  if (unit.empty()) {
    scale = 1;
  } else if (unit == "k" || unit == "K") {
    scale = 1e3;
  } else if (unit == "m" || unit == "M") {
    scale = 1e6;
  } else if (unit == "b" || unit == "B" || unit == "G" || unit == "g") {
    scale = 1e9;
  } else if (unit == "t" || unit == "T") {
    scale = 1e12;
  } else {
    return Status::InvalidArgument(fmt::format("'{}' has an unknown suffix '{}' (use k, M, B or T)", raw, unit))
        .WithKeys("error.units.unknown_suffix", {{"text", std::string(raw)}, {"suffix", unit}});
  }
  double value = number * scale;
  if (!std::isfinite(value) || value <= 0) {
    return Status::InvalidArgument(fmt::format("'{}' must be a positive number", raw))
        .WithKeys("error.units.count_not_positive", {{"text", std::string(raw)}});
  }
  return value;
}

Result<double> ParseBytes(std::string_view raw) {
  std::string text = Trim(raw);
  double number = 0;
  std::string unit;
  if (!SplitNumber(text, &number, &unit)) {
    return Status::InvalidArgument(fmt::format("'{}' is not a size (examples: 80GiB, 24GB)", raw))
        .WithKeys("error.units.not_a_size", {{"text", std::string(raw)}});
  }
  std::string lower;
  for (char c : unit) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  double scale = 0;
  if (lower.empty() || lower == "b") scale = 1;
  else if (lower == "kib") scale = kKiB;
  else if (lower == "mib") scale = kMiB;
  else if (lower == "gib") scale = kGiB;
  else if (lower == "tib") scale = kGiB * 1024;
  else if (lower == "kb") scale = 1e3;
  else if (lower == "mb") scale = 1e6;
  else if (lower == "gb") scale = 1e9;
  else if (lower == "tb") scale = 1e12;
  if (scale == 0) {
    return Status::InvalidArgument(
               fmt::format("'{}' has an unknown unit '{}' (use B, KiB, MiB, GiB, TiB, kB, MB, GB, TB)", raw, unit))
        .WithKeys("error.units.unknown_unit", {{"text", std::string(raw)}, {"unit", unit}});
  }
  double value = number * scale;
  if (!std::isfinite(value) || value <= 0) {
    return Status::InvalidArgument(fmt::format("'{}' must be a positive size", raw))
        .WithKeys("error.units.size_not_positive", {{"text", std::string(raw)}});
  }
  return value;
}

}  // namespace gpuprobe::core
