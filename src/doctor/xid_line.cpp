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
  // A plain loop: find_first_of("cC") costs a memchr per character of the line.
  static constexpr std::string_view kWords = "caused by";
  for (size_t at = 0; at + kWords.size() <= text.size(); ++at) {
    if ((text[at] | 0x20) != 'c') continue;
    bool same = true;
    for (size_t i = 1; i < kWords.size() && same; ++i) {
      char c = text[at + i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      same = c == kWords[i];
    }
    if (same) return true;
  }
  return false;
}

// The character classes of RE2's ASCII \b and \s, which the grammar below was first written in.
bool IsWordChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }
bool IsHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// `word` (lower case) at `at`, in any case.
bool WordAt(std::string_view text, size_t at, std::string_view word) {
  if (at > text.size() || text.size() - at < word.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (Lower(text[at + i]) != word[i]) return false;
  }
  return true;
}
bool BoundaryBefore(std::string_view text, size_t at) { return at == 0 || !IsWordChar(text[at - 1]); }
bool BoundaryAfter(std::string_view text, size_t end) { return end >= text.size() || !IsWordChar(text[end]); }

// One to eight hex digits from `at`; the end, or npos when there is none.
size_t HexRun(std::string_view text, size_t at) {
  size_t i = at;
  while (i < text.size() && i - at < 8 && IsHex(text[i])) ++i;
  return i > at ? i : std::string_view::npos;
}

// The bracketed device, "(PCI:0000:3b:00)", "[0000:04:00.0]", "(01:00)" or redacted "(PCI:...)", from `at` (blanks
// first allowed): the end of the group, or npos; `address` gets the address.
size_t DeviceGroup(std::string_view text, size_t at, std::string_view* address) {
  size_t i = at;
  while (i < text.size() && IsSpace(text[i])) ++i;
  if (i >= text.size() || (text[i] != '(' && text[i] != '[')) return std::string_view::npos;
  ++i;
  while (i < text.size() && IsSpace(text[i])) ++i;
  if (WordAt(text, i, "pci:")) i += 4;
  // A device its poster redacted ("(PCI:...)", "(PCI:xxxx:xx:xx)"): the group, no address.
  size_t redacted = i;
  while (redacted < text.size() && (text[redacted] == '.' || text[redacted] == 'x' || text[redacted] == 'X' ||
                                    text[redacted] == '*' || text[redacted] == ':')) {
    ++redacted;
  }
  size_t close = redacted;
  while (close < text.size() && IsSpace(text[close])) ++close;
  if (redacted > i && close < text.size() && (text[close] == ')' || text[close] == ']') &&
      text.substr(i, redacted - i).find_first_not_of(":") != std::string_view::npos) {
    *address = {};
    return close + 1;
  }
  const size_t begin = i;
  i = HexRun(text, i);
  if (i == std::string_view::npos) return i;
  int groups = 0;
  while (groups < 3 && i < text.size() && text[i] == ':') {
    size_t next = HexRun(text, i + 1);
    if (next == std::string_view::npos) break;
    i = next;
    ++groups;
  }
  if (groups == 0) return std::string_view::npos;
  if (i + 1 < text.size() && text[i] == '.' && text[i + 1] >= '0' && text[i + 1] <= '7') i += 2;
  *address = text.substr(begin, i - begin);
  while (i < text.size() && IsSpace(text[i])) ++i;
  if (i >= text.size() || (text[i] != ')' && text[i] != ']')) return std::string_view::npos;
  return i + 1;
}

// Separators and the words error(s)/code/event, then the number (1-5 digits, optionally after
// "("): the number's span, or npos.
size_t NumberAfter(std::string_view text, size_t at, std::string_view* number) {
  size_t i = at;
  static constexpr std::string_view kWords[] = {"errors", "error", "code", "event"};
  for (;;) {
    if (i < text.size() && (IsSpace(text[i]) || text[i] == ':' || text[i] == '=' || text[i] == '#')) {
      ++i;
      continue;
    }
    bool word = false;
    if (BoundaryBefore(text, i)) {
      for (std::string_view w : kWords) {
        if (WordAt(text, i, w) && BoundaryAfter(text, i + w.size())) {
          i += w.size();
          word = true;
          break;
        }
      }
    }
    if (!word) break;
  }
  if (i < text.size() && text[i] == '(') ++i;
  const size_t begin = i;
  while (i < text.size() && i - begin <= 5 && text[i] >= '0' && text[i] <= '9') ++i;
  if (i == begin || i - begin > 5 || !BoundaryAfter(text, i)) return std::string_view::npos;
  *number = text.substr(begin, i - begin);
  return i;
}

// `key` (as written, case kept) at a word start, as the regex \bkey would find it; the
// first place from which `value_end` reads a non-empty value.
template <typename ValueEnd>
std::string_view KeyValue(std::string_view text, std::string_view key, ValueEnd value_end) {
  for (size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
    if (!BoundaryBefore(text, at)) continue;
    std::string_view value = value_end(text.substr(at + key.size()));
    if (!value.empty()) return value;
  }
  return {};
}

// pid=1234, pid='1234' or pid="1234": up to a comma, quote or blank.
std::string_view PidValue(std::string_view after) {
  auto run = [](std::string_view t) {
    size_t n = 0;
    while (n < t.size() && t[n] != ',' && t[n] != '\'' && t[n] != '"' && !IsSpace(t[n])) ++n;
    return t.substr(0, n);
  };
  if (!after.empty() && (after.front() == '\'' || after.front() == '"')) return run(after.substr(1));
  return run(after);
}

// name=python3: up to a comma.
std::string_view NameValue(std::string_view after) { return after.substr(0, after.find(',')); }

}  // namespace

// The grammar, as one RE2 pattern would say it (the reader below is that pattern by hand, because
// an Xid storm of a million lines is read at the speed of this function):
//   (?i)\b(S?)XID\b(?:\s*[(\[]\s*(?:PCI:)?(?:([0-9a-f]{1,8}(?::[0-9a-f]{1,8}){1,3}(?:\.[0-7])?)|[.x*:]*[.x*][.x*:]*)\s*[)\]])?
//   (?:\s|[:=#]|\berrors?\b|\bcode\b|\bevent\b)*\(?(\d{1,5})\b
// that is "Xid", an optional bracketed device address (domain:bus:device, or bus:device from old
// drivers), separators or the words error/code/event, then the number. The first place it
// matches, as a regex search would find it; linear in the line.
std::optional<XidEvent> ParseXidLine(std::string_view line) {
  for (size_t x = 0; x + 3 <= line.size(); ++x) {
    if (Lower(line[x]) != 'x' || !WordAt(line, x, "xid")) continue;
    const bool nvswitch = x > 0 && Lower(line[x - 1]) == 's';
    const size_t start = nvswitch ? x - 1 : x;
    if (!BoundaryBefore(line, start) || !BoundaryAfter(line, x + 3)) continue;
    std::string_view pci, number;
    size_t end = std::string_view::npos;
    // With the device group first, as the greedy pattern tries it, then without.
    if (size_t group = DeviceGroup(line, x + 3, &pci); group != std::string_view::npos) end = NumberAfter(line, group, &number);
    if (end == std::string_view::npos) {
      pci = {};
      end = NumberAfter(line, x + 3, &number);
    }
    if (end == std::string_view::npos) continue;
    std::string_view rest = line.substr(end);
    rest = rest.substr(0, rest.find('\n'));
    XidEvent event;
    event.number = 0;
    for (char c : number) event.number = event.number * 10 + (c - '0');
    event.nvswitch = nvswitch;
    event.pci.assign(pci.data(), pci.size());
    std::string_view pid = KeyValue(rest, "pid=", PidValue);
    if (!pid.empty() && pid != "<unknown>") event.pid.assign(pid.data(), pid.size());
    std::string_view name = KeyValue(rest, "name=", NameValue);
    if (!name.empty()) {
      std::string trimmed = Field(name);
      if (trimmed != "<unknown>") event.process = std::move(trimmed);
    }
    static const RE2 kCausedBy(R"((?i)caused by (?:a )?previous xid:?\s*(\d{1,5}))");
    re2::StringPiece rest_piece(rest.data(), rest.size()), caused;
    if (ContainsCausedBy(rest) && RE2::PartialMatch(rest_piece, kCausedBy, &caused)) {
      event.caused_by = std::atoi(std::string(caused.data(), caused.size()).c_str());
    }
    event.detail = Field(rest);
    if (event.detail.size() > 300) event.detail = event.detail.substr(0, 300) + "...";
    return event;
  }
  return std::nullopt;
}

}  // namespace gpuprobe::doctor
