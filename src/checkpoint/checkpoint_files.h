// Finding and reading the parts of a model checkpoint that plan needs, without reading any
// weights: the files of a checkpoint directory (config.json, *.safetensors, the safetensors
// index, *.gguf), the JSON header of each .safetensors file (its 8-byte length + the header,
// capped), the first bytes of a GGUF file, and a Hugging Face Hub cache snapshot by repo id.
// The bytes read here go to the pure parsers in model/ (safetensors_header.h, gguf.h).
//
// Thread safety: functions are reentrant.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace gpuprobe::checkpoint {

struct CheckpointFiles {
  std::string directory;
  std::string config_path;               ///< config.json, empty when absent
  std::vector<std::string> safetensors;  ///< *.safetensors, sorted by name
  std::vector<std::string> gguf;         ///< *.gguf, sorted by name
};

/// Lists `directory`. InvalidArgument naming it when it is not a readable directory or holds
/// more than 100,000 entries.
core::Result<CheckpointFiles> ScanDirectory(const std::string& directory);

struct HeaderBytes {
  std::string bytes;           ///< the header (safetensors) or the file's first bytes (GGUF)
  std::uint64_t file_size = 0;
  std::uint64_t data_bytes = 0;  ///< safetensors: bytes after the header
  /// ReadFilePrefix: the bytes the file really holds on disk (allocated blocks; a sparse
  /// file's holes hold none), file_size where the file system does not say.
  std::uint64_t disk_bytes = 0;
};

/// Reads the JSON header of a .safetensors file: the little-endian u64 length N (refused
/// above 100 MiB or past the file's end) and N bytes. InvalidArgument naming the path.
core::Result<HeaderBytes> ReadSafetensorsHeader(const std::string& path);

/// Reads the first `max_bytes` bytes of a regular file (fewer if the file is shorter).
core::Result<HeaderBytes> ReadFilePrefix(const std::string& path, std::uint64_t max_bytes);

/// True when `path` is an existing regular file or directory.
bool PathExists(const std::string& path);
bool IsDirectory(const std::string& path);

/// The Hub cache directories searched for a repo id, in order: $HF_HUB_CACHE,
/// $HF_HOME/hub, $XDG_CACHE_HOME/huggingface/hub, $HOME/.cache/huggingface/hub.
std::vector<std::string> HubCacheRoots();

/// The snapshot directory of `repo_id` ("Qwen/Qwen3-30B-A3B") in the first cache root that
/// has one with a config.json: models--ORG--NAME/snapshots/<refs/main>, else the newest
/// snapshot. nullopt when none is cached.
std::optional<std::string> FindHubSnapshot(const std::string& repo_id);

}  // namespace gpuprobe::checkpoint
