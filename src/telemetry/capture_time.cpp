#include "telemetry/capture_time.h"

#include <cctype>
#include <string>
#include <vector>

namespace gpuprobe::telemetry {
namespace {

std::vector<std::string_view> Fields(std::string_view text) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < text.size() && out.size() < 8) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    size_t start = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i > start) out.push_back(text.substr(start, i - start));
  }
  return out;
}

std::optional<int> Number(std::string_view s) {
  if (s.empty() || s.size() > 4) return std::nullopt;
  int v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

// Days from 1970-01-01 to year-month-day (proleptic Gregorian; Howard Hinnant's algorithm).
std::int64_t DaysFromCivil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool ValidTime(std::optional<int> year, std::optional<int> month, std::optional<int> day, std::optional<int> h,
               std::optional<int> m, std::optional<int> s) {
  return year && month && day && h && m && s && *month >= 1 && *month <= 12 && *h <= 23 && *m <= 59 && *s <= 60 &&
         *day >= 1 && *day <= 31 && *year >= 1990 && *year <= 2200;
}

std::int64_t EpochOf(int year, int month, int day, int h, int m, int s) {
  return DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) * 86400 + h * 3600 + m * 60 + s;
}

// "2021/06/10 00:55:54.492", as --query-gpu=timestamp prints it.
std::optional<std::int64_t> ParseQueryTimestamp(std::string_view date, std::string_view clock) {
  if (date.size() != 10 || date[4] != '/' || date[7] != '/') return std::nullopt;
  if (clock.size() > 8 && clock[8] == '.') clock = clock.substr(0, 8);
  if (clock.size() != 8 || clock[2] != ':' || clock[5] != ':') return std::nullopt;
  auto year = Number(date.substr(0, 4)), month = Number(date.substr(5, 2)), day = Number(date.substr(8, 2));
  auto h = Number(clock.substr(0, 2)), m = Number(clock.substr(3, 2)), s = Number(clock.substr(6, 2));
  if (!ValidTime(year, month, day, h, m, s)) return std::nullopt;
  return EpochOf(*year, *month, *day, *h, *m, *s);
}

}  // namespace

std::optional<std::int64_t> ParseSmiTimestamp(std::string_view text) {
  std::vector<std::string_view> f = Fields(text);
  if (f.size() == 2) return ParseQueryTimestamp(f[0], f[1]);
  if (f.size() != 5) return std::nullopt;
  static const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  int month = 0;
  for (int i = 0; i < 12; ++i) {
    if (f[1] == kMonths[i]) month = i + 1;
  }
  auto day = Number(f[2]);
  auto year = Number(f[4]);
  std::string_view clock = f[3];
  if (month == 0 || !day || !year || clock.size() != 8 || clock[2] != ':' || clock[5] != ':') return std::nullopt;
  auto h = Number(clock.substr(0, 2)), m = Number(clock.substr(3, 2)), s = Number(clock.substr(6, 2));
  if (!ValidTime(year, month, day, h, m, s)) return std::nullopt;
  return EpochOf(*year, month, *day, *h, *m, *s);
}

std::int64_t AgeInDays(std::int64_t captured, std::int64_t now) { return now > captured ? (now - captured) / 86400 : 0; }

}  // namespace gpuprobe::telemetry
