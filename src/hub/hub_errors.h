// The errors of a Hub fetch, as typed Statuses with text keys (data/texts/<lang>/error.json,
// "error.hub.*"), so the exit status and the words are the same whichever client or server:
//   cannot reach the server (DNS, connection, timeout, TLS)  -> Unavailable (exit 3), the URL,
//                                                               HF_ENDPOINT and HF_HUB_OFFLINE
//   429 or 5xx                                                -> Unavailable (exit 3)
//   401/403: gated or private                                 -> InvalidArgument (exit 2), says
//                                                               whether a token was sent
//   404 or RepoNotFound: no such repo, revision or file       -> InvalidArgument (exit 2), the URL
//   a malformed answer                                        -> ParseError (exit 2), the URL
// The Hub's X-Error-Code header (RepoNotFound, GatedRepo, RevisionNotFound, EntryNotFound)
// decides first, as in huggingface_hub's hf_raise_for_status.
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include "core/status.h"
#include "hub/hub_env.h"
#include "hub/http_client.h"

namespace gpuprobe::hub {

/// Why no HTTP response came back.
enum class TransportFailure { kResolve, kConnect, kDropped, kTimeout, kTls, kTooManyRedirects, kProtocol, kOther };

/// Unavailable, keyed "error.hub.unreachable" with the reason's own text key, naming `url`;
/// `detail` (the library's words) is kept in the English message only.
core::Status Unreachable(const std::string& url, TransportFailure failure, const std::string& detail);

/// What was being fetched, for the messages.
struct FileRef {
  std::string url;
  std::string repo_id;
  std::string revision;
  std::string file;
};

/// The Status for an HTTP answer that is not the expected 200/206 (see the file comment);
/// `env` says whether a token was sent and where it came from.
core::Status StatusFromHttp(const FileRef& ref, const HttpResponse& response, const HubEnv& env);

/// ParseError keyed `key` (an "error.hub.*" text taking {url} and `args`), for a malformed answer.
core::Status Malformed(const std::string& english, const std::string& key, core::MessageArgs args);

}  // namespace gpuprobe::hub
