// Finds English left in Chinese output. A "word" is a run of two or more ASCII letters; it is
// a leak unless it is allowed:
//   - it is on the allowlist (tests/cli/zh_allowlist.txt: product names, units, identifiers,
//     commands; words separated by spaces, '#' comments, matched case-insensitively), alone
//     or as a whole hyphenated chunk (nvidia-smi, llm-serving);
//   - it sits in a chunk (text between spaces, CJK characters and CJK punctuation) that is a
//     path, command, version, number or identifier: the chunk has a digit, or one of / \ _ = @
//     $ { } [ ] < > | ~ #, or an inner '.' or ':' (memory.triad, sm_90, 7B, /dev/zero, 1.2.3,
//     gpuprobe-report.html, localhost:9400), or starts with '-' (a flag), or is written in
//     camelCase (an identifier or a product's own spelling: cudaGetLastError, xFormers);
//   - it is quoted: inside `backticks`, 'single' or "double" ASCII quotes on one line (field
//     names, the user's own input, commands);
//   - it is on a shell command line (one that starts with "$ "), before the Chinese note that
//     may follow the command.
// The catalogue's missing-text marker (report::MissingTextMarker) is always a finding.
//
// Thread safety: pure functions.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace gpuprobe::testing {

struct Leak {
  int line = 0;          ///< 1-based
  std::string word;      ///< the English word, or the missing-text marker
  std::string context;   ///< the whole line
};

/// Reads an allowlist file (one word per line, '#' starts a comment); lower-cased words.
std::set<std::string> ReadAllowlist(const std::string& path);

/// Every leak in `text`, in order.
std::vector<Leak> FindLeaks(const std::string& text, const std::set<std::string>& allowlist);

/// "line 3: 'driver' in: <line>" per leak, one per line.
std::string DescribeLeaks(const std::vector<Leak>& leaks);

}  // namespace gpuprobe::testing
