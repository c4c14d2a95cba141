// A model of the Hub as gpuprobe's plan reads it: the snapshot directory in the Hub cache
// (config.json, the safetensors index) and, for each shard, where its header is read from:
// the shard itself when huggingface_hub downloaded it, else the header gpuprobe saved. Found
// from the cache alone (FindCachedModel), or filled from the network first (hub_fetch.h).
//
// Thread safety: functions are reentrant; they read the file system.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "checkpoint/checkpoint_files.h"
#include "core/status.h"
#include "hub/hub_cache.h"
#include "hub/hub_env.h"

namespace gpuprobe::hub {

/// Where one shard's header is read.
struct ShardHeaderSource {
  std::string file;         ///< "model-00001-of-00004.safetensors"
  std::string local_path;   ///< the shard itself, in the snapshot; empty when not downloaded
  std::string header_path;  ///< gpuprobe's saved header; used when local_path is empty
};

/// What a fetch took from the network.
struct FetchStats {
  int requests = 0;
  std::uint64_t bytes_received = 0;  ///< headers and bodies, every hop
  double seconds = 0;
};

struct HubSnapshot {
  std::string repo_id;
  std::string revision;      ///< as asked ("main")
  std::string commit;        ///< what it resolved to (the snapshot's name)
  std::string snapshot_dir;  ///< <hub_cache>/models--ORG--NAME/snapshots/<commit>
  std::string config_path;   ///< snapshot_dir/config.json
  std::string index_path;    ///< snapshot_dir/model.safetensors.index.json; empty for a single-file model
  /// False when the repository has neither model.safetensors nor an index (a .bin or GGUF
  /// repository): plan then has config.json only.
  bool has_safetensors = true;
  std::vector<ShardHeaderSource> shards;  ///< sorted by file name
  FetchStats network;        ///< zero when everything came from the caches
};

/// What the caches hold for a repo at a revision, and what is missing.
struct CacheState {
  std::string commit;                 ///< empty: refs/<revision> is unknown
  bool config = false;
  enum class Index { kUnknown, kPresent, kAbsent } index = Index::kUnknown;
  bool single_file_absent = false;    ///< .no_exist records model.safetensors too
  std::vector<std::string> shards;    ///< the shard files (known once the index state is)
  std::vector<std::string> missing;   ///< what is missing, as cache paths, for the messages
  bool complete() const { return missing.empty(); }
};

/// Inspects the caches at `revision` (a commit, or a ref the cache resolves). ParseError when a
/// cached index is malformed (naming its path).
core::Result<CacheState> InspectCache(const HubCache& cache, const std::string& revision, std::size_t max_shards);

/// InspectCache at a known commit (a snapshot's name).
core::Result<CacheState> InspectCommit(const HubCache& cache, const std::string& commit, std::size_t max_shards);

/// The snapshot of a complete CacheState (network empty).
HubSnapshot SnapshotFromCache(const HubCache& cache, const std::string& repo_id, const std::string& revision,
                              const CacheState& state);

/// The model from the caches alone, reading nothing from the network. Unavailable keyed
/// "error.hub.not_cached" naming what is missing (the first path) when the caches do not
/// hold all of it; the errors of ValidateRepoId/ValidateRevision and InspectCache.
core::Result<HubSnapshot> FindCachedModel(const std::string& repo_id, const std::string& revision,
                                          const HubEnv& env);

/// The adapter for checkpoint readers: a shard's header as checkpoint::ReadSafetensorsHeader
/// returns it (bytes = the JSON header, file_size, data_bytes), read from the shard itself or
/// from the saved header. The errors of ReadSafetensorsHeader, or ParseError (keyed
/// "error.hub.sidecar_bad") for a damaged saved header.
core::Result<checkpoint::HeaderBytes> ReadShardHeader(const ShardHeaderSource& source);

}  // namespace gpuprobe::hub
