// The one progress printer of the verbs that run for a while (bench, the tour, report): on a
// terminal one line redrawn in place on the verb's error stream, cleared when the work is
// done; on a pipe or a file only the lines worth keeping (bench's one line per case), so logs
// stay readable. Output goes through the verb's error stream, so its terminal filter applies
// (core/terminal_text.h); only the carriage return is written raw.
//
// Thread safety: one thread, like the stream it writes to.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

namespace gpuprobe::cli {

class ProgressLine {
 public:
  /// Writes to `err`; `terminal` says whether it is a terminal (see IsStderrTerminal).
  ProgressLine(std::ostream& err, bool terminal) : err_(err), terminal_(terminal) {}
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  /// Whether standard error is a terminal.
  static bool IsStderrTerminal();

  /// On a terminal, redraws the line as `line` (cut to kWidth display columns); elsewhere
  /// nothing.
  void Show(std::string_view line);
  /// On a terminal as Show; elsewhere `line` and a newline.
  void Log(std::string_view line);
  /// On a terminal, blanks what was drawn and returns to the line's start; elsewhere nothing.
  void Clear();

  /// The widest line drawn, in display columns.
  static constexpr int kWidth = 78;

 private:
  std::ostream& err_;
  bool terminal_;
  int drawn_ = 0;  ///< display columns of the widest line drawn since the last Clear
};

/// "[#####     ] 3/10 label": a bar of `index` of `total` in 30 cells and the label.
std::string ProgressBar(int index, int total, std::string_view label);

}  // namespace gpuprobe::cli
