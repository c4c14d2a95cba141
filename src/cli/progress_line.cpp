#include "cli/progress_line.h"

#include <unistd.h>

#include <algorithm>
#include <ostream>

#include <fmt/format.h>

#include "core/terminal_text.h"
#include "report/table.h"

namespace gpuprobe::cli {
namespace {

// `text` cut to `width` display columns on a character boundary.
std::string Cut(std::string_view text, int width) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
    length = std::min(length, text.size() - i);
    std::string next = out + std::string(text.substr(i, length));
    if (report::DisplayWidth(next) > width) break;
    out = std::move(next);
    i += length;
  }
  return out;
}

}  // namespace

bool ProgressLine::IsStderrTerminal() { return isatty(STDERR_FILENO) != 0; }

void ProgressLine::Show(std::string_view line) {
  if (!terminal_) return;
  std::string text = Cut(line, kWidth);
  const int width = report::DisplayWidth(text);
  // Padded to the widest line drawn, so a shorter line leaves nothing of a longer one.
  text += std::string(static_cast<size_t>(std::max(0, drawn_ - width)), ' ');
  drawn_ = std::max(drawn_, width);
  core::WriteTerminalControl(err_, "\r");
  err_ << text;
  err_.flush();
}

void ProgressLine::Log(std::string_view line) {
  if (terminal_) {
    Show(line);
    return;
  }
  err_ << line << "\n";
  err_.flush();
}

void ProgressLine::Clear() {
  if (!terminal_ || drawn_ == 0) return;
  core::WriteTerminalControl(err_, "\r");
  err_ << std::string(static_cast<size_t>(drawn_), ' ');
  core::WriteTerminalControl(err_, "\r");
  err_.flush();
  drawn_ = 0;
}

std::string ProgressBar(int index, int total, std::string_view label) {
  constexpr int kCells = 30;
  const int filled = total > 0 ? std::clamp(index * kCells / total, 0, kCells) : 0;
  return fmt::format("[{}{}] {}/{} {}", std::string(static_cast<size_t>(filled), '#'),
                     std::string(static_cast<size_t>(kCells - filled), ' '), index, total, label);
}

}  // namespace gpuprobe::cli
