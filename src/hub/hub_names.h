// The names the Hub and its cache use, checked before they become URLs or paths: repo ids
// ("Qwen/Qwen3-8B"), revisions, commit hashes, file names, and ETags (huggingface_hub's
// validate_repo_id, _normalize_etag and the cache's "models--ORG--NAME" folders).
// Anything that came from a server and ends up in a path goes through IsSafePathComponent
// first, so a hostile answer cannot write outside the cache.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace gpuprobe::hub {

/// The file names a header-only fetch reads.
inline constexpr const char* kConfigFile = "config.json";
inline constexpr const char* kIndexFile = "model.safetensors.index.json";
inline constexpr const char* kSingleShardFile = "model.safetensors";

/// True for "NAME" or "ORG/NAME" as the Hub accepts them: letters, digits, '-', '_', '.',
/// at most 96 characters, no "--" or "..", not starting or ending with '-' or '.'.
bool IsRepoId(std::string_view text);

/// Ok for a repo id (IsRepoId); InvalidArgument (keyed) naming it otherwise.
core::Status ValidateRepoId(std::string_view repo_id);

/// Ok for a branch, tag or commit ("main", "v1.0", "refs/pr/3", 40 hex digits): printable
/// ASCII without spaces, no "..", no leading '/' or '-', at most 255 characters.
core::Status ValidateRevision(std::string_view revision);

/// True for a full git commit id: 40 lower-case hex digits.
bool IsCommitHash(std::string_view text);

/// True when `text` can be one path component: 1-255 of letters, digits, '-', '_', '.',
/// and not "." or "..".
bool IsSafePathComponent(std::string_view text);

/// "models--ORG--NAME" (or "models--NAME"): the repo's folder in the Hub cache.
std::string RepoFolderName(std::string_view repo_id);

/// Percent-encodes everything but unreserved characters (RFC 3986); '/' is kept when
/// `keep_slash`.
std::string PercentEncode(std::string_view text, bool keep_slash);

/// "{endpoint}/{repo_id}/resolve/{revision}/{filename}", the revision encoded whole
/// ("refs%2Fpr%2F3") and the file name with its slashes kept, as huggingface_hub builds it.
std::string ResolveUrl(std::string_view endpoint, std::string_view repo_id, std::string_view revision,
                       std::string_view filename);

/// An ETag as the cache names blobs: without a weak "W/" prefix and without quotes.
std::string NormalizeEtag(std::string_view etag);

}  // namespace gpuprobe::hub
