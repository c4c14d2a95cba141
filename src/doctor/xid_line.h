// The grammar of an Xid or SXid report: the kernel's
//   NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.
//   NVRM: Xid (0000:01:00): 13, Graphics Exception: ...          (older drivers)
//   nvidia-nvswitch3: SXid (PCI:0000:04:00.0): 22013, Non-fatal, Link 44 ...
// and the forms people and tools write: "Xid 79", "XID: 48", "Xid=48" (device plugins).
//
// Thread safety: reentrant.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpuprobe::doctor {

struct XidEvent {
  int number = 0;
  bool nvswitch = false;          ///< SXid
  std::string pci;                ///< the device as printed ("0000:3b:00"); empty when absent
  std::string pid;                ///< "1234"; empty when absent or "<unknown>"
  std::string process;            ///< "python3"; empty when absent or "<unknown>"
  std::string detail;             ///< the text after the number (trimmed, at most 300 bytes)
  std::optional<int> caused_by;   ///< "... caused by previous Xid 149"
};

/// The first Xid or SXid reported on `line`; empty when the line reports none. Numbers other
/// than the one in the Xid's own position (PCI address, pid, registers) never count.
std::optional<XidEvent> ParseXidLine(std::string_view line);

}  // namespace gpuprobe::doctor
