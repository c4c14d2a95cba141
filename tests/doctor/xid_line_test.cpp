// The hand-written Xid reader against the RE2 pattern it replaced (kept here as the reference):
// every line of every fixture that mentions an Xid, and mutations of those lines (each prefix,
// case flipped, separators and brackets changed), give the same event.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <re2/re2.h>

#include "core/strings.h"
#include "doctor/xid_line.h"

namespace gpuprobe::doctor {
namespace {

// The pattern reader as it was before it was written by hand (src/doctor/xid_line.cpp states
// the same grammar in its comment).
// Bytes, not UTF-8: a process name with an invalid byte is kept whole (the terminal filter
// shows the byte escaped), where a UTF-8 pattern stopped the name at it.
std::optional<XidEvent> ReferenceXid(std::string_view line) {
  static const RE2::Options kBytes = [] {
    RE2::Options o;
    o.set_encoding(RE2::Options::EncodingLatin1);
    return o;
  }();
  static const RE2 kXid(
      R"((?i)\b(S?)XID\b(?:\s*[(\[]\s*(?:PCI:)?(?:([0-9a-f]{1,8}(?::[0-9a-f]{1,8}){1,3}(?:\.[0-7])?)|[.x*:]*[.x*][.x*:]*)\s*[)\]])?)"
      R"((?:\s|[:=#]|\berrors?\b|\bcode\b|\bevent\b)*\(?(\d{1,5})\b)", kBytes);
  static const RE2 kPid(R"(\bpid=['"]?([^,'"\s]+))", kBytes);
  static const RE2 kName(R"(\bname=([^,]+))", kBytes);
  static const RE2 kCausedBy(R"((?i)caused by (?:a )?previous xid:?\s*(\d{1,5}))", kBytes);
  re2::StringPiece input(line.data(), line.size()), sxid, pci, number;
  if (!RE2::FindAndConsume(&input, kXid, &sxid, &pci, &number)) return std::nullopt;
  std::string_view rest(input.data(), input.size());
  rest = rest.substr(0, rest.find('\n'));
  re2::StringPiece rest_piece(rest.data(), rest.size());
  auto field = [](std::string_view text) {
    while (!text.empty() && (text.front() == ',' || text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    return core::Trim(text);
  };
  XidEvent event;
  event.number = std::stoi(std::string(number.data(), number.size()));
  event.nvswitch = !sxid.empty();
  event.pci.assign(pci.data(), pci.size());
  re2::StringPiece pid, name, caused;
  if (RE2::PartialMatch(rest_piece, kPid, &pid) && pid != "<unknown>") event.pid.assign(pid.data(), pid.size());
  if (RE2::PartialMatch(rest_piece, kName, &name)) {
    std::string trimmed = field(std::string_view(name.data(), name.size()));
    if (trimmed != "<unknown>") event.process = trimmed;
  }
  if (RE2::PartialMatch(rest_piece, kCausedBy, &caused)) event.caused_by = std::stoi(std::string(caused.data(), caused.size()));
  event.detail = field(rest);
  if (event.detail.size() > 300) event.detail = event.detail.substr(0, 300) + "...";
  return event;
}

std::string Show(const std::optional<XidEvent>& e) {
  if (!e) return "none";
  return "xid=" + std::to_string(e->number) + (e->nvswitch ? " sxid" : "") + " pci=" + e->pci + " pid=" + e->pid +
         " process=" + e->process + " caused_by=" + (e->caused_by ? std::to_string(*e->caused_by) : "-") + " detail=" + e->detail;
}

// Every line under tests/fixtures that says "xid" in any case (logs, error texts, captures).
std::vector<std::string> FixtureXidLines() {
  std::set<std::string> lines;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(GPUPROBE_FIXTURES_DIR)) {
    if (!entry.is_regular_file() || entry.file_size() > (4u << 20)) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::string line;
    while (std::getline(in, line)) {
      std::string lower = line;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower.find("xid") != std::string::npos) lines.insert(line);
    }
  }
  return {lines.begin(), lines.end()};
}

void ExpectSame(const std::string& line) {
  auto mine = ParseXidLine(line);
  auto reference = ReferenceXid(line);
  ASSERT_EQ(Show(mine), Show(reference)) << "line: " << line;
}

TEST(XidLine, EveryFixtureLineReadsAsThePatternReadIt) {
  auto lines = FixtureXidLines();
  ASSERT_GT(lines.size(), 100u) << "the fixtures hold hundreds of Xid lines";
  size_t events = 0;
  for (const auto& line : lines) {
    ExpectSame(line);
    if (ReferenceXid(line)) ++events;
  }
  EXPECT_GT(events, 100u);
}

TEST(XidLine, MutatedLinesReadAsThePatternReadThem) {
  // Each prefix, and the line with its case flipped, its brackets swapped and its separators
  // changed: the edges where a hand-written reader and a regex part ways.
  auto lines = FixtureXidLines();
  size_t tried = 0;
  for (size_t k = 0; k < lines.size(); k += 3) {
    const std::string& line = lines[k].substr(0, 200);
    for (size_t n = 0; n <= line.size(); ++n) ExpectSame(line.substr(0, n));
    std::string flipped = line, brackets = line, separators = line;
    for (char& c : flipped) c = std::isupper(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : static_cast<char>(std::toupper(c));
    for (char& c : brackets) c = c == '(' ? '[' : c == ')' ? ']' : c;
    for (char& c : separators) c = c == ':' ? '=' : c == ',' ? '#' : c;
    for (const auto& variant : {flipped, brackets, separators}) ExpectSame(variant);
    tried += line.size() + 4;
  }
  EXPECT_GT(tried, 1000u);
}

TEST(XidLine, HandPickedEdges) {
  for (const char* line : {
           "Xid 79", "xid: 48", "XID=48", "SXid (PCI:0000:04:00.0): 22013, Non-fatal", "asxid 5", "xid123", "Xid 123456",
           "Xid (PCI:0000:3b:00) (79)", "Xid [0000:3b:00.8]: 13", "Xid (0000:3b:00:11:22): 13", "Xid (123456789:00): 13",
           "Xid error 13", "Xid errors: 13", "Xid errorsx 13", "Xid event #62", "Xid code=31, pid='77', name=a b, x",
           "Xid 13, pid=\"<unknown>\", name=<unknown>, caused by previous Xid: 79", "Xid 13x", "Xid (PCI:0000:3b:00):",
           "no xid here; then Xid 31 later", "xid xid 31", "Xid ( pci:0000:01:00 ) 45", "Xid\t(\t01:00\t)\t45", "_xid 3",
           "Xid 13, pid=, name=,", "Xid 13, apid=4, pid=5", "Xid 13 name=", "Xid\f\r 13"}) {
    ExpectSame(line);
  }
}

}  // namespace
}  // namespace gpuprobe::doctor
