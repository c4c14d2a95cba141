// Text that reaches a terminal is safe whatever the files, devices, logs and command lines it
// quotes contain: control characters (ESC, BEL, OSC sequences, carriage returns, C1 controls,
// bidirectional overrides) are shown escaped ("\x1b", "\u202e"), invalid UTF-8 bytes as
// "\xNN"; newlines, tabs and valid UTF-8 (Chinese included) pass unchanged.
//
// One rule in one place: RunCli puts every verb's output and error stream behind a
// TerminalSafeBuf, so no path can print raw bytes from an input. gpuprobe's own control
// sequences (inspect --watch clearing the screen) go through WriteTerminalControl.
//
// Thread safety: a TerminalSafeBuf is used by one thread, like the stream it filters.
#pragma once

#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace gpuprobe::core {

/// `text` with every control character and invalid byte escaped (see above).
std::string EscapeForTerminal(std::string_view text);

/// A streambuf that writes EscapeForTerminal of everything written to it into `target`.
/// A multi-byte character split across two writes is held until it is complete.
class TerminalSafeBuf : public std::streambuf {
 public:
  explicit TerminalSafeBuf(std::streambuf* target) : target_(target) {}
  ~TerminalSafeBuf() override;
  TerminalSafeBuf(const TerminalSafeBuf&) = delete;
  TerminalSafeBuf& operator=(const TerminalSafeBuf&) = delete;

  /// Writes `bytes` to the target unfiltered (after what is pending).
  void WriteRaw(std::string_view bytes);

 protected:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  void Feed(std::string_view bytes);
  void FlushPending();  ///< an incomplete character at the end: its bytes shown escaped

  std::streambuf* target_;
  std::string pending_;  ///< the start of a UTF-8 character not yet complete
  std::string chunk_;
};

/// Writes one of gpuprobe's own terminal control sequences: raw through a TerminalSafeBuf,
/// as is to any other stream (a test's string stream).
void WriteTerminalControl(std::ostream& out, std::string_view sequence);

}  // namespace gpuprobe::core
