// The JSON header of a .safetensors file, parsed and checked without touching the weights:
// every tensor's dtype, shape and byte range (format: huggingface/safetensors README: an
// 8-byte little-endian header length N, N bytes of JSON, then the data). The caller reads the
// N bytes; this file only parses them.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpuprobe::model {

/// Header lengths above this are refused (the safetensors library itself caps them at 100 MB).
inline constexpr std::uint64_t kMaxSafetensorsHeaderBytes = 100ull << 20;

struct SafetensorsTensor {
  std::string name;
  std::string dtype;                  ///< "BF16", "F8_E4M3", "I32", ...
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0, end = 0;   ///< byte range within the data section
  double elements = 0;                ///< product of the shape (exact below 2^53)
};

struct SafetensorsHeader {
  std::vector<SafetensorsTensor> tensors;
  std::map<std::string, std::string> metadata;  ///< "__metadata__" string pairs
};

/// Bits per element of a safetensors dtype name; 0 when unknown.
int SafetensorsDtypeBits(std::string_view dtype);

/// Parses and validates `header_json` for a file whose data section holds `data_bytes`:
/// known dtypes, non-negative dimensions, offsets inside the data, each range exactly
/// elements x dtype size, no two ranges overlapping. InvalidArgument / ParseError naming
/// `label` and the tensor otherwise.
core::Result<SafetensorsHeader> ParseSafetensorsHeader(std::string_view header_json, std::uint64_t data_bytes,
                                                       const std::string& label);

/// Elements and bytes of a set of tensors, by dtype.
struct TensorTotals {
  double elements = 0;
  double bytes = 0;
  std::int64_t tensors = 0;
  std::map<std::string, std::pair<double, double>> by_dtype;  ///< dtype -> (elements, bytes)
  void Add(const std::string& dtype, double elements, double bytes);
};

/// True for tensors that are buffers rather than parameters in old checkpoints: rotary
/// inv_freq, GPT-2/GPT-NeoX causal-mask attn.bias and masked_bias.
bool IsStoredBuffer(std::string_view tensor_name);

}  // namespace gpuprobe::model
