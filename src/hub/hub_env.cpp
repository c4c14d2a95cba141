#include "hub/hub_env.h"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <vector>

#include <fmt/format.h>

#include "core/file_io.h"

namespace gpuprobe::hub {
namespace {

using core::Result;
using core::Status;

// Every variable ResolveHubEnv looks at (ProcessHubVariables copies these and no others).
constexpr const char* kVariables[] = {
    "HF_ENDPOINT", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_TOKEN_PATH", "HF_HUB_DISABLE_IMPLICIT_TOKEN",
    "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HOME", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE",
    "XDG_CACHE_HOME", "HOME", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"};

std::string Get(const EnvMap& env, const char* name) {
  auto it = env.find(name);
  return it == env.end() ? std::string() : it->second;
}

// huggingface_hub's _is_true: "1", "ON", "YES", "TRUE" in any case.
bool IsTrue(const std::string& value) {
  std::string upper = value;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  return upper == "1" || upper == "ON" || upper == "YES" || upper == "TRUE";
}

std::string ExpandUser(const std::string& path, const std::string& home) {
  if (path == "~") return home;
  if (path.rfind("~/", 0) == 0 && !home.empty()) return home + path.substr(1);
  return path;
}

std::string StripTrailingSlashes(std::string text) {
  while (!text.empty() && text.back() == '/') text.pop_back();
  return text;
}

// huggingface_hub's _clean_token: surrounding white space and line breaks go.
std::string CleanToken(const std::string& raw) {
  std::string token;
  for (char c : raw) {
    if (c != '\r' && c != '\n') token += c;
  }
  size_t begin = token.find_first_not_of(" \t");
  if (begin == std::string::npos) return {};
  size_t end = token.find_last_not_of(" \t");
  return token.substr(begin, end - begin + 1);
}

bool ValidEndpoint(const std::string& endpoint) {
  std::string lower = endpoint;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  size_t scheme = lower.rfind("https://", 0) == 0 ? 8 : lower.rfind("http://", 0) == 0 ? 7 : 0;
  if (scheme == 0 || endpoint.size() <= scheme || endpoint.size() > 2048) return false;
  return std::none_of(endpoint.begin(), endpoint.end(),
                      [](unsigned char c) { return c <= 0x20 || c == 0x7f || c == '"' || c == '\\'; });
}

}  // namespace

const char* TokenSourceName(TokenSource source) {
  switch (source) {
    case TokenSource::kHfToken: return "HF_TOKEN";
    case TokenSource::kHuggingFaceHubToken: return "HUGGING_FACE_HUB_TOKEN";
    case TokenSource::kTokenFile: return "the token file";
    case TokenSource::kNone: break;
  }
  return "none";
}

Result<HubEnv> ResolveHubEnv(const EnvMap& env, const TokenFileReader& read_token_file) {
  HubEnv out;
  const std::string home = Get(env, "HOME");

  const std::string endpoint = Get(env, "HF_ENDPOINT");
  if (!endpoint.empty()) {
    if (!ValidEndpoint(endpoint)) {
      return Status::InvalidArgument(
                 fmt::format("HF_ENDPOINT='{}' is not an http:// or https:// URL", endpoint.substr(0, 200)),
                 "set HF_ENDPOINT to the Hub or a mirror, e.g. https://huggingface.co, or unset it")
          .WithKeys("error.hub.bad_endpoint", {{"value", endpoint.substr(0, 200)}}, "error.hub.bad_endpoint.hint");
    }
    out.endpoint = StripTrailingSlashes(endpoint);
    out.endpoint_from_env = true;
  }

  for (const char* name : {"HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"}) {
    // huggingface_hub reads HF_HUB_OFFLINE, and TRANSFORMERS_OFFLINE only when it is unset.
    const std::string value = Get(env, name);
    if (value.empty()) continue;
    out.offline = IsTrue(value);
    if (out.offline) out.offline_variable = name;
    break;
  }

  const std::string xdg = Get(env, "XDG_CACHE_HOME");
  const std::string cache_home = !xdg.empty() ? ExpandUser(xdg, home) : (home.empty() ? "" : home + "/.cache");
  out.hf_home = !Get(env, "HF_HOME").empty() ? ExpandUser(Get(env, "HF_HOME"), home)
                : cache_home.empty()          ? ""
                                              : cache_home + "/huggingface";
  if (!Get(env, "HF_HUB_CACHE").empty()) {
    out.hub_cache = ExpandUser(Get(env, "HF_HUB_CACHE"), home);
  } else if (!Get(env, "HUGGINGFACE_HUB_CACHE").empty()) {
    out.hub_cache = ExpandUser(Get(env, "HUGGINGFACE_HUB_CACHE"), home);
  } else if (!out.hf_home.empty()) {
    out.hub_cache = out.hf_home + "/hub";
  }
  out.hub_cache = StripTrailingSlashes(out.hub_cache);
  out.headers_cache = cache_home.empty() ? "" : cache_home + "/gpuprobe/hub-headers";
  if (out.hub_cache.empty() || out.headers_cache.empty()) {
    return Status::InvalidArgument("no cache directory: none of HF_HUB_CACHE, HF_HOME, XDG_CACHE_HOME or HOME is set",
                                   "set HF_HUB_CACHE (the Hub cache) and XDG_CACHE_HOME (gpuprobe's own cache)")
        .WithKeys("error.hub.no_cache_dir", {}, "error.hub.no_cache_dir.hint");
  }

  out.token_path = !Get(env, "HF_TOKEN_PATH").empty() ? ExpandUser(Get(env, "HF_TOKEN_PATH"), home)
                   : out.hf_home.empty()               ? ""
                                                       : out.hf_home + "/token";
  std::string token = CleanToken(Get(env, "HF_TOKEN"));
  out.token_source = token.empty() ? TokenSource::kNone : TokenSource::kHfToken;
  if (token.empty()) {
    token = CleanToken(Get(env, "HUGGING_FACE_HUB_TOKEN"));
    if (!token.empty()) out.token_source = TokenSource::kHuggingFaceHubToken;
  }
  if (token.empty() && read_token_file && !out.token_path.empty()) {
    if (auto text = read_token_file(out.token_path)) {
      token = CleanToken(*text);
      if (!token.empty()) out.token_source = TokenSource::kTokenFile;
    }
  }
  out.implicit_token_disabled = IsTrue(Get(env, "HF_HUB_DISABLE_IMPLICIT_TOKEN"));
  if (!out.implicit_token_disabled) out.token = token;

  out.ca_bundle = !Get(env, "REQUESTS_CA_BUNDLE").empty() ? Get(env, "REQUESTS_CA_BUNDLE") : Get(env, "CURL_CA_BUNDLE");
  return out;
}

EnvMap ProcessHubVariables() {
  EnvMap env;
  for (const char* name : kVariables) {
    if (const char* value = std::getenv(name)) env[name] = value;
  }
  if (env["HOME"].empty()) {
    // A service account's environment may lack HOME; the password database still knows it.
    std::vector<char> buffer(16384);
    struct passwd entry {};
    struct passwd* found = nullptr;
    if (::getpwuid_r(::getuid(), &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr &&
        found->pw_dir != nullptr) {
      env["HOME"] = found->pw_dir;
    }
  }
  return env;
}

Result<HubEnv> ReadHubEnv() {
  return ResolveHubEnv(ProcessHubVariables(), [](const std::string& path) -> std::optional<std::string> {
    auto text = core::ReadTextFile(path, 4096);
    if (!text.ok()) return std::nullopt;
    return *text;
  });
}

}  // namespace gpuprobe::hub
