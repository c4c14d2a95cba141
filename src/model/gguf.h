// GGUF (llama.cpp's model file): the header, the metadata key/value pairs and the tensor
// infos, parsed from the first bytes of a file without reading any tensor data
// (format: ggml/docs/gguf.md; versions 2 and 3). Tensor sizes come from ggml's type table
// (ggml/src/ggml.c type_traits: elements per block and bytes per block, every type from F32
// to the K-quants, IQ types, ternary TQ types and MXFP4).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpuprobe::model {

/// A ggml tensor type: its name and storage (ggml.c type_traits). blck_size 0 = unknown/removed.
struct GgmlTypeInfo {
  const char* name;
  int block_size;   ///< elements per block
  int type_size;    ///< bytes per block
};
/// The info for ggml type id `type` ({"?", 0, 0} for ids ggml does not define or has removed).
GgmlTypeInfo GgmlType(std::uint32_t type);

struct GgufValue {
  std::uint32_t type = 0;        ///< GGUF value type (0 uint8 ... 12 float64)
  double number = 0;             ///< numeric and bool values
  std::string text;              ///< string values (at most 4 KiB kept)
  bool is_array = false;
  std::uint32_t array_type = 0;
  std::uint64_t array_count = 0;
};

struct GgufTensor {
  std::string name;
  std::vector<std::uint64_t> dims;
  std::uint32_t type = 0;
  std::uint64_t offset = 0;      ///< relative to the data section
  double elements = 0;
  double bytes = 0;              ///< elements / block_size x type_size
};

struct GgufFile {
  std::uint32_t version = 0;
  std::map<std::string, GgufValue> metadata;
  std::vector<GgufTensor> tensors;
  std::uint64_t alignment = 32;
  std::uint64_t data_offset = 0;   ///< where tensor data starts in the file
};

/// What a prefix of a GGUF file gives: the parsed file, or how many bytes of the file are needed
/// at least to parse it (the prefix ends inside the metadata or the tensor infos).
struct GgufPrefix {
  std::optional<GgufFile> file;       ///< set when the prefix held every tensor info
  std::uint64_t bytes_needed = 0;     ///< when `file` is unset: read at least this many bytes
};

/// Parses `bytes`, the first bytes of a GGUF file of `file_size` bytes. When `bytes` ends
/// before the tensor infos do and the file is longer, returns a GgufPrefix without a file and
/// with the number of bytes needed at least (the caller reads more and retries). Everything
/// else wrong (bad magic, version 1, absurd counts or lengths, unknown tensor types, dimensions
/// or offsets outside the file) is InvalidArgument naming `label`, the byte offset and the last
/// key or tensor read.
core::Result<GgufPrefix> ParseGgufPrefix(std::string_view bytes, std::uint64_t file_size, const std::string& label);

/// ParseGgufPrefix where `bytes` must hold every tensor info: the file, or InvalidArgument
/// (a prefix that ends too early included).
core::Result<GgufFile> ParseGguf(std::string_view bytes, std::uint64_t file_size, const std::string& label);

}  // namespace gpuprobe::model
