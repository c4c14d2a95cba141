// The exporter's HTTP server: one thread, an epoll loop over non-blocking sockets, so no
// client can hold a worker. A client that sends its request one byte a second is cut off
// when its head is not complete within HttpLimits::head_timeout_ms, while every other
// connection is served in between; heads past max_head_bytes or max_headers are answered
// 431 and closed; connections past max_connections are closed at accept; keep-alive is capped
// per connection and by an idle timeout; a client that does not read its response is dropped
// after write_timeout_ms. The listening socket has SO_REUSEADDR (a restart does not wait for
// TIME_WAIT) but not SO_REUSEPORT, so a second server on the same port fails to bind instead
// of sharing it. Stopping is bounded: responses in flight get shutdown_drain_ms.
//
// Thread safety: Run() on one thread; the handler runs on that thread and must not block
// (hand it pre-rendered content).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "serve/http_request.h"

namespace gpuprobe::serve {

struct HttpReply {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::string> headers;  ///< extra header lines, without CRLF
};

using HttpHandler = std::function<HttpReply(const HttpRequest&)>;

/// What the loop saw, for the log line at exit and for tests.
struct HttpServerStats {
  std::uint64_t accepted = 0, requests = 0, refused_over_limit = 0, timed_out = 0, bad_requests = 0;
};

class HttpServer {
 public:
  /// Listens on `host`:`port` (port 0: a free one; host "0.0.0.0" or "::" for every
  /// interface). Unavailable naming the address and the reason ("address already in use",
  /// "cannot assign requested address", ...); InvalidArgument for a host that does not resolve.
  static core::Result<std::unique_ptr<HttpServer>> Bind(const std::string& host, int port, const HttpLimits& limits);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// The port listened on (the one picked when 0 was asked).
  int port() const { return port_; }

  /// Serves until `stop_fd` is readable (a byte written to a pipe), then stops accepting,
  /// lets responses in flight finish for at most limits.shutdown_drain_ms, closes every
  /// connection and returns. IoError when epoll itself fails.
  core::Status Run(const HttpHandler& handler, int stop_fd);

  const HttpServerStats& stats() const { return stats_; }

 private:
  struct Connection;
  HttpServer(int listen_fd, int port, const HttpLimits& limits);
  void Accept();
  void OnReadable(Connection* c, const HttpHandler& handler);
  void Process(Connection* c, const HttpHandler& handler);
  bool Flush(Connection* c);  ///< false when the connection was closed
  void Close(int fd);
  void SweepDeadlines();
  void Watch(Connection* c);

  int listen_fd_ = -1, epoll_fd_ = -1, port_ = 0;
  HttpLimits limits_;
  bool stopping_ = false;
  HttpServerStats stats_;
  std::vector<std::unique_ptr<Connection>> connections_;  ///< indexed by fd
  size_t open_ = 0;
};

}  // namespace gpuprobe::serve
