#include "hub/hub_snapshot.h"

#include <fmt/format.h>

#include "core/file_io.h"
#include "hub/hub_index.h"
#include "hub/hub_names.h"
#include "model/safetensors_header.h"

namespace gpuprobe::hub {
namespace {

using core::Result;
using core::Status;

// The index of a model with 100,000 tensors is ~10 MB; sidecars hold one header (capped at
// 100 MiB by the format) plus JSON escaping.
constexpr std::uint64_t kMaxIndexBytes = 64ull << 20;
constexpr std::uint64_t kMaxSidecarBytes = 2 * model::kMaxSafetensorsHeaderBytes + (1 << 20);
constexpr std::size_t kDefaultMaxShards = 10000;

}  // namespace

Result<CacheState> InspectCache(const HubCache& cache, const std::string& revision, std::size_t max_shards) {
  if (IsCommitHash(revision)) return InspectCommit(cache, revision, max_shards);
  if (auto ref = cache.ReadRef(revision)) return InspectCommit(cache, *ref, max_shards);
  CacheState state;
  state.missing.push_back(cache.repo_dir() + "/refs/" + revision);
  return state;
}

Result<CacheState> InspectCommit(const HubCache& cache, const std::string& commit, std::size_t max_shards) {
  CacheState state;
  state.commit = commit;
  state.config = cache.HasFile(commit, kConfigFile);
  if (!state.config) state.missing.push_back(cache.SnapshotFile(commit, kConfigFile));

  if (cache.HasFile(commit, kIndexFile)) {
    const std::string path = cache.SnapshotFile(commit, kIndexFile);
    std::string text;
    GPUPROBE_ASSIGN_OR_RETURN(text, core::ReadTextFile(path, kMaxIndexBytes));
    GPUPROBE_ASSIGN_OR_RETURN(state.shards, ShardsFromIndex(text, path, max_shards));
    state.index = CacheState::Index::kPresent;
  } else if (cache.IsMarkedAbsent(commit, kIndexFile) || cache.HasFile(commit, kSingleShardFile)) {
    // A downloaded model.safetensors is a single-file model too: transformers asks for it
    // first and never for the index when it exists.
    state.index = CacheState::Index::kAbsent;
    state.single_file_absent = cache.IsMarkedAbsent(commit, kSingleShardFile);
    if (!state.single_file_absent) state.shards.push_back(kSingleShardFile);
  } else {
    state.missing.push_back(cache.SnapshotFile(commit, kIndexFile));
  }
  for (const std::string& shard : state.shards) {
    if (!cache.HasFile(commit, shard) && !cache.HasSidecar(commit, shard)) {
      state.missing.push_back(cache.SidecarPath(commit, shard));
    }
  }
  return state;
}

HubSnapshot SnapshotFromCache(const HubCache& cache, const std::string& repo_id, const std::string& revision,
                              const CacheState& state) {
  HubSnapshot snapshot;
  snapshot.repo_id = repo_id;
  snapshot.revision = revision;
  snapshot.commit = state.commit;
  snapshot.snapshot_dir = cache.SnapshotDir(state.commit);
  snapshot.config_path = cache.SnapshotFile(state.commit, kConfigFile);
  if (state.index == CacheState::Index::kPresent) snapshot.index_path = cache.SnapshotFile(state.commit, kIndexFile);
  snapshot.has_safetensors = !state.shards.empty();
  for (const std::string& shard : state.shards) {
    ShardHeaderSource source;
    source.file = shard;
    if (cache.HasFile(state.commit, shard)) {
      source.local_path = cache.SnapshotFile(state.commit, shard);
    } else {
      source.header_path = cache.SidecarPath(state.commit, shard);
    }
    snapshot.shards.push_back(std::move(source));
  }
  return snapshot;
}

Result<HubSnapshot> FindCachedModel(const std::string& repo_id, const std::string& revision, const HubEnv& env) {
  GPUPROBE_RETURN_IF_ERROR(ValidateRepoId(repo_id));
  GPUPROBE_RETURN_IF_ERROR(ValidateRevision(revision));
  HubCache cache(env, repo_id);
  CacheState state;
  GPUPROBE_ASSIGN_OR_RETURN(state, InspectCache(cache, revision, kDefaultMaxShards));
  if (!state.complete()) {
    const std::string& first = state.missing.front();
    return Status::Unavailable(fmt::format("{} is not in the local cache ({} is missing)", repo_id, first))
        .WithKeys("error.hub.not_cached", {{"repo", repo_id}, {"path", first}});
  }
  return SnapshotFromCache(cache, repo_id, revision, state);
}

Result<checkpoint::HeaderBytes> ReadShardHeader(const ShardHeaderSource& source) {
  if (!source.local_path.empty()) return checkpoint::ReadSafetensorsHeader(source.local_path);
  std::string text;
  GPUPROBE_ASSIGN_OR_RETURN(text, core::ReadTextFile(source.header_path, kMaxSidecarBytes));
  SavedHeader saved;
  GPUPROBE_ASSIGN_OR_RETURN(saved, SavedHeaderFromJson(text, source.header_path));
  checkpoint::HeaderBytes out;
  out.bytes = std::move(saved.header);
  out.file_size = saved.file_size_bytes;
  out.data_bytes = saved.file_size_bytes - 8 - out.bytes.size();
  out.disk_bytes = 0;  // nothing of the shard is on this disk
  return out;
}

}  // namespace gpuprobe::hub
