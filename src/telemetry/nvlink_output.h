// `nvidia-smi nvlink` output read per GPU and per link: -s/--status (link N: speed, or
// <inactive>), -e (Replay, Recovery and CRC error counters), -R (the remote device and link
// each link lands on) and -c/--capabilities (P2P supported ...), in any mix in one file. A GPU
// whose links are all inactive prints an NVML message instead of links; that is read too.
// Elisions written by whoever published an output ("[...]", "[snip]", "...") are Notes, so a
// cut capture never reads as a GPU with fewer links.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "telemetry/topology_matrix.h"

namespace gpuprobe::telemetry {

struct NvLinkLink {
  int index = 0;
  bool inactive = false;                      ///< "<inactive>" in -s
  std::optional<double> speed_gbps;           ///< -s: GB/s per direction, as printed
  std::optional<std::uint64_t> replay_errors, recovery_errors, crc_errors;  ///< -e
  std::optional<std::string> remote_device;   ///< -R: the PCI bus id of the far end
  std::optional<int> remote_link;             ///< -R
  std::optional<bool> p2p_supported;          ///< -c
};

struct NvLinkGpu {
  int index = 0;
  std::string name, uuid;
  bool all_inactive = false;  ///< "Unable to retrieve NVLink information as all links are inActive"
  bool elided = false;        ///< an elision mark sits among its links
  std::vector<NvLinkLink> links;
  /// The link with this index (created when absent).
  NvLinkLink& Link(int link_index);
  /// The link with this index, or null.
  NvLinkLink* FindLink(int link_index);
};

struct NvLinkOutput {
  std::vector<NvLinkGpu> gpus;
  bool has_status = false, has_errors = false, has_remote = false, has_caps = false;
  std::vector<TopoNote> notes;  ///< elided (detail = the mark), unread (a line not understood)
};

/// True when `text` has a "GPU N: ..." line followed by "Link N..." lines or the NVML
/// all-inactive message.
bool LooksLikeNvLinkOutput(std::string_view text);

/// ParseError when no GPU line is found; InvalidArgument (OverLimit) beyond the budgets of
/// GPUs per file and links per GPU (core/input_limits.h).
core::Result<NvLinkOutput> ParseNvLinkOutput(std::string_view text);

}  // namespace gpuprobe::telemetry
