// The one network operation a header-only Hub fetch needs: an HTTP GET, optionally of a byte
// range, optionally with a bearer token, with a cap on the body. The interface keeps the
// network behind a seam (STYLE rule 9): the fetch logic is tested with a scripted fake, and
// the libcurl implementation (curl_http_client.h) is tested against a local server.
//
// Thread safety: an HttpClient serves one request at a time unless its implementation says
// otherwise; HttpHeaders and the structs are values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace gpuprobe::hub {

/// Response headers, names kept lower-cased; a repeated header keeps its last value.
class HttpHeaders {
 public:
  /// Adds (or replaces) `name` (any case) with `value` (surrounding white space removed).
  void Set(std::string_view name, std::string_view value);
  /// The value of `name` (any case); nullopt when absent.
  std::optional<std::string> Get(std::string_view name) const;
  const std::vector<std::pair<std::string, std::string>>& all() const { return entries_; }
  bool empty() const { return entries_.empty(); }

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

struct ByteRange {
  std::uint64_t first = 0;  ///< first byte, inclusive
  std::uint64_t last = 0;   ///< last byte, inclusive ("Range: bytes=first-last")
};

struct HttpRequest {
  std::string url;
  std::optional<ByteRange> range;  ///< none: the whole resource
  std::string bearer_token;        ///< non-empty: "Authorization: Bearer <token>" (never sent to another host after a redirect)
  std::uint64_t max_body_bytes = 1 << 20;  ///< more is not read: the transfer stops and body_over_limit is set
};

struct HttpResponse {
  long status = 0;          ///< of the final response, after redirects
  HttpHeaders headers;      ///< of the final response
  /// Of the first response: where a redirect was followed, the Hub's own answer (X-Repo-Commit,
  /// X-Linked-Etag, X-Linked-Size come with the 302, not with the CDN's 206). Same as headers
  /// when there was no redirect.
  HttpHeaders first_headers;
  std::string body;         ///< at most max_body_bytes
  bool body_over_limit = false;   ///< the server sent (or announced) more than max_body_bytes
  bool body_incomplete = false;   ///< the connection ended before the announced length
  std::string final_url;    ///< after redirects
  int redirects = 0;
  std::uint64_t bytes_received = 0;  ///< header and body bytes received, all hops
};

class HttpClient {
 public:
  virtual ~HttpClient() = default;
  /// Performs `request`. Any HTTP status is a response (the caller judges 4xx/5xx). A failure
  /// to get a response at all (name resolution, connection, timeout, TLS, a redirect loop or a
  /// redirect to another scheme) is Unavailable, keyed "error.hub.unreachable", naming the URL
  /// and the reason (hub_errors.h).
  virtual core::Result<HttpResponse> Get(const HttpRequest& request) = 0;
};

}  // namespace gpuprobe::hub
