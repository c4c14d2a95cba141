// Units and formatting. gpuprobe computes in SI base units (bytes, seconds, FLOP, watts)
// and converts only here, for people: bytes as B/KiB/MiB/GiB (binary, what drivers and
// allocators report) or kB/MB/GB/TB (decimal, what spec sheets print), rates as GB/s
// (decimal, as spec sheets and bandwidth tools do), FLOP/s with SI prefixes.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace gpuprobe::core {

inline constexpr double kKiB = 1024.0;
inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kGB = 1e9;

/// "512 B", "1.50 KiB", "12.55 GiB", "1.02 TiB": binary prefixes, 3 significant digits.
std::string FormatBytesBinary(double bytes);
/// "13.48 GB", "141 GB": decimal prefixes (spec-sheet style).
std::string FormatBytesDecimal(double bytes);
/// "4.80 TB/s", "63.0 GB/s", "512 MB/s": decimal prefixes.
std::string FormatBytesPerSecond(double bytes_per_second);
/// "989 TFLOP/s", "67.0 TFLOP/s", "1.2 GFLOP/s".
std::string FormatFlops(double flops_per_second);
/// "2.40 us", "5.1 ms", "3.2 s", "2.5 h".
std::string FormatSeconds(double seconds);
/// "6.74 B", "124 M", "35.0 k": counts such as parameters, with SI-like suffixes.
std::string FormatCount(double count);
/// "1,235,814,400": an exact integer with thousands separators.
std::string FormatInteger(std::uint64_t value);
/// "+2.4%" / "-0.2%".
std::string FormatSignedPercent(double fraction);
/// Three significant digits, trailing zeros kept ("4.80", "63.0", "989").
std::string FormatSignificant(double value, int digits = 3);

/// Parses a count with an optional suffix: "7B", "7b", "1.5T", "350M", "125k", "6738415616".
/// InvalidArgument when it is not a positive finite number.
Result<double> ParseCount(std::string_view text);

/// Parses a byte size: "80GiB", "80 GB", "512MiB", "1024" (bytes). InvalidArgument otherwise.
Result<double> ParseBytes(std::string_view text);

}  // namespace gpuprobe::core
