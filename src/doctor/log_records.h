// Splitting a log into records: the prefixes that syslog, journalctl, dmesg (plain, -T and
// -H), ISO-timestamped loggers and Talos put before a kernel message are taken off and their
// time kept; a kernel (NVRM) message the driver printed over several lines (the "has fallen
// off the bus" and "supported through the Legacy drivers" notices) is joined into one record.
//
// Thread safety: functions are reentrant.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace gpuprobe::doctor {

struct LogTime {
  enum class Kind {
    kNone,         ///< no time on the line
    kSinceBoot,    ///< dmesg's seconds since boot
    kCalendar,     ///< a date and time; `seconds` counts from 1970-01-01 (UTC as printed)
    kNoYear,       ///< syslog's "Dec  2 11:38:47": comparable only within one log
  };
  Kind kind = Kind::kNone;
  double seconds = 0;
  std::string_view text;  ///< the time as printed (a view into the line)
};

struct LogLine {
  std::string_view message;  ///< the line without its log prefixes, quote marks and padding
  LogTime time;
  /// The line began with a log prefix (dmesg, syslog, ISO time): a new record starts here.
  bool prefixed = false;
};

/// The most lines one record joins (a driver notice printed over several lines).
constexpr int kMaxRecordLines = 13;

/// True when `line`, after the line `previous`, starts a record whatever came before them (it
/// cannot continue a kernel notice): where a log may be cut to be read in parts.
bool StartsRecord(std::string_view previous, std::string_view line);

/// Takes the log prefixes off one line (no newline inside). Unknown formats come back whole.
LogLine ParseLogLine(std::string_view line);

struct LogRecord {
  int first_line = 0;        ///< 1-based
  int last_line = 0;
  std::string_view text;     ///< the message; a joined NVRM message lives in a buffer owned by the caller of the callback
  LogTime time;              ///< of the first line
  std::string_view raw;      ///< the first line as it appears in the log
};

/// Calls `fn` for every record of `text`, in order. Lines are cut at `max_line_bytes` for
/// matching (a hostile line costs no more than a real one); a trailing '\r' is dropped.
/// `fn`'s record (its text view) is valid only during the call.
void ForEachRecord(std::string_view text, size_t max_line_bytes, const std::function<void(const LogRecord&)>& fn);

}  // namespace gpuprobe::doctor
