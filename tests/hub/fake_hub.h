// A scripted HttpClient for the hub tests (STYLE rule 9), and an in-memory Hub that answers
// as huggingface.co does: files kept in git with 200 + ETag + X-Repo-Commit, safetensors files
// with a 302 to a CDN that serves byte ranges, the Hub's X-Error-Code answers, and the body
// cap applied as the libcurl client applies it.
//
// Thread safety: none; one test at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "hub/http_client.h"

namespace gpuprobe::hub::testing {

/// Answers each request with `handler` and records it.
class FakeHttpClient : public HttpClient {
 public:
  using Handler = std::function<core::Result<HttpResponse>(const HttpRequest&)>;
  explicit FakeHttpClient(Handler handler) : handler_(std::move(handler)) {}
  core::Result<HttpResponse> Get(const HttpRequest& request) override {
    requests.push_back(request);
    return handler_(request);
  }
  std::vector<HttpRequest> requests;

 private:
  Handler handler_;
};

/// A safetensors file's first bytes: the little-endian length of `header` and `header`.
std::string SafetensorsPrefix(const std::string& header, std::uint64_t declared_length);

/// A small real-format safetensors header (a 2-layer Llama, BF16) and its data size.
std::string TinyHeader(std::uint64_t* data_bytes);

class FakeHub {
 public:
  static constexpr const char* kEndpoint = "https://hub.test";
  static constexpr const char* kCommit = "0123456789abcdef0123456789abcdef01234567";

  struct Repo {
    std::map<std::string, std::string> files;  ///< kept in git (config.json, the index)
    struct Lfs {
      std::string prefix;     ///< length + header
      std::uint64_t size = 0; ///< the whole file; bytes past the prefix are zeros
    };
    std::map<std::string, Lfs> lfs;
    std::string gated_token;  ///< non-empty: 401/403 GatedRepo without it
  };

  std::map<std::string, Repo> repos;
  bool ignore_range = false;       ///< answer 200 with the whole file
  bool send_commit = true;         ///< X-Repo-Commit
  std::string commit_header = kCommit;
  std::uint64_t cut_body_after = UINT64_MAX;  ///< a CDN answer breaks off after this many bytes

  /// Adds a single-file model: config.json and model.safetensors with `header`.
  Repo& AddTinyModel(const std::string& repo_id);

  /// The answer to `request` (a Hub URL under kEndpoint or a CDN URL).
  core::Result<HttpResponse> Answer(const HttpRequest& request) const;

  /// A FakeHttpClient answering from this hub.
  FakeHttpClient Client() const {
    return FakeHttpClient([this](const HttpRequest& r) { return Answer(r); });
  }
};

}  // namespace gpuprobe::hub::testing
