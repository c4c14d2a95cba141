// The small part of HTTP/1.1 an exporter needs: reading a GET or HEAD request head from the
// bytes received so far, with limits on its size and number of headers, and writing a
// response. Requests with a body are refused (the exporter takes none). Pure functions, so
// the parser is tested and fuzzed on strings.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuprobe::serve {

/// Limits on one connection's requests (see docs/serve.md for why these values).
struct HttpLimits {
  size_t max_head_bytes = 8192;           ///< request line and headers together
  size_t max_headers = 64;
  size_t max_requests_per_connection = 1000;
  int head_timeout_ms = 5000;             ///< the whole head must arrive within this (defeats byte-a-second clients)
  int idle_timeout_ms = 15000;            ///< a keep-alive connection with no request is closed after this
  int write_timeout_ms = 10000;           ///< a response the client does not read is dropped after this
  size_t max_connections = 512;           ///< more are accepted and closed at once
  int shutdown_drain_ms = 1000;           ///< on stop, responses in flight get this long to finish
};

struct HttpRequest {
  std::string method;   ///< "GET"
  std::string target;   ///< "/metrics" (query string removed)
  std::string version;  ///< "HTTP/1.1"
  std::vector<std::pair<std::string, std::string>> headers;  ///< names lower-cased
  bool keep_alive = true;
};

struct HttpParse {
  enum class State { kIncomplete, kComplete, kError } state = State::kIncomplete;
  size_t consumed = 0;     ///< bytes of the input the request used (kComplete)
  int error_status = 0;    ///< 400, 405, 413, 414, 431, 501 or 505 (kError)
  HttpRequest request;     ///< kComplete
};

/// Reads one request head from the start of `input`. kIncomplete when more bytes are needed
/// (and the limits are not yet passed); kError with the status to answer (and close) when the
/// head is malformed, too large, has too many headers, is not GET/HEAD, or announces a body.
HttpParse ParseHttpRequest(std::string_view input, const HttpLimits& limits);

/// A complete response: status line, Content-Type, Content-Length, Connection, the body
/// (left out for HEAD, with the length kept). `extra_headers` are lines without CRLF.
std::string HttpResponse(int status, std::string_view content_type, std::string_view body, bool keep_alive, bool head_only,
                         const std::vector<std::string>& extra_headers = {});

/// "OK", "Not Found", ... for the statuses this server sends.
const char* HttpReason(int status);

}  // namespace gpuprobe::serve
