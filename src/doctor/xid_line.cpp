#include "doctor/xid_line.h"

#include <cstdlib>

#include <re2/re2.h>

#include "core/strings.h"

namespace gpuprobe::doctor {
namespace {

// A field of the Xid line: trimmed, and without the commas and blanks that separate it from
// the last.
std::string Field(std::string_view text) {
  while (!text.empty() && (text.front() == ',' || text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  return core::Trim(text);
}

// "caused by" in any case, as the cheap test before the pattern that reads the number.
bool ContainsCausedBy(std::string_view text) {
  for (size_t at = text.find_first_of("cC"); at != std::string_view::npos; at = text.find_first_of("cC", at + 1)) {
    static constexpr std::string_view kWords = "caused by";
    if (text.size() - at < kWords.size()) return false;
    bool same = true;
    for (size_t i = 0; i < kWords.size() && same; ++i) {
      char c = text[at + i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      same = c == kWords[i];
    }
    if (same) return true;
  }
  return false;
}

}  // namespace

std::optional<XidEvent> ParseXidLine(std::string_view line) {
  // "Xid", an optional bracketed device address (domain:bus:device, or bus:device from old drivers), separators or the words error/code/event, then
  // the number. RE2: linear time whatever the line.
  static const RE2 kXid(
      R"((?i)\b(S?)XID\b(?:\s*[(\[]\s*(?:PCI:)?([0-9a-f]{1,8}(?::[0-9a-f]{1,8}){1,3}(?:\.[0-7])?)\s*[)\]])?)"
      R"((?:\s|[:=#]|\berrors?\b|\bcode\b|\bevent\b)*\(?(\d{1,5})\b)");
  static const RE2 kPid(R"(\bpid=['"]?([^,'"\s]+))");
  static const RE2 kName(R"(\bname=([^,]+))");
  static const RE2 kCausedBy(R"((?i)caused by (?:a )?previous xid:?\s*(\d{1,5}))");
  // Views, not copies, and the rest of the line is not a capture: a storm of Xid lines is read
  // at the speed of the automaton, not of the allocator (explain --from on a big log).
  re2::StringPiece input(line.data(), line.size()), sxid, pci, number;
  if (!RE2::FindAndConsume(&input, kXid, &sxid, &pci, &number)) return std::nullopt;
  std::string_view rest(input.data(), input.size());
  rest = rest.substr(0, rest.find('\n'));
  re2::StringPiece rest_piece(rest.data(), rest.size());
  XidEvent event;
  event.number = std::atoi(std::string(number.data(), number.size()).c_str());
  event.nvswitch = !sxid.empty();
  event.pci.assign(pci.data(), pci.size());
  re2::StringPiece pid, name, caused;
  // The literal words first: most lines have no pid, name or cause, and a find is cheaper than
  // a search.
  if (rest.find("pid=") != std::string_view::npos && RE2::PartialMatch(rest_piece, kPid, &pid) && pid != "<unknown>") {
    event.pid.assign(pid.data(), pid.size());
  }
  if (rest.find("name=") != std::string_view::npos && RE2::PartialMatch(rest_piece, kName, &name)) {
    std::string trimmed = Field(std::string_view(name.data(), name.size()));
    if (trimmed != "<unknown>") event.process = std::move(trimmed);
  }
  if (ContainsCausedBy(rest) && RE2::PartialMatch(rest_piece, kCausedBy, &caused)) event.caused_by = std::atoi(std::string(caused.data(), caused.size()).c_str());
  event.detail = Field(rest);
  if (event.detail.size() > 300) event.detail = event.detail.substr(0, 300) + "...";
  return event;
}

}  // namespace gpuprobe::doctor
