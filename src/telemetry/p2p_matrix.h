// `nvidia-smi topo -p2p <r|w|n|a|p|...>`: whether each GPU pair may use peer-to-peer (read,
// write, NVLink, atomics or PCIe, as the command asked; the output does not say which). Cells
// are status codes: X (self), OK, CNS (chipset not supported), GNS (GPU not supported, as on
// GeForce cards), TNS (topology not supported), NS (not supported), DR (disabled by regkey),
// U (unknown). Rows may be indented (" GPU0").
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpuprobe::telemetry {

struct P2pPair {
  std::string a, b;   ///< "GPU0", "GPU1"
  std::string code;   ///< "OK", "GNS", ...
};

struct P2pMatrix {
  std::vector<std::string> gpus;
  std::vector<P2pPair> pairs;        ///< a < b, each pair once (from a's row, else b's)
  std::vector<std::string> unread;   ///< rows that could not be read (the GPU named)
};

/// True for a topo -p2p capture: a header of GPU names and a row of X and status codes.
bool LooksLikeP2pMatrix(std::string_view text);

/// ParseError when no header and row are found.
core::Result<P2pMatrix> ParseP2pMatrix(std::string_view text);

}  // namespace gpuprobe::telemetry
