#include "hub/hub_fetch.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "hub/curl_http_client.h"
#include "hub/fetch_helpers.h"
#include "hub/git_blob_id.h"
#include "hub/hub_index.h"
#include "hub/hub_names.h"

namespace gpuprobe::hub {
namespace {

using core::Result;
using core::Status;
using detail::CountedGet;
using detail::HubHeader;
using detail::IsAbsentFile;

// The blob name the Hub cache gives a file: X-Linked-Etag (LFS files), else ETag, as
// huggingface_hub reads them; the git blob id where a server sends neither usable.
std::string BlobName(const HttpResponse& r, const std::string& body) {
  for (auto value : {r.first_headers.Get("x-linked-etag"), r.first_headers.Get("etag"), r.headers.Get("etag")}) {
    if (!value) continue;
    std::string etag = NormalizeEtag(*value);
    if (IsSafePathComponent(etag)) return etag;
  }
  return GitBlobId(body);
}

// The commit a revision resolved to: X-Repo-Commit; a revision that is a commit; else the
// config's ETag, which then names the snapshot (a server without X-Repo-Commit).
Result<std::string> CommitOf(const HttpResponse& r, const std::string& revision, const std::string& url) {
  if (auto commit = HubHeader(r, "x-repo-commit")) {
    if (IsSafePathComponent(*commit)) return *commit;
    const std::string shown = commit->substr(0, 100);
    return Malformed(fmt::format("{}: the commit id '{}' in X-Repo-Commit is not a usable name", url, shown),
                     "error.hub.bad_commit", {{"url", url}, {"commit", shown}});
  }
  if (IsCommitHash(revision)) return revision;
  if (auto etag = HubHeader(r, "etag")) {
    std::string name = NormalizeEtag(*etag);
    if (IsSafePathComponent(name)) return name;
  }
  return Status::ParseError(fmt::format("{}: the answer names no commit (no X-Repo-Commit, no ETag)", url),
                            "HF_ENDPOINT must be the Hub or a mirror that answers as the Hub does")
      .WithKeys("error.hub.no_commit", {{"url", url}}, "error.hub.no_commit.hint");
}

Status TooLarge(const std::string& url, std::uint64_t limit) {
  return Malformed(fmt::format("{}: the answer is larger than {} bytes; the file cannot be what it claims", url, limit),
                   "error.hub.too_large", {{"url", url}, {"limit", std::to_string(limit)}});
}

Status BrokenOff(const std::string& url, std::uint64_t got) {
  return Malformed(fmt::format("{}: the answer broke off after {} bytes, before its announced length", url, got),
                   "error.hub.broken_off", {{"url", url}, {"bytes", std::to_string(got)}});
}
// GET of a whole small file (config.json, the index) with the cap; a non-200 answer is
// returned for the caller to judge.
Result<HttpResponse> GetWhole(HttpClient& client, const FileRef& ref, const HubEnv& env, std::uint64_t limit,
                              FetchStats* stats) {
  HttpRequest request;
  request.url = ref.url;
  request.bearer_token = env.token;
  request.max_body_bytes = limit;
  HttpResponse r;
  GPUPROBE_ASSIGN_OR_RETURN(r, CountedGet(client, request, stats));
  if (r.status == 200 && r.body_over_limit) return TooLarge(ref.url, limit);
  if (r.status == 200 && r.body_incomplete) return BrokenOff(ref.url, r.body.size());
  return r;
}

Status OfflineMissing(const std::string& repo_id, const HubEnv& env, const std::string& missing) {
  return Status::Unavailable(
             fmt::format("{} is set, and {} is not in the local Hub cache ({} is missing)", env.offline_variable,
                         repo_id, missing),
             fmt::format("run once with the network (without {}) so gpuprobe fetches its config and headers",
                         env.offline_variable))
      .WithKeys("error.hub.offline_missing", {{"repo", repo_id}, {"path", missing}, {"variable", env.offline_variable}},
                "error.hub.offline_missing.hint");
}

// The client of an offline run: never asked (FetchModelHeaders checks HF_HUB_OFFLINE first).
class NoNetworkClient final : public HttpClient {
 public:
  Result<HttpResponse> Get(const HttpRequest& request) override {
    return Status::Internal(fmt::format("{}: a network request in offline mode", request.url));
  }
};

FileRef RefFor(const HubEnv& env, const std::string& repo_id, const std::string& revision, const std::string& file) {
  return FileRef{ResolveUrl(env.endpoint, repo_id, revision, file), repo_id, revision, file};
}

// Reads the headers of `shards` and saves them, with options.parallel clients at once. The
// error reported is that of the first shard (in name order) that failed.
Status FetchShards(const std::vector<std::string>& shards, bool single_file, const HubCache& cache,
                   const std::string& commit, const std::function<FileRef(const std::string&)>& ref_for,
                   const HubEnv& env, HttpClient& client, const FetchOptions& options, FetchStats* stats) {
  std::vector<Status> errors(shards.size());
  std::vector<char> absent(shards.size(), 0);
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;
  auto work = [&](HttpClient& c) {
    FetchStats local;
    for (size_t i = next++; i < shards.size() && !stop; i = next++) {
      auto saved = FetchShardHeader(c, ref_for(shards[i]), env, options, &local, single_file);
      Status status = saved.status();
      if (status.ok() && !*saved) {
        absent[i] = 1;
      } else if (status.ok()) {
        status = cache.WriteSidecar(commit, **saved);
      }
      if (!status.ok()) {
        errors[i] = status;
        stop = true;
      }
    }
    std::lock_guard<std::mutex> lock(mutex);
    stats->requests += local.requests;
    stats->bytes_received += local.bytes_received;
  };
  std::vector<std::unique_ptr<HttpClient>> extra;
  const size_t wanted = std::min<size_t>(shards.size(), static_cast<size_t>(std::max(1, options.parallel)));
  while (options.make_client && extra.size() + 1 < wanted) {
    auto made = options.make_client();
    if (!made.ok()) break;  // fewer connections, not a failure
    extra.push_back(std::move(*made));
  }
  std::vector<std::thread> threads;
  for (auto& c : extra) threads.emplace_back(work, std::ref(*c));
  work(client);
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < shards.size(); ++i) {
    if (!errors[i].ok()) return errors[i];
    // Neither an index nor model.safetensors: a .bin or GGUF repository; plan has config.json.
    if (absent[i]) GPUPROBE_RETURN_IF_ERROR(cache.MarkAbsent(commit, shards[i]));
  }
  return Status::Ok();
}

}  // namespace

Result<HubSnapshot> FetchModelHeaders(const std::string& repo_id, const std::string& revision, const HubEnv& env,
                                      HttpClient& client, const FetchOptions& options) {
  GPUPROBE_RETURN_IF_ERROR(ValidateRepoId(repo_id));
  GPUPROBE_RETURN_IF_ERROR(ValidateRevision(revision));
  const auto start = std::chrono::steady_clock::now();
  HubCache cache(env, repo_id);
  CacheState state;
  GPUPROBE_ASSIGN_OR_RETURN(state, InspectCache(cache, revision, options.max_shards));
  if (state.complete()) return SnapshotFromCache(cache, repo_id, revision, state);
  if (env.offline) return OfflineMissing(repo_id, env, state.missing.front());

  FetchStats stats;
  std::string commit = state.commit;
  // Files are asked for by commit once one is known, so a branch that moves meanwhile cannot
  // mix two versions in one snapshot. A snapshot named after an ETag (a server that sent no
  // X-Repo-Commit) is not a revision the server knows: its files are asked for at `revision`.
  bool by_commit = IsCommitHash(commit);
  if (commit.empty() || !state.config) {
    const std::string asked = by_commit ? commit : revision;
    const FileRef ref = RefFor(env, repo_id, asked, kConfigFile);
    HttpResponse r;
    GPUPROBE_ASSIGN_OR_RETURN(r, GetWhole(client, ref, env, options.max_config_bytes, &stats));
    if (r.status != 200) return StatusFromHttp(ref, r, env);
    GPUPROBE_RETURN_IF_ERROR(CheckConfigJson(r.body, ref.url));
    if (commit.empty()) {
      GPUPROBE_ASSIGN_OR_RETURN(commit, CommitOf(r, asked, ref.url));
      by_commit = IsCommitHash(revision) || HubHeader(r, "x-repo-commit").has_value();
    }
    GPUPROBE_RETURN_IF_ERROR(cache.WriteFile(commit, kConfigFile, BlobName(r, r.body), r.body));
    if (revision != commit) GPUPROBE_RETURN_IF_ERROR(cache.WriteRef(revision, commit));
  }
  const std::string asked = by_commit ? commit : revision;

  GPUPROBE_ASSIGN_OR_RETURN(state, InspectCommit(cache, commit, options.max_shards));
  if (state.index == CacheState::Index::kUnknown) {
    const FileRef ref = RefFor(env, repo_id, asked, kIndexFile);
    HttpResponse r;
    GPUPROBE_ASSIGN_OR_RETURN(r, GetWhole(client, ref, env, options.max_index_bytes, &stats));
    if (IsAbsentFile(r)) {
      GPUPROBE_RETURN_IF_ERROR(cache.MarkAbsent(commit, kIndexFile));
    } else if (r.status != 200) {
      return StatusFromHttp(ref, r, env);
    } else {
      GPUPROBE_RETURN_IF_ERROR(ShardsFromIndex(r.body, ref.url, options.max_shards).status());
      GPUPROBE_RETURN_IF_ERROR(cache.WriteFile(commit, kIndexFile, BlobName(r, r.body), r.body));
    }
    GPUPROBE_ASSIGN_OR_RETURN(state, InspectCommit(cache, commit, options.max_shards));
  }

  std::vector<std::string> todo;
  for (const std::string& shard : state.shards) {
    if (!cache.HasFile(commit, shard) && !cache.HasSidecar(commit, shard)) todo.push_back(shard);
  }
  GPUPROBE_RETURN_IF_ERROR(FetchShards(todo, state.index == CacheState::Index::kAbsent, cache, commit,
                                       [&](const std::string& shard) { return RefFor(env, repo_id, asked, shard); },
                                       env, client, options, &stats));

  GPUPROBE_ASSIGN_OR_RETURN(state, InspectCommit(cache, commit, options.max_shards));
  if (!state.complete()) {
    // An invariant of FetchShards (each shard it returned OK for is in the cache), not a state
    // of the Hub: a bug to report, left in English.
    return Status::Internal(fmt::format("{}: {} is still missing after the fetch", repo_id, state.missing.front()));
  }
  HubSnapshot snapshot = SnapshotFromCache(cache, repo_id, revision, state);
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  snapshot.network = stats;
  return snapshot;
}

Result<HubSnapshot> FindOrFetchModel(const std::string& repo_id, const std::string& revision, int parallel) {
  HubEnv env;
  GPUPROBE_ASSIGN_OR_RETURN(env, ReadHubEnv());
  GPUPROBE_RETURN_IF_ERROR(ValidateRepoId(repo_id));
  GPUPROBE_RETURN_IF_ERROR(ValidateRevision(revision));
  if (env.offline) {
    // FetchModelHeaders answers from the caches or with "offline"; it never calls the client.
    NoNetworkClient none;
    return FetchModelHeaders(repo_id, revision, env, none);
  }
  CurlClientOptions client_options;
  client_options.ca_bundle = env.ca_bundle;
  std::unique_ptr<HttpClient> client;
  GPUPROBE_ASSIGN_OR_RETURN(client, MakeCurlHttpClient(client_options));
  FetchOptions options;
  options.parallel = parallel;
  options.make_client = [client_options] { return MakeCurlHttpClient(client_options); };
  return FetchModelHeaders(repo_id, revision, env, *client, options);
}

}  // namespace gpuprobe::hub
