// The on-disk layout, in two places:
//
// 1. The Hub cache, exactly as huggingface_hub lays it out (so its tools, transformers and
//    checkpoint::FindHubSnapshot find what gpuprobe fetched, and gpuprobe finds what they did):
//      <hub_cache>/models--ORG--NAME/blobs/<etag>                     the file's bytes
//      <hub_cache>/models--ORG--NAME/snapshots/<commit>/<file>      -> ../../blobs/<etag>
//      <hub_cache>/models--ORG--NAME/refs/<revision>                   the commit, no newline
//      <hub_cache>/models--ORG--NAME/.no_exist/<commit>/<file>         empty: the file is absent
//    Only whole files the Hub serves go here (config.json, the index): never a shard header.
// 2. gpuprobe's own directory for the headers of shards it did not download:
//      <headers_cache>/models--ORG--NAME/<commit>/<shard>.header.json
//    a JSON document (schema gpuprobe.hub_header.v1) holding the header bytes verbatim, the
//    shard's size, its URL and ETag.
//
// Every write goes through a temporary file and a rename (or an atomic symlink), and nothing
// that exists is overwritten: a blob, a snapshot entry or a ref already there is left alone.
//
// Thread safety: a HubCache is immutable; concurrent writers of the same file each write a
// complete file, and the first rename or symlink wins.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/status.h"
#include "hub/hub_env.h"

namespace gpuprobe::hub {

/// A shard's header as gpuprobe keeps it.
struct SavedHeader {
  std::string file;                 ///< "model-00001-of-00004.safetensors"
  std::string url;                  ///< where it was read
  std::string etag;                 ///< the shard's ETag (its sha256 on the Hub), may be empty
  std::uint64_t file_size_bytes = 0;  ///< the whole shard
  std::string header;               ///< the JSON header, byte for byte (8 + size() bytes lie before the data)
};

/// The sidecar document of `saved`.
std::string SavedHeaderToJson(const SavedHeader& saved);
/// Parses a sidecar document; ParseError keyed "error.hub.sidecar_bad" naming `path` when it
/// is not one gpuprobe wrote whole (schema, types, file size below 8 + header).
core::Result<SavedHeader> SavedHeaderFromJson(const std::string& text, const std::string& path);

class HubCache {
 public:
  HubCache(const HubEnv& env, const std::string& repo_id);

  const std::string& repo_dir() const { return repo_dir_; }
  std::string SnapshotDir(const std::string& commit) const;
  std::string SnapshotFile(const std::string& commit, const std::string& file) const;
  std::string SidecarPath(const std::string& commit, const std::string& shard) const;

  /// The commit refs/<revision> names; nullopt when there is none or it is not a usable name.
  std::optional<std::string> ReadRef(const std::string& revision) const;
  /// Writes refs/<revision> = `commit` unless the ref exists.
  core::Status WriteRef(const std::string& revision, const std::string& commit) const;
  /// True when snapshots/<commit>/<file> is (or links to) a regular file.
  bool HasFile(const std::string& commit, const std::string& file) const;
  /// Writes blobs/<etag> (unless present) and snapshots/<commit>/<file> as a relative symlink
  /// to it (a copy where the file system refuses symlinks), unless that entry exists.
  core::Status WriteFile(const std::string& commit, const std::string& file, const std::string& etag,
                         const std::string& content) const;
  /// True when .no_exist/<commit>/<file> records that the file is absent.
  bool IsMarkedAbsent(const std::string& commit, const std::string& file) const;
  core::Status MarkAbsent(const std::string& commit, const std::string& file) const;
  /// True when the sidecar of `shard` exists.
  bool HasSidecar(const std::string& commit, const std::string& shard) const;
  core::Status WriteSidecar(const std::string& commit, const SavedHeader& saved) const;

 private:
  std::string repo_dir_;
  std::string sidecar_dir_;
};

/// IoError keyed "error.hub.cache_write" for a failed mkdir/write of `path` (errno `error`).
core::Status CacheWriteError(const std::string& path, int error);

}  // namespace gpuprobe::hub
