#include "report/count_text.h"

#include <cmath>

#include <fmt/format.h>

#include "core/units.h"

namespace gpuprobe::report {

// FormatSignificant keeps trailing zeros ("70.0"); magnitudes and factors read without them.
std::string DropTrailingZeros(std::string text) {
  if (text.find('.') == std::string::npos) return text;
  while (!text.empty() && text.back() == '0') text.pop_back();
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

std::string FormatCountZh(double count) {
  if (!std::isfinite(count)) return "-";
  double magnitude = std::fabs(count);
  if (magnitude < 1e4) return fmt::format("{:.0f}", count);
  struct Unit {
    double scale;
    const char* name;
  };
  // 万 = 10^4, 亿 = 10^8, 万亿 = 10^12 (the usual reading of a trillion in Chinese texts).
  static const Unit kUnits[] = {{1e4, "万"}, {1e8, "亿"}, {1e12, "万亿"}};
  const Unit* unit = &kUnits[0];
  for (const Unit& u : kUnits) {
    if (magnitude >= u.scale) unit = &u;
  }
  return DropTrailingZeros(core::FormatSignificant(count / unit->scale)) + " " + unit->name;
}

std::string FormatCountShort(double count) {
  if (!std::isfinite(count)) return "-";
  double magnitude = std::fabs(count);
  if (magnitude < 1e3) return fmt::format("{:.0f}", count);
  struct Unit {
    double scale;
    const char* name;
  };
  static const Unit kUnits[] = {{1e3, "k"}, {1e6, "M"}, {1e9, "B"}, {1e12, "T"}};
  const Unit* unit = &kUnits[0];
  for (const Unit& u : kUnits) {
    if (magnitude >= u.scale) unit = &u;
  }
  return DropTrailingZeros(core::FormatSignificant(count / unit->scale)) + unit->name;
}

std::string FormatCountFor(Language language, double count) {
  return language == Language::kZh ? FormatCountZh(count) : core::FormatCount(count);
}

std::string FormatCountWithShort(Language language, double count) {
  if (language != Language::kZh) return FormatCountShort(count);
  std::string zh = FormatCountZh(count);
  std::string short_form = FormatCountShort(count);
  return zh == short_form ? zh : zh + "（" + short_form + "）";  // full-width brackets in Chinese text
}

std::string FormatSecondsFor(Language language, double seconds) {
  if (language != Language::kZh) return core::FormatSeconds(seconds);
  if (!std::isfinite(seconds)) return "无";
  // Only the word units differ; the symbols (ns, us, ms, s, min, h) stay.
  if (std::fabs(seconds) >= 172800) return core::FormatSignificant(seconds / 86400) + " 天";
  return core::FormatSeconds(seconds);
}

}  // namespace gpuprobe::report
