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

}  // namespace

std::optional<XidEvent> ParseXidLine(std::string_view line) {
  // "Xid", an optional bracketed device address (domain:bus:device, or bus:device from old drivers), separators or the words error/code/event, then
  // the number. RE2: linear time whatever the line.
  static const RE2 kXid(
      R"((?i)\b(S?)XID\b(?:\s*[(\[]\s*(?:PCI:)?([0-9a-f]{1,8}(?::[0-9a-f]{1,8}){1,3}(?:\.[0-7])?)\s*[)\]])?)"
      R"((?:\s|[:=#]|\berrors?\b|\bcode\b|\bevent\b)*\(?(\d{1,5})\b([^\n]*))");
  static const RE2 kPid(R"(\bpid=['"]?([^,'"\s]+))");
  static const RE2 kName(R"(\bname=([^,]+))");
  static const RE2 kCausedBy(R"((?i)caused by (?:a )?previous xid:?\s*(\d{1,5}))");
  std::string sxid, pci, number, rest;
  if (!RE2::PartialMatch(line, kXid, &sxid, &pci, &number, &rest)) return std::nullopt;
  XidEvent event;
  event.number = std::atoi(number.c_str());
  event.nvswitch = !sxid.empty();
  event.pci = pci;
  std::string pid, name, caused;
  if (RE2::PartialMatch(rest, kPid, &pid) && pid != "<unknown>") event.pid = pid;
  if (RE2::PartialMatch(rest, kName, &name)) {
    name = Field(name);
    if (name != "<unknown>") event.process = name;
  }
  if (RE2::PartialMatch(rest, kCausedBy, &caused)) event.caused_by = std::atoi(caused.c_str());
  event.detail = Field(rest);
  if (event.detail.size() > 300) event.detail = event.detail.substr(0, 300) + "...";
  return event;
}

}  // namespace gpuprobe::doctor
