// Saved terminal output cut into lines and cells, as the interconnect readers (topo -m,
// topo -p2p, nvlink, the Fabric block) need it: lines without their '\r', cells split on tabs
// (keeping empty cells, which carry meaning) or on runs of blanks, terminal escape codes
// removed.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/strings.h"

namespace gpuprobe::telemetry::cells {

/// `s` without leading and trailing white space (core/strings.h).
using core::Trim;

/// The lines of `text`, each without its '\n' and a trailing '\r'. A final empty line after
/// the last '\n' is not returned.
std::vector<std::string> Lines(std::string_view text);

/// The non-empty runs of non-blank characters.
std::vector<std::string> SplitWhitespace(std::string_view s);

/// Every tab-separated cell, trimmed; empty cells are kept.
std::vector<std::string> SplitTabs(std::string_view s);

/// `s` without ESC sequences (ESC '[' ... final letter, or ESC and one character); sets
/// *stripped when one was removed.
std::string StripAnsi(std::string_view s, bool* stripped);

}  // namespace gpuprobe::telemetry::cells
