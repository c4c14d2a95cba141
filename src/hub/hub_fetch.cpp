#include "hub/hub_fetch.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "hub/curl_http_client.h"
#include "hub/git_blob_id.h"
#include "hub/hub_index.h"
#include "hub/hub_names.h"
#include "model/safetensors_header.h"

namespace gpuprobe::hub {
namespace {

using core::Result;
using core::Status;

Result<HttpResponse> CountedGet(HttpClient& client, const HttpRequest& request, FetchStats* stats) {
  auto response = client.Get(request);
  ++stats->requests;
  if (response.ok()) stats->bytes_received += response->bytes_received;
  return response;
}

std::string ErrorCode(const HttpResponse& r) {
  auto code = r.headers.Get("x-error-code");
  if (!code) code = r.first_headers.Get("x-error-code");
  return code.value_or("");
}

// A 404 that says the file is absent (not the repository or the revision).
bool IsAbsentFile(const HttpResponse& r) {
  const std::string code = ErrorCode(r);
  return (r.status == 404 || r.status == 410) && (code.empty() || code == "EntryNotFound");
}

// The Hub's own headers first (the first hop, before a redirect to a CDN), then the final ones.
std::optional<std::string> HubHeader(const HttpResponse& r, const char* name) {
  auto value = r.first_headers.Get(name);
  if (!value || value->empty()) value = r.headers.Get(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

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

Status Truncated(const std::string& url, std::uint64_t at, const ByteRange& range) {
  return Malformed(fmt::format("{}: the answer stops at byte {}; bytes {}-{} were asked for (a truncated file?)", url,
                               at, range.first, range.last),
                   "error.hub.truncated",
                   {{"url", url}, {"at", std::to_string(at)}, {"first", std::to_string(range.first)},
                    {"last", std::to_string(range.last)}});
}

Status RangeIgnored(const std::string& url, const ByteRange& range, std::uint64_t limit) {
  return Status::ParseError(
             fmt::format("{}: the server ignored the range request (HTTP 200 instead of 206 for bytes {}-{}) and sent "
                         "more than the {} bytes asked for; the transfer was cut off",
                         url, range.first, range.last, limit),
             "gpuprobe reads only the headers of weight files; use an endpoint that serves byte ranges (the Hub "
             "and its mirrors do)")
      .WithKeys("error.hub.range_ignored",
                {{"url", url}, {"first", std::to_string(range.first)}, {"last", std::to_string(range.last)},
                 {"limit", std::to_string(limit)}},
                "error.hub.range_ignored.hint");
}

Status RangeOverrun(const std::string& url, const ByteRange& range) {
  return Malformed(fmt::format("{}: asked for bytes {}-{}, the server sent more; the transfer was cut off", url,
                               range.first, range.last),
                   "error.hub.range_overrun",
                   {{"url", url}, {"first", std::to_string(range.first)}, {"last", std::to_string(range.last)}});
}

Status WrongRange(const std::string& url, const ByteRange& range, const std::string& content_range) {
  const std::string shown = content_range.substr(0, 100);
  return Malformed(fmt::format("{}: asked for bytes {}-{}, the server sent '{}'", url, range.first, range.last, shown),
                   "error.hub.wrong_range",
                   {{"url", url}, {"first", std::to_string(range.first)}, {"last", std::to_string(range.last)},
                    {"content_range", shown}});
}

Status FileTooShort(const std::string& url, std::uint64_t size) {
  return Malformed(fmt::format("{}: the file is {} bytes long, too short for a safetensors file", url, size),
                   "error.hub.file_too_short", {{"url", url}, {"size", std::to_string(size)}});
}

std::uint64_t LittleEndian64(const std::string& bytes) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<size_t>(i)]);
  return n;
}

std::optional<std::uint64_t> ParseSize(const std::string& text) {
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::strtoull(text.c_str(), nullptr, 10);
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

}  // namespace

namespace {

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

std::optional<ContentRange> ParseContentRange(const std::string& value) {
  if (value.size() < 7 || value.size() > 100) return std::nullopt;
  std::string unit = value.substr(0, 6);
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (unit != "bytes ") return std::nullopt;
  const std::string rest = value.substr(6);
  const size_t slash = rest.find('/');
  if (slash == std::string::npos) return std::nullopt;
  const std::string span = rest.substr(0, slash);
  const std::string total = rest.substr(slash + 1);
  ContentRange out;
  if (total != "*") {
    out.total = ParseSize(total);
    if (!out.total) return std::nullopt;
  }
  if (span == "*") {
    if (!out.total) return std::nullopt;
    out.unsatisfied = true;
    return out;
  }
  const size_t dash = span.find('-');
  if (dash == std::string::npos) return std::nullopt;
  auto first = ParseSize(span.substr(0, dash));
  auto last = ParseSize(span.substr(dash + 1));
  if (!first || !last || *first > *last || (out.total && *last >= *out.total)) return std::nullopt;
  out.first = *first;
  out.last = *last;
  return out;
}

Result<std::optional<SavedHeader>> FetchShardHeader(HttpClient& client, const FileRef& ref, const HubEnv& env,
                                                    const FetchOptions& options, FetchStats* stats,
                                                    bool allow_absent) {
  // Bytes 0-7: the header's length, little-endian.
  const ByteRange length_range{0, 7};
  HttpRequest request;
  request.url = ref.url;
  request.bearer_token = env.token;
  request.range = length_range;
  request.max_body_bytes = 8;
  HttpResponse r;
  GPUPROBE_ASSIGN_OR_RETURN(r, CountedGet(client, request, stats));
  if (allow_absent && IsAbsentFile(r)) return std::optional<SavedHeader>();
  const std::string content_range = r.headers.Get("content-range").value_or("");
  const auto range = ParseContentRange(content_range);
  std::optional<std::uint64_t> total;
  if (r.status == 416) return FileTooShort(ref.url, range && range->total ? *range->total : 0);
  if (r.status == 200) {
    // Without Range support the whole file comes: more than 8 bytes is cut off and refused;
    // 8 bytes or fewer is the whole file.
    if (r.body_over_limit) return RangeIgnored(ref.url, length_range, 8);
    if (r.body.size() < 8) return FileTooShort(ref.url, r.body.size());
    total = 8;
  } else if (r.status != 206) {
    return StatusFromHttp(ref, r, env);
  } else {
    if (r.body_over_limit) return RangeOverrun(ref.url, length_range);
    if (range && range->total && *range->total < 8) return FileTooShort(ref.url, *range->total);
    if (r.body.size() < 8 || r.body_incomplete) return Truncated(ref.url, r.body.size(), length_range);
    if (!content_range.empty() && (!range || range->first != 0 || range->last != 7)) {
      return WrongRange(ref.url, length_range, content_range);
    }
    if (range && range->total) {
      total = range->total;
    } else if (auto linked = HubHeader(r, "x-linked-size")) {
      total = ParseSize(*linked);
    }
  }

  const std::uint64_t n = LittleEndian64(r.body);
  const std::string length_text = std::to_string(n);
  if (n > options.max_header_bytes) {
    return Status::ParseError(fmt::format("{}: bytes 0-7 give a header length of {} bytes, beyond the {}-byte limit "
                                          "(not a safetensors file?)",
                                          ref.url, n, options.max_header_bytes))
        .WithKeys("error.hub.header_length",
                  {{"url", ref.url}, {"length", length_text}, {"limit", std::to_string(options.max_header_bytes)}});
  }
  if (n < 2) {
    return Malformed(fmt::format("{}: bytes 0-7 give a header length of {} bytes, too short for a JSON header", ref.url, n),
                     "error.hub.header_too_short", {{"url", ref.url}, {"length", length_text}});
  }
  if (!total) {
    return Malformed(fmt::format("{}: the server did not say how large the file is (no Content-Range total)", ref.url),
                     "error.hub.no_size", {{"url", ref.url}});
  }
  if (8 + n > *total) {
    return Malformed(fmt::format("{}: bytes 0-7 give a header length of {} bytes, past the end of the {}-byte file",
                                 ref.url, n, *total),
                     "error.hub.header_past_end",
                     {{"url", ref.url}, {"length", length_text}, {"size", std::to_string(*total)}});
  }

  // Bytes 8..8+N-1: the JSON header, and nothing of the weights after it.
  const ByteRange header_range{8, 8 + n - 1};
  request.range = header_range;
  request.max_body_bytes = n;
  HttpResponse h;
  GPUPROBE_ASSIGN_OR_RETURN(h, CountedGet(client, request, stats));
  if (h.status == 200) return RangeIgnored(ref.url, header_range, n);
  if (h.status != 206) return StatusFromHttp(ref, h, env);
  if (h.body_over_limit) return RangeOverrun(ref.url, header_range);
  const std::string header_content_range = h.headers.Get("content-range").value_or("");
  const auto got = ParseContentRange(header_content_range);
  if (!header_content_range.empty() && (!got || got->first != 8)) {
    return WrongRange(ref.url, header_range, header_content_range);
  }
  if (h.body_incomplete || h.body.size() < n) return Truncated(ref.url, 8 + h.body.size(), header_range);

  auto parsed = model::ParseSafetensorsHeader(h.body, *total - 8 - n, ref.url);
  if (!parsed.ok()) {
    if (!parsed.status().message_key().empty()) return parsed.status();
    std::string detail = parsed.status().message();
    if (detail.rfind(ref.url + ": ", 0) == 0) detail = detail.substr(ref.url.size() + 2);
    return Malformed(fmt::format("{}: the safetensors header is not valid: {}", ref.url, detail), "error.hub.bad_header",
                     {{"url", ref.url}, {"detail", detail}});
  }
  SavedHeader saved;
  saved.file = ref.file;
  saved.url = ref.url;
  for (auto value : {r.first_headers.Get("x-linked-etag"), r.first_headers.Get("etag")}) {
    if (value && saved.etag.empty()) saved.etag = NormalizeEtag(*value).substr(0, 200);
  }
  saved.file_size_bytes = *total;
  saved.header = std::move(h.body);
  return std::optional<SavedHeader>(std::move(saved));
}

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
