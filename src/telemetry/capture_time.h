// When a saved nvidia-smi capture was taken: its timestamp ("Fri May  3 11:54:37 2024", as
// nvidia-smi prints it in the XML, -q text and the default table) read into seconds since the
// epoch, so a view can say how old the state it shows is. nvidia-smi prints the machine's
// local time with no zone: the age is exact to within the zone's offset, which the view says.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gpuprobe::telemetry {

/// Seconds since 1970-01-01 of a timestamp in nvidia-smi's forms: "Www Mmm dd hh:mm:ss yyyy"
/// (XML, -q text and the table; any run of spaces between fields) or "yyyy/mm/dd hh:mm:ss.fff"
/// (--query-gpu=timestamp; the fraction optional and dropped), read as UTC; nullopt for
/// anything else or a date before 1990 or after 2200.
std::optional<std::int64_t> ParseSmiTimestamp(std::string_view text);

/// Whole days from `captured` to `now` (both epoch seconds), never negative.
std::int64_t AgeInDays(std::int64_t captured, std::int64_t now);

}  // namespace gpuprobe::telemetry
