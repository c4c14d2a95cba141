// `nvidia-smi topo -m` read into a matrix: which devices (GPUs, NICs) the header names, how
// each pair is connected (X, NV#, PIX, PXB, PHB, NODE, SYS; the old SOC), each GPU's CPU
// affinity, NUMA affinity and GPU NUMA ID, and the NIC legend (NIC0: mlx5_0).
//
// The reading follows the format's meaning, not one file's spelling: the header row names the
// devices, each matrix row starts with one of them and carries one link code per device with
// X on its own diagonal, then the affinity columns the header names. Saved outputs in the wild
// are damaged (tabs turned into spaces, cells glued together, headers that lost a tab, ANSI
// escapes, captures cut short): what can be recovered is read, and every thing that could not
// be read is a Note, never a crash. A capture with no matrix at all is a ParseError.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpuprobe::telemetry {

/// How two devices are connected, fastest first (the order NCCL and nvidia-smi rank paths).
enum class LinkKind { kSelf, kNvLink, kPix, kPxb, kPhb, kNode, kSys, kUnknown };

/// "self", "nvlink", "pix", "pxb", "phb", "node", "sys", "unknown" (stable JSON names).
std::string LinkKindName(LinkKind kind);

struct TopoLink {
  LinkKind kind = LinkKind::kUnknown;
  int nvlinks = 0;        ///< the # of NV# (bonded links); 0 for other kinds
  std::string code;       ///< the cell as printed ("NV12", "SYS", "SOC")
};

enum class DeviceKind { kGpu, kNic };

struct TopoDevice {
  std::string name;       ///< as the header names it: "GPU0", "NIC3", "mlx5_0"
  DeviceKind kind = DeviceKind::kNic;
  std::string nic_device; ///< the NIC legend's name ("mlx5_0"); the name itself for old headers
  bool has_row = false;   ///< a matrix row for this device was read
  /// The affinity columns, as printed ("0-47,96-143", "N/A"); absent when the column or the
  /// row is missing, empty when the cell is empty.
  std::optional<std::string> cpu_affinity, numa_affinity, gpu_numa_id;
};

/// Something that could not be read, or was repaired. `id` selects the text
/// "topology.note.<id>"; `device`, `detail` and `line` fill it.
struct TopoNote {
  std::string id;      ///< ansi, glued_header, glued_cells, row_short, row_long, unknown_cell,
                       ///< diagonal, unknown_row, missing_rows, asymmetric, bad_affinity,
                       ///< legend_incomplete
  std::string device;  ///< the row or device concerned (may be empty)
  std::string detail;  ///< the cells or codes concerned
  int line = 0;        ///< 1-based line of the capture; 0 when not about one line
};

struct TopologyMatrix {
  std::vector<TopoDevice> devices;                      ///< header order
  /// cells[row][column] as printed in that row; absent where the row or the cell is missing.
  std::vector<std::vector<std::optional<TopoLink>>> cells;
  bool has_cpu_affinity = false, has_numa_affinity = false, has_gpu_numa_id = false;
  bool legend_seen = false;
  std::vector<std::string> legend_codes;                ///< "X", "SYS", "NV#", "SOC", ...
  std::vector<TopoNote> notes;

  /// The link between devices `a` and `b` (indexes into `devices`): the cell of row a, else
  /// the cell of row b (the matrix is symmetric); absent when neither row was read.
  std::optional<TopoLink> Link(size_t a, size_t b) const;
  /// Indexes of the GPUs, in header order.
  std::vector<size_t> Gpus() const;
  /// Indexes of the NICs, in header order.
  std::vector<size_t> Nics() const;
};

/// Reads one link code ("NV12", "PIX", "SOC", " X "); kUnknown for anything else.
TopoLink ParseLinkCode(std::string_view code);

/// True when `text` holds a topo -m matrix: a header row of device names and a row starting
/// with one of them that holds X. Cheap (looks at the first lines only).
bool LooksLikeTopologyMatrix(std::string_view text);

/// Parses `text`. ParseError when no header row with a matrix row below it is found.
core::Result<TopologyMatrix> ParseTopologyMatrix(std::string_view text);

}  // namespace gpuprobe::telemetry
