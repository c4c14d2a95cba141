// The environment a huggingface_hub user has already set up, read the way huggingface_hub
// reads it (huggingface_hub/constants.py and utils/_auth.py), so gpuprobe talks to the same
// endpoint with the same token and shares the same cache:
//   HF_ENDPOINT                 the Hub or a mirror (default https://huggingface.co)
//   HF_TOKEN, HUGGING_FACE_HUB_TOKEN, then the token file ($HF_TOKEN_PATH, else $HF_HOME/token)
//   HF_HUB_DISABLE_IMPLICIT_TOKEN   the token is not sent
//   HF_HUB_OFFLINE (or TRANSFORMERS_OFFLINE)   1/ON/YES/TRUE: no network at all
//   HF_HUB_CACHE, HUGGINGFACE_HUB_CACHE, HF_HOME, XDG_CACHE_HOME, HOME   the cache root
//   REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE   a CA bundle for TLS behind an inspecting proxy
// The shard headers gpuprobe fetches (not Hub files) go to its own directory:
// $XDG_CACHE_HOME/gpuprobe/hub-headers, else ~/.cache/gpuprobe/hub-headers.
//
// Thread safety: ResolveHubEnv is pure; ReadHubEnv reads the process environment and a file.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "core/status.h"

namespace gpuprobe::hub {

/// Environment variables by name.
using EnvMap = std::map<std::string, std::string>;

/// Where the token came from.
enum class TokenSource { kNone, kHfToken, kHuggingFaceHubToken, kTokenFile };

/// "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "the token file" or "none".
const char* TokenSourceName(TokenSource source);

struct HubEnv {
  std::string endpoint = "https://huggingface.co";  ///< no trailing '/'
  bool endpoint_from_env = false;                   ///< HF_ENDPOINT was set
  /// The token to send as "Authorization: Bearer"; empty when none is set or
  /// HF_HUB_DISABLE_IMPLICIT_TOKEN is true (token_source still says where one was found).
  std::string token;
  TokenSource token_source = TokenSource::kNone;
  bool implicit_token_disabled = false;
  std::string token_path;          ///< $HF_TOKEN_PATH or $HF_HOME/token
  bool offline = false;            ///< HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE is true
  std::string offline_variable;    ///< the variable that made it offline
  std::string hf_home;             ///< $HF_HOME or $XDG_CACHE_HOME/huggingface or ~/.cache/huggingface
  std::string hub_cache;           ///< the Hub cache root (models--ORG--NAME/ live here)
  std::string headers_cache;       ///< gpuprobe's own root for fetched shard headers
  std::string ca_bundle;           ///< REQUESTS_CA_BUNDLE or CURL_CA_BUNDLE; empty: the system's
};

/// Reads the file at a path: its text, or nullopt when it cannot be read.
using TokenFileReader = std::function<std::optional<std::string>(const std::string& path)>;

/// Resolves `env` as huggingface_hub does (see the file comment). A variable set to the empty
/// string counts as unset. "~" at the start of a path is $HOME. `read_token_file` is called
/// with token_path only when neither HF_TOKEN nor HUGGING_FACE_HUB_TOKEN holds a token; null
/// means no token file is read. InvalidArgument (keyed) when HF_ENDPOINT is not an http(s)
/// URL, or when no cache root can be derived (no HF_HUB_CACHE, HF_HOME, XDG_CACHE_HOME, HOME).
core::Result<HubEnv> ResolveHubEnv(const EnvMap& env, const TokenFileReader& read_token_file = nullptr);

/// The variables ResolveHubEnv reads, from the process environment (HOME from the password
/// database when unset).
EnvMap ProcessHubVariables();

/// ResolveHubEnv(ProcessHubVariables()) with the token file read from disk (at most 4 KiB,
/// regular files only).
core::Result<HubEnv> ReadHubEnv();

}  // namespace gpuprobe::hub
