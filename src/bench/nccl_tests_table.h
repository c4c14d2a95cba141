// Reads the result table nccl-tests prints (all_reduce_perf, all_gather_perf, ...), as saved
// from a terminal or pasted into an issue: the "# Using devices" block, the column header, one
// row per size with the out-of-place and in-place halves, and the "# Avg bus bandwidth" footer.
// Copes with what saved tables look like in the wild: the older layout without a root column
// and with an "error" column, a blank redop cell, a launcher's "0: " prefix on every line, log
// lines between rows, no device block, and a table cut short.
//
// Every number keeps how many decimals it was printed with, so a checker can tell a
// disagreement from the table's own rounding.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "model/collective_bandwidth.h"

namespace gpuprobe::bench {

/// A number as printed: its value and the count of digits after its decimal point.
struct PrintedNumber {
  double value = 0;
  int decimals = 0;
  /// Half a unit of the last printed digit: the largest rounding error of the print.
  double HalfUnit() const;
};

/// One half of a row (out-of-place or in-place).
struct NcclTestsHalf {
  PrintedNumber time_us;       ///< microseconds per operation
  PrintedNumber algbw_gbps;    ///< GB/s (1e9 bytes per second)
  PrintedNumber busbw_gbps;    ///< GB/s
  std::string wrong;           ///< the "#wrong" / "error" cell as printed ("0", "N/A", "2e-07")
};

struct NcclTestsRow {
  int line = 0;                     ///< 1-based line in the text
  std::uint64_t size_bytes = 0;     ///< the "size" column
  std::uint64_t count = 0;          ///< the "count" column (elements)
  std::string type;                 ///< "float", "half", ...
  NcclTestsHalf out_of_place;
  NcclTestsHalf in_place;
};

struct NcclTestsTable {
  /// Ranks named in the "# Using devices" block: the highest "Rank N" + 1. Empty when the
  /// text has no device line (a table pasted without its header).
  std::optional<int> ranks_stated;
  int device_lines = 0;             ///< "Rank N" lines seen (a tail may show only the last one)
  std::optional<int> header_gpus;   ///< nThread x nGpus of the first line: GPUs per process
  bool has_root_column = false;     ///< the current layout; the older one has none
  std::vector<NcclTestsRow> rows;
  std::optional<double> avg_busbw_gbps;  ///< the footer; empty when the table was cut short
  int skipped_lines = 0;            ///< lines that are neither comments nor rows (log lines)
};

/// Parses `text`. InvalidArgument naming the line when no column header is found or a line
/// that looks like a row (starts with a number) cannot be read as one; a last line cut in the
/// middle is skipped and counted in skipped_lines.
core::Result<NcclTestsTable> ParseNcclTestsTable(const std::string& text);

/// Bytes of one element of an nccl-tests type name ("float" 4, "half" 2, "double" 8, "int8" 1,
/// "bfloat16" 2, ...); 0 for an unknown name.
int NcclTestsTypeBytes(const std::string& type);

/// How one printed half agrees with the arithmetic of model/collective_bandwidth.h.
struct NcclTestsRowCheck {
  bool algbw_ok = false;    ///< the printed algbw lies within rounding of size / time
  bool busbw_ok = false;    ///< the printed busbw lies within rounding of algbw x factor(ranks)
  double algbw_gbps = 0;    ///< recomputed from the printed time
  double busbw_gbps = 0;
  /// |printed - recomputed| beyond what the printed rounding explains, in GB/s (0 when ok).
  double algbw_excess_gbps = 0;
  double busbw_excess_gbps = 0;
};

/// Recomputes algbw and busbw of `half` from the row's size and printed time for `ranks`
/// ranks and says whether the printed figures agree within their printed rounding. The
/// bounds are exact: the time is only known to within half its last digit, so algbw lies in
/// size / (time +- half unit), and each printed figure carries half a unit of its own.
NcclTestsRowCheck CheckNcclTestsHalf(model::Collective collective, const NcclTestsRow& row, const NcclTestsHalf& half,
                                     int ranks);

}  // namespace gpuprobe::bench
