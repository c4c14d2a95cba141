#include "doctor/log_records.h"

#include <cctype>
#include <cstring>

#include "core/strings.h"

namespace gpuprobe::doctor {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsSpace(char c) { return c == ' ' || c == '\t'; }

// Reads 1..max_digits digits at `pos`; false when there is none.
bool Number(std::string_view s, size_t& pos, size_t max_digits, long long& out) {
  size_t start = pos;
  out = 0;
  while (pos < s.size() && IsDigit(s[pos]) && pos - start < max_digits) out = out * 10 + (s[pos++] - '0');
  return pos > start;
}

bool Expect(std::string_view s, size_t& pos, char c) {
  if (pos < s.size() && s[pos] == c) {
    ++pos;
    return true;
  }
  return false;
}

void SkipSpaces(std::string_view s, size_t& pos) {
  while (pos < s.size() && IsSpace(s[pos])) ++pos;
}

int Month(std::string_view s, size_t& pos) {
  // Views, not C strings: this runs on every line of a log, and a compare with a C string
  // measures it first.
  static constexpr std::string_view kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (pos + 3 <= s.size()) {
    const std::string_view word = s.substr(pos, 3);
    for (int m = 0; m < 12; ++m) {
      if (word == kMonths[m]) {
        pos += 3;
        return m + 1;
      }
    }
  }
  // A Chinese locale prints "11月".
  size_t p = pos;
  long long n = 0;
  if (Number(s, p, 2, n) && n >= 1 && n <= 12 && s.compare(p, 3, "\xE6\x9C\x88") == 0) {
    pos = p + 3;
    return static_cast<int>(n);
  }
  return 0;
}

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (H. Hinnant's algorithm).
long long DaysFromCivil(long long y, long long m, long long d) {
  y -= m <= 2 ? 1 : 0;
  long long era = (y >= 0 ? y : y - 399) / 400;
  long long yoe = y - era * 400;
  long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// "HH:MM:SS" with an optional fraction; adds the seconds of the day to `seconds`.
bool ClockTime(std::string_view s, size_t& pos, double& seconds) {
  long long h = 0, m = 0, sec = 0;
  if (!Number(s, pos, 2, h) || !Expect(s, pos, ':') || !Number(s, pos, 2, m) || !Expect(s, pos, ':') ||
      !Number(s, pos, 2, sec)) {
    return false;
  }
  seconds += static_cast<double>(h * 3600 + m * 60 + sec);
  if (pos < s.size() && (s[pos] == '.' || s[pos] == ',')) {
    ++pos;
    double scale = 0.1;
    while (pos < s.size() && IsDigit(s[pos])) {
      seconds += (s[pos++] - '0') * scale;
      scale /= 10;
    }
  }
  return true;
}

// dmesg: "[ 1843.308145]" (since boot) or dmesg -H: "[  +0.000316]" (relative, no time kept).
bool DmesgSeconds(std::string_view s, size_t& pos, LogTime& t) {
  size_t p = pos;
  if (!Expect(s, p, '[')) return false;
  SkipSpaces(s, p);
  bool relative = p < s.size() && (s[p] == '+' || s[p] == '-');
  if (relative) ++p;
  long long whole = 0, frac = 0;
  size_t frac_start = 0;
  if (!Number(s, p, 12, whole) || !Expect(s, p, '.')) return false;
  frac_start = p;
  if (!Number(s, p, 9, frac) || !Expect(s, p, ']')) return false;
  if (!relative) {
    t.kind = LogTime::Kind::kSinceBoot;
    double scale = 1;
    for (size_t i = frac_start; i + 1 < p; ++i) scale *= 10;
    t.seconds = static_cast<double>(whole) + static_cast<double>(frac) / scale;
    size_t first = pos + 1;
    while (first < p && IsSpace(s[first])) ++first;
    t.text = s.substr(first, p - first - 1);
  }
  pos = p;
  return true;
}

// dmesg -T / --ctime: "[Fri Mar  3 04:27:08 2023]".
bool DmesgCtime(std::string_view s, size_t& pos, LogTime& t) {
  size_t p = pos;
  if (!Expect(s, p, '[') || p + 4 > s.size() || s[p + 3] != ' ') return false;
  p += 4;  // weekday
  int month = Month(s, p);
  long long day = 0, year = 0;
  double seconds = 0;
  if (month == 0) return false;
  SkipSpaces(s, p);
  if (!Number(s, p, 2, day) || !Expect(s, p, ' ') || !ClockTime(s, p, seconds) || !Expect(s, p, ' ') ||
      !Number(s, p, 4, year) || !Expect(s, p, ']')) {
    return false;
  }
  t.kind = LogTime::Kind::kCalendar;
  t.seconds = static_cast<double>(DaysFromCivil(year, month, day) * 86400) + seconds;
  t.text = s.substr(pos + 1, p - pos - 2);
  pos = p;
  return true;
}

// "host program[pid]: " after a syslog or journalctl time; false (nothing consumed) otherwise.
bool HostAndProgram(std::string_view s, size_t& pos) {
  size_t p = pos;
  while (p < s.size() && !IsSpace(s[p])) ++p;  // host
  if (p == pos || !Expect(s, p, ' ')) return false;
  size_t program = p;
  while (p < s.size() && (std::isalnum(static_cast<unsigned char>(s[p])) || std::strchr("._-/@", s[p]) != nullptr)) ++p;
  if (p == program) return false;
  if (p < s.size() && s[p] == '[') {
    ++p;
    long long pid = 0;
    if (!Number(s, p, 10, pid) || !Expect(s, p, ']')) return false;
  }
  if (!Expect(s, p, ':')) return false;
  pos = p;
  return true;
}

// syslog / journalctl: "Dec  2 11:38:47 worker4 kernel: " (also "11月 15 14:15:47 host prog[1]: ").
bool Syslog(std::string_view s, size_t& pos, LogTime& t) {
  size_t p = pos;
  int month = Month(s, p);
  if (month == 0 || !Expect(s, p, ' ')) return false;
  SkipSpaces(s, p);
  long long day = 0;
  double seconds = 0;
  size_t time_start = pos;
  if (!Number(s, p, 2, day) || !Expect(s, p, ' ') || !ClockTime(s, p, seconds)) return false;
  size_t time_end = p;
  if (!Expect(s, p, ' ') || !HostAndProgram(s, p)) return false;
  t.kind = LogTime::Kind::kNoYear;
  t.seconds = static_cast<double>(DaysFromCivil(2001, month, day) * 86400) + seconds;
  t.text = s.substr(time_start, time_end - time_start);
  pos = p;
  return true;
}

// ISO 8601: "2024-10-11T12:45:53.660Z", "2017-11-03 11:34:30.628747:", "2024-05-20T02:46:53+0000 host kernel:".
bool Iso(std::string_view s, size_t& pos, LogTime& t) {
  size_t p = pos;
  long long year = 0, month = 0, day = 0;
  double seconds = 0;
  if (!Number(s, p, 4, year) || p - pos != 4 || !Expect(s, p, '-') || !Number(s, p, 2, month) || !Expect(s, p, '-') ||
      !Number(s, p, 2, day) || p >= s.size() || (s[p] != 'T' && s[p] != ' ')) {
    return false;
  }
  ++p;
  if (!ClockTime(s, p, seconds) || month < 1 || month > 12) return false;
  if (p < s.size() && s[p] == 'Z') ++p;
  if (p + 5 <= s.size() && (s[p] == '+' || s[p] == '-') && IsDigit(s[p + 1])) {
    long long offset = 0;
    size_t q = p + 1;
    if (Number(s, q, 4, offset)) p = q;
    if (Expect(s, p, ':')) Number(s, p, 2, offset);
  }
  t.kind = LogTime::Kind::kCalendar;
  t.seconds = static_cast<double>(DaysFromCivil(year, month, day) * 86400) + seconds;
  t.text = s.substr(pos, p - pos);
  // Talos wraps the time in brackets; TensorFlow follows it with a colon.
  Expect(s, p, ']');
  Expect(s, p, ':');
  size_t after = p;
  if (Expect(s, after, ' ') && HostAndProgram(s, after)) p = after;
  pos = p;
  return true;
}

void SkipQuoteMarks(std::string_view s, size_t& pos) {
  // Pastes keep markdown quote markers ("> ", "+> ") and padding.
  while (pos < s.size() && (IsSpace(s[pos]) || s[pos] == '>' || s[pos] == '+' || s[pos] == '`')) ++pos;
}

bool TerminatesSentence(std::string_view text) {
  size_t end = text.size();
  while (end > 0 && IsSpace(text[end - 1])) --end;
  if (end == 0) return true;
  char c = text[end - 1];
  return c == '.' || c == '!' || c == '?' || c == ')';
}

using core::StartsWith;

bool IsNvrm(std::string_view message) { return StartsWith(message, "NVRM:"); }

// An Xid line is a record of its own, never the continuation of a notice.
bool IsXidLine(std::string_view message) {
  return message.find("Xid") != std::string_view::npos || message.find("SXid") != std::string_view::npos;
}

}  // namespace

LogLine ParseLogLine(std::string_view line) {
  LogLine out;
  size_t pos = 0;
  SkipQuoteMarks(line, pos);
  // Talos: "kern:     err: [2024-05-20T02:46:53.856596762Z]: NVRM: ...".
  if (StartsWith(line.substr(pos), "kern:")) {
    size_t p = pos + 5;
    SkipSpaces(line, p);
    while (p < line.size() && std::isalpha(static_cast<unsigned char>(line[p]))) ++p;
    if (Expect(line, p, ':')) {
      SkipSpaces(line, p);
      size_t q = p;
      if (Expect(line, q, '[') && Iso(line, q, out.time)) {
        Expect(line, q, ':');
        pos = q;
        out.prefixed = true;
      }
    }
  }
  for (int pass = 0; pass < 3; ++pass) {
    SkipSpaces(line, pos);
    LogTime t;
    bool took = false;
    if (pos < line.size() && line[pos] == '[') {
      took = DmesgCtime(line, pos, t) || DmesgSeconds(line, pos, t);
    } else if (pos < line.size() && IsDigit(line[pos])) {
      took = Iso(line, pos, t) || Syslog(line, pos, t);
    } else {
      took = Syslog(line, pos, t);
    }
    if (!took) break;
    out.prefixed = true;
    // The first time on the line is the log's; a kernel time after syslog's is secondary.
    if (out.time.kind == LogTime::Kind::kNone) out.time = t;
  }
  SkipSpaces(line, pos);
  out.message = line.substr(pos);
  while (!out.message.empty() && IsSpace(out.message.back())) out.message.remove_suffix(1);
  return out;
}

bool StartsRecord(std::string_view previous, std::string_view line) {
  auto continues = [](std::string_view message) { return IsNvrm(message) && !IsXidLine(message); };
  std::string_view message = ParseLogLine(line).message;
  if (!continues(message)) return true;
  // Only an unfinished notice takes the next kernel line in (the rule of ForEachRecord).
  std::string_view before = ParseLogLine(previous).message;
  return !continues(before) || TerminatesSentence(before);
}

void ForEachRecord(std::string_view text, size_t max_line_bytes, const std::function<void(const LogRecord&)>& fn) {
  constexpr size_t kMaxJoinedBytes = 4096;
  constexpr int kMaxJoinedLines = kMaxRecordLines - 1;
  LogRecord pending;
  bool has_pending = false;
  std::string joined;
  auto flush = [&]() {
    if (has_pending) fn(pending);
    has_pending = false;
  };
  int number = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(start, end - start);
    start = end + 1;
    ++number;
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    if (raw.size() > max_line_bytes) raw = raw.substr(0, max_line_bytes);
    LogLine line = ParseLogLine(raw);
    bool nvrm = IsNvrm(line.message);
    if (has_pending && nvrm && !IsXidLine(line.message) && !TerminatesSentence(pending.text) &&
        pending.last_line - pending.first_line < kMaxJoinedLines && pending.text.size() < kMaxJoinedBytes) {
      if (pending.text.data() != joined.data()) joined.assign(pending.text);
      std::string_view rest = line.message.substr(5);
      while (!rest.empty() && IsSpace(rest.front())) rest.remove_prefix(1);
      joined += ' ';
      joined.append(rest);
      pending.text = joined;
      pending.last_line = number;
      continue;
    }
    flush();
    LogRecord record;
    record.first_line = record.last_line = number;
    record.text = line.message;
    record.time = line.time;
    record.raw = raw;
    if (nvrm && !IsXidLine(line.message) && !TerminatesSentence(line.message)) {
      pending = record;
      has_pending = true;
      continue;
    }
    fn(record);
  }
  flush();
}

}  // namespace gpuprobe::doctor
