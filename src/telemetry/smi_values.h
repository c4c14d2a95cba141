// Reading nvidia-smi's value cells: "143771 MiB", "627.32 W", "52 C", "16x", "4217 KB/s",
// "100 %", "Enabled", and every way it says "no value" ("N/A", "[N/A]", "[Not Supported]",
// "Requested functionality has been deprecated", "[Unknown Error]", ...). Shared by the
// XML, text, table and CSV parsers. Also the two guards every value read from a user's file
// goes through: text is made valid UTF-8, and numbers outside what hardware can report are
// rejected with a note (Diagnostics) instead of being accepted silently.
//
// Thread safety: pure functions; a Diagnostics object belongs to one parse.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/strings.h"

namespace gpuprobe::telemetry::smi {

/// Leading and trailing white space removed (core/strings.h).
using core::Trim;
/// True for every absent-value spelling (bracketed cells, N/A, deprecation sentences,
/// "Not available in WDDM driver model", empty).
bool IsAbsent(std::string_view cell);
/// The leading number of a cell ("627.32 W" -> 627.32); empty when absent, not numeric or
/// not finite.
std::optional<double> Number(std::string_view cell);
/// A size in bytes: "143771 MiB" (binary units as nvidia-smi prints), "16 GiB", "512 KiB".
std::optional<double> Bytes(std::string_view cell, double default_unit_bytes = 1024.0 * 1024.0);
/// "4217 KB/s" -> bytes per second (nvidia-smi prints NVML's KiB/s as "KB/s"; we follow NVML).
std::optional<double> KilobytesPerSecond(std::string_view cell);
/// "Enabled"/"Disabled", "Yes"/"No", "Active"/"Not Active", "On"/"Off".
std::optional<bool> Flag(std::string_view cell);
/// "16x" -> 16; "5" -> 5; empty outside the range of int (never a cast of an out-of-range
/// double).
std::optional<int> Integer(std::string_view cell);
/// "0x00000000000001FF" -> 511; decimal accepted too; empty past 64 bits.
std::optional<std::uint64_t> Hex(std::string_view cell);
/// A double converted to an integer type only when it is finite, integral enough and within
/// the type's range; empty otherwise (no undefined behaviour on absurd input).
std::optional<std::uint32_t> ToUint32(std::optional<double> value);
std::optional<int> ToInt(std::optional<double> value);

/// `text` with every invalid UTF-8 sequence replaced by U+FFFD; `*replaced` (when given) is
/// set to whether anything was replaced.
std::string ValidUtf8(std::string_view text, bool* replaced = nullptr);

/// What was wrong with the values of one input: each note names the field (and the GPU) and
/// says what was done. Capped so a hostile input cannot grow it without bound.
class Diagnostics {
 public:
  /// Adds a note (English) with its text key for other languages; past the cap only a count
  /// is kept.
  void Note(std::string message, core::TextRef text = {});
  /// The notes, with a last line "... and N more" when some were dropped.
  std::vector<std::string> Messages() const;
  /// The same notes as text keys, one per Messages() line, in the same order (an empty
  /// TextRef where a note has none).
  std::vector<core::TextRef> Texts() const;
  bool empty() const { return notes_.empty(); }

 private:
  static constexpr size_t kMaxNotes = 50;
  std::vector<std::string> notes_;
  std::vector<core::TextRef> texts_;
  size_t dropped_ = 0;
};

/// What a numeric field measures, and so which values are possible.
enum class Quantity {
  kBytes,           ///< 0 .. 2^54 (16 PiB)
  kBytesPerSecond,  ///< 0 .. 10^13
  kPercent,         ///< 0 .. 100
  kCelsius,         ///< -100 .. 250 (T.Limit margins are negative near the limit)
  kWatts,           ///< 0 .. 100 000
  kMegahertz,       ///< 0 .. 100 000
  kCount,           ///< 0 .. 2^53, whole
  kPcieGeneration,  ///< 1 .. 16, whole
  kPcieWidth,       ///< 1 .. 64, whole
};

/// `value` when it is possible for `quantity`; otherwise empty, with a note naming `field`,
/// `where` (e.g. "GPU 00000000:01:00.0") and the raw text.
std::optional<double> Checked(std::optional<double> value, Quantity quantity, std::string_view field,
                              std::string_view raw, std::string_view where, Diagnostics* diagnostics);

/// Trimmed `raw` made valid UTF-8 (a note when bytes were replaced); empty for absent cells.
std::string CleanText(std::string_view raw, std::string_view field, std::string_view where,
                      Diagnostics* diagnostics);

}  // namespace gpuprobe::telemetry::smi
