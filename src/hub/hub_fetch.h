// `plan --model ORG/NAME` without downloading a model: what huggingface_hub would cache for
// config.json and model.safetensors.index.json, and for each safetensors shard only its
// header, read with two HTTP range requests (bytes 0-7: the little-endian header length N;
// bytes 8..8+N-1: the JSON header). The weights are never requested.
//
//   GET {endpoint}/{repo}/resolve/{revision}/config.json                 -> Hub cache, refs/<revision>
//   GET .../model.safetensors.index.json   (404: a single model.safetensors) -> Hub cache (.no_exist on 404)
//   GET .../<shard>  Range: bytes=0-7, then Range: bytes=8-(8+N-1)       -> gpuprobe's header files
//
// The caches are read first: what is there is not fetched again, and a complete model reads
// nothing from the network. With HF_HUB_OFFLINE set nothing is fetched at all. Errors are
// typed (hub_errors.h); every one names the URL.
//
// Thread safety: functions are reentrant; they use the given client (one request at a time)
// and write the caches (hub_cache.h). Implemented in hub_fetch.cpp (the model, the caches)
// and shard_header_fetch.cpp (one shard's header).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/status.h"
#include "hub/hub_env.h"
#include "hub/hub_errors.h"
#include "hub/hub_snapshot.h"
#include "hub/http_client.h"

namespace gpuprobe::hub {

/// Makes another client like the one given (for parallel shard reads).
using ClientFactory = std::function<core::Result<std::unique_ptr<HttpClient>>()>;

struct FetchOptions {
  std::uint64_t max_config_bytes = 16ull << 20;   ///< config.json files are a few KiB
  std::uint64_t max_index_bytes = 64ull << 20;    ///< 100,000 tensors make ~10 MB
  std::uint64_t max_header_bytes = 100ull << 20;  ///< the safetensors format's own limit
  std::size_t max_shards = 10000;
  /// Shard headers read at once: each costs two round trips (four with the Hub's redirect),
  /// so a 160-shard model is latency-bound. More than 1 needs make_client (one client per
  /// extra connection; the given client is one of them).
  int parallel = 1;
  ClientFactory make_client;
};

/// A parsed "Content-Range: bytes first-last/total" (total nullopt for "*").
struct ContentRange {
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  std::optional<std::uint64_t> total;
  bool unsatisfied = false;  ///< "bytes */total" (the answer to an unsatisfiable range)
};

/// nullopt when `value` is not a bytes Content-Range.
std::optional<ContentRange> ParseContentRange(const std::string& value);

/// Reads one shard's header with two range requests (see the file comment), adding to
/// `stats`. Checks: a 206 answer holding exactly the bytes asked for (a 200 that overruns the
/// cap means the server ignored Range: cut off and reported), N in [2, max_header_bytes], the
/// header inside the file, and the header valid (model::ParseSafetensorsHeader). With
/// `allow_absent`, a file that does not exist (404) gives nullopt instead of an error.
core::Result<std::optional<SavedHeader>> FetchShardHeader(HttpClient& client, const FileRef& ref, const HubEnv& env,
                                                          const FetchOptions& options, FetchStats* stats,
                                                          bool allow_absent = false);

/// The model's snapshot, from the caches when they hold it, else completed from the network
/// (see the file comment) and written to the caches. Errors: ValidateRepoId/ValidateRevision;
/// Unavailable keyed "error.hub.offline_missing" when HF_HUB_OFFLINE is set and something is
/// not cached; the fetch errors of hub_errors.h; the cache's write errors.
core::Result<HubSnapshot> FetchModelHeaders(const std::string& repo_id, const std::string& revision,
                                            const HubEnv& env, HttpClient& client, const FetchOptions& options = {});

/// What `plan --model ORG/NAME` calls: ReadHubEnv, libcurl clients (`parallel` shard headers
/// at once; 8 as huggingface_hub's snapshot_download has 8 workers), FetchModelHeaders.
core::Result<HubSnapshot> FindOrFetchModel(const std::string& repo_id, const std::string& revision = "main",
                                           int parallel = 8);

}  // namespace gpuprobe::hub
