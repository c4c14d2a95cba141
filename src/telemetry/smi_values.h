// Reading nvidia-smi's value cells: "143771 MiB", "627.32 W", "52 C", "16x", "4217 KB/s",
// "100 %", "Enabled", and every way it says "no value" ("N/A", "[N/A]", "[Not Supported]",
// "Requested functionality has been deprecated", "[Unknown Error]", ...). Shared by the
// XML, text and CSV parsers.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpuprobe::telemetry::smi {

/// Leading and trailing spaces, tabs and newlines removed.
std::string Trim(std::string_view text);
/// True for every absent-value spelling (bracketed cells, N/A, deprecation sentences, empty).
bool IsAbsent(std::string_view cell);
/// The leading number of a cell ("627.32 W" -> 627.32); empty when absent or not numeric.
std::optional<double> Number(std::string_view cell);
/// A size in bytes: "143771 MiB" (binary units as nvidia-smi prints), "16 GiB", "512 KiB".
std::optional<double> Bytes(std::string_view cell, double default_unit_bytes = 1024.0 * 1024.0);
/// "4217 KB/s" -> bytes per second (nvidia-smi's KB are 1000 bytes... it prints KB/s for
/// NVML's KB/s, which are 1024 bytes; we follow NVML).
std::optional<double> KilobytesPerSecond(std::string_view cell);
/// "Enabled"/"Disabled", "Yes"/"No", "Active"/"Not Active", "On"/"Off".
std::optional<bool> Flag(std::string_view cell);
/// "16x" -> 16; "5" -> 5.
std::optional<int> Integer(std::string_view cell);
/// "0x00000000000001FF" -> 511; decimal accepted too.
std::optional<std::uint64_t> Hex(std::string_view cell);

}  // namespace gpuprobe::telemetry::smi
