// Counts and durations as a reader of each language expects them. English readers see the
// B/M/k suffixes engineers type ("7.00 B"); Chinese readers compare magnitudes in 万, 亿 and
// 万亿 ("70 亿"), the form Chinese model cards and articles use. Every verb calls these rather
// than choosing a form itself, so one count reads the same everywhere.
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include "report/i18n.h"

namespace gpuprobe::report {

/// `text` (a formatted decimal) without trailing zeros after the point: "2.00" -> "2",
/// "0.50" -> "0.5"; unchanged without a point.
std::string DropTrailingZeros(std::string text);

/// "70 亿" (7e9), "1.2 万亿" (1.2e12), "3.5 亿" (3.5e8), "1.25 万" (12,500), "8192" (below
/// 10,000): three significant digits, trailing zeros dropped; "-" for a non-finite count.
std::string FormatCountZh(double count);

/// "7B", "350M", "1.5T", "125k", "8192": the short form users type back (--params 7B).
std::string FormatCountShort(double count);

/// The count in `language`'s form: en core::FormatCount ("6.74 B"), zh FormatCountZh.
std::string FormatCountFor(Language language, double count);

/// A parameter or token count with the typed form beside it where the forms differ:
/// en "7B", zh "70 亿（7B）".
std::string FormatCountWithShort(Language language, double count);

/// core::FormatSeconds with its words in `language` ("3.2 days" -> "3.2 天"; "n/a" -> "无").
std::string FormatSecondsFor(Language language, double seconds);

}  // namespace gpuprobe::report
