#include "serve/http_server.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include <fmt/format.h>

namespace gpuprobe::serve {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kReadChunk = 16384;
constexpr int kTickMs = 100;  // how often deadlines are checked

std::chrono::milliseconds Ms(int ms) { return std::chrono::milliseconds(ms); }

}  // namespace

struct HttpServer::Connection {
  int fd = -1;
  std::string in, out;
  size_t out_offset = 0;
  std::uint64_t served = 0;
  bool close_after_write = false;
  Clock::time_point last_activity, head_started, write_started;
};

core::Result<std::unique_ptr<HttpServer>> HttpServer::Bind(const std::string& host, int port, const HttpLimits& limits) {
  addrinfo hints = {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  std::string service = std::to_string(port);
  int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &found);
  if (rc != 0) {
    return core::Status::InvalidArgument(fmt::format("cannot listen on '{}': {}", host, gai_strerror(rc)))
        .WithKeys("error.listen.resolve", {{"host", host}, {"detail", gai_strerror(rc)}});
  }
  std::string last_error = "no address";
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      last_error = std::strerror(errno);
      continue;
    }
    // SO_REUSEADDR only: a restart may bind while old connections sit in TIME_WAIT, but a
    // second server on a port already listened on fails (SO_REUSEPORT would let it share).
    int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, 1024) != 0) {
      last_error = std::strerror(errno);
      close(fd);
      continue;
    }
    sockaddr_storage bound = {};
    socklen_t length = sizeof bound;
    getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
    int actual = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                                   : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    freeaddrinfo(found);
    return std::unique_ptr<HttpServer>(new HttpServer(fd, actual, limits));
  }
  freeaddrinfo(found);
  return core::Status::Unavailable(fmt::format("cannot listen on {}:{}: {}", host, port, last_error),
                                   "another program (or another gpuprobe serve) may hold the port: pick another with --listen HOST:PORT")
      .WithKeys("error.listen.bind", {{"host", host}, {"port", std::to_string(port)}, {"detail", last_error}}, "error.listen.bind.hint");
}

HttpServer::HttpServer(int listen_fd, int port, const HttpLimits& limits) : listen_fd_(listen_fd), port_(port), limits_(limits) {}

HttpServer::~HttpServer() {
  for (auto& c : connections_) {
    if (c) close(c->fd);
  }
  if (listen_fd_ >= 0) close(listen_fd_);
  if (epoll_fd_ >= 0) close(epoll_fd_);
}

void HttpServer::Watch(Connection* c) {
  epoll_event ev = {};
  // While a response waits to be written, stop reading: a client that pipelines requests
  // without reading the answers cannot make the server buffer without bound.
  ev.events = c->out.empty() ? EPOLLIN : EPOLLOUT;
  ev.data.fd = c->fd;
  epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, c->fd, &ev);
}

void HttpServer::Close(int fd) {
  if (fd < 0 || static_cast<size_t>(fd) >= connections_.size() || !connections_[static_cast<size_t>(fd)]) return;
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  close(fd);
  connections_[static_cast<size_t>(fd)].reset();
  --open_;
}

void HttpServer::Accept() {
  while (true) {
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN (all taken), or a transient error: the next event retries
    if (open_ >= limits_.max_connections || stopping_) {
      static const char kBusy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
      ssize_t ignored = send(fd, kBusy, sizeof kBusy - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
      (void)ignored;
      close(fd);
      ++stats_.refused_over_limit;
      continue;
    }
    int yes = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);  // small responses must not wait on delayed ACKs
    if (static_cast<size_t>(fd) >= connections_.size()) connections_.resize(static_cast<size_t>(fd) + 1);
    auto c = std::make_unique<Connection>();
    c->fd = fd;
    c->last_activity = Clock::now();
    epoll_event ev = {};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
      close(fd);
      continue;
    }
    connections_[static_cast<size_t>(fd)] = std::move(c);
    ++open_;
    ++stats_.accepted;
  }
}

bool HttpServer::Flush(Connection* c) {
  while (c->out_offset < c->out.size()) {
    ssize_t n = send(c->fd, c->out.data() + c->out_offset, c->out.size() - c->out_offset, MSG_NOSIGNAL);
    if (n > 0) {
      c->out_offset += static_cast<size_t>(n);
      c->last_activity = Clock::now();
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      Watch(c);
      return true;
    }
    if (n < 0 && errno == EINTR) continue;
    Close(c->fd);
    return false;
  }
  c->out.clear();
  c->out_offset = 0;
  if (c->close_after_write) {
    Close(c->fd);
    return false;
  }
  Watch(c);
  return true;
}

void HttpServer::Process(Connection* c, const HttpHandler& handler) {
  while (!c->close_after_write && !c->in.empty()) {
    HttpParse p = ParseHttpRequest(c->in, limits_);
    if (p.state == HttpParse::State::kIncomplete) break;
    if (c->out.empty()) c->write_started = Clock::now();
    if (p.state == HttpParse::State::kError) {
      ++stats_.bad_requests;
      std::vector<std::string> extra;
      if (p.error_status == 405) extra.push_back("Allow: GET, HEAD");
      c->out += HttpResponse(p.error_status, "text/plain; charset=utf-8", std::string(HttpReason(p.error_status)) + "\n", false, false, extra);
      c->close_after_write = true;
      c->in.clear();
      break;
    }
    c->in.erase(0, p.consumed);
    ++c->served;
    ++stats_.requests;
    bool keep = p.request.keep_alive && c->served < limits_.max_requests_per_connection && !stopping_;
    HttpReply reply = handler(p.request);
    c->out += HttpResponse(reply.status, reply.content_type, reply.body, keep, p.request.method == "HEAD", reply.headers);
    if (!keep) c->close_after_write = true;
    c->head_started = Clock::now();  // the next request's head starts now, if bytes are waiting
  }
}

void HttpServer::OnReadable(Connection* c, const HttpHandler& handler) {
  char buffer[kReadChunk];
  bool peer_closed = false;
  // Read what is there, but no more than a head can hold: the rest waits in the kernel.
  while (c->in.size() <= limits_.max_head_bytes) {
    ssize_t n = recv(c->fd, buffer, sizeof buffer, 0);
    if (n > 0) {
      if (c->in.empty()) c->head_started = Clock::now();
      c->in.append(buffer, static_cast<size_t>(n));
      c->last_activity = Clock::now();
      continue;
    }
    if (n == 0) peer_closed = true;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) peer_closed = true;
    break;
  }
  int fd = c->fd;
  Process(c, handler);
  if (!c->out.empty()) {
    if (!Flush(c)) return;
  }
  if (peer_closed && connections_[static_cast<size_t>(fd)] && c->out.empty()) Close(fd);
}

void HttpServer::SweepDeadlines() {
  auto now = Clock::now();
  for (auto& slot : connections_) {
    Connection* c = slot.get();
    if (c == nullptr) continue;
    if (!c->out.empty()) {
      if (now - c->write_started > Ms(limits_.write_timeout_ms)) {
        ++stats_.timed_out;
        Close(c->fd);
      }
    } else if (!c->in.empty()) {
      if (now - c->head_started > Ms(limits_.head_timeout_ms)) {
        // The head did not arrive in time (a byte-a-second client): 408, best effort, and close.
        ++stats_.timed_out;
        std::string reply = HttpResponse(408, "text/plain; charset=utf-8", "Request Timeout\n", false, false);
        ssize_t ignored = send(c->fd, reply.data(), reply.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        (void)ignored;
        Close(c->fd);
      }
    } else if (now - c->last_activity > Ms(stopping_ ? 0 : limits_.idle_timeout_ms)) {
      Close(c->fd);
    }
  }
}

core::Status HttpServer::Run(const HttpHandler& handler, int stop_fd) {
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) return core::StatusFromErrnoKeyed("epoll", errno, "error.serve.event_loop", {{"call", "epoll_create1"}});
  for (int fd : {listen_fd_, stop_fd}) {
    epoll_event ev = {};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
      return core::StatusFromErrnoKeyed("epoll", errno, "error.serve.event_loop", {{"call", "epoll_ctl"}});
    }
  }
  Clock::time_point drain_deadline;
  auto last_sweep = Clock::now();
  epoll_event events[256];
  while (true) {
    int n = epoll_wait(epoll_fd_, events, 256, kTickMs);
    if (n < 0 && errno != EINTR) return core::StatusFromErrnoKeyed("epoll_wait", errno, "error.serve.event_loop", {{"call", "epoll_wait"}});
    for (int i = 0; i < n; ++i) {
      int fd = events[i].data.fd;
      if (fd == listen_fd_) {
        Accept();
      } else if (fd == stop_fd) {
        if (!stopping_) {
          stopping_ = true;
          drain_deadline = Clock::now() + Ms(limits_.shutdown_drain_ms);
          epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, listen_fd_, nullptr);
          epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, stop_fd, nullptr);
          close(listen_fd_);
          listen_fd_ = -1;
        }
      } else if (static_cast<size_t>(fd) < connections_.size() && connections_[static_cast<size_t>(fd)]) {
        Connection* c = connections_[static_cast<size_t>(fd)].get();
        if (events[i].events & EPOLLOUT) {
          if (!Flush(c)) continue;
          if (c->out.empty() && !c->in.empty()) {  // pipelined requests were waiting
            Process(c, handler);
            if (!c->out.empty()) Flush(c);
          }
        } else if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
          OnReadable(c, handler);
        }
      }
    }
    auto now = Clock::now();
    if (stopping_ || now - last_sweep >= Ms(kTickMs)) {
      SweepDeadlines();
      last_sweep = now;
    }
    if (stopping_ && (open_ == 0 || now >= drain_deadline)) break;
  }
  for (auto& c : connections_) {
    if (c) Close(c->fd);
  }
  return core::Status::Ok();
}

}  // namespace gpuprobe::serve
