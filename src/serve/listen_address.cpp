#include "serve/listen_address.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <charconv>
#include <cstring>

#include <fmt/format.h>

namespace gpuprobe::serve {
namespace {

bool IsLoopback(const sockaddr* address) {
  if (address->sa_family == AF_INET) {
    // The whole 127.0.0.0/8 block is loopback (RFC 1122), not only 127.0.0.1.
    std::uint32_t ip = ntohl(reinterpret_cast<const sockaddr_in*>(address)->sin_addr.s_addr);
    return (ip >> 24) == 127;
  }
  if (address->sa_family == AF_INET6) {
    const in6_addr& ip = reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr;
    if (IN6_IS_ADDR_LOOPBACK(&ip)) return true;
    return IN6_IS_ADDR_V4MAPPED(&ip) && ip.s6_addr[12] == 127;
  }
  return false;
}

}  // namespace

core::Result<ListenAddress> ParseListen(const std::string& text) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    return core::Status::InvalidArgument(fmt::format("--listen '{}' must be HOST:PORT, e.g. 127.0.0.1:9400", text))
        .WithKeys("error.listen.form", {{"value", text}});
  }
  ListenAddress out;
  out.host = text.substr(0, colon);
  std::string port = text.substr(colon + 1);
  if (out.host.size() >= 2 && out.host.front() == '[' && out.host.back() == ']') {
    out.host = out.host.substr(1, out.host.size() - 2);
  } else if (out.host.find(':') != std::string::npos) {
    return core::Status::InvalidArgument(fmt::format("--listen '{}': write an IPv6 address in brackets, e.g. [::1]:9400", text))
        .WithKeys("error.listen.ipv6", {{"value", text}});
  }
  if (out.host.empty()) {
    return core::Status::InvalidArgument(fmt::format("--listen '{}' names no host", text)).WithKeys("error.listen.no_host", {{"value", text}});
  }
  auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), out.port);
  if (port.empty() || error != std::errc() || end != port.data() + port.size() || out.port < 0 || out.port > 65535) {
    return core::Status::InvalidArgument(fmt::format("--listen '{}': the port must be a number from 0 to 65535", text))
        .WithKeys("error.listen.port", {{"value", text}});
  }
  return out;
}

bool IsLoopbackHost(const std::string& host) {
  addrinfo hints = {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (host.empty() || getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0) return false;
  bool all = found != nullptr;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) all = all && IsLoopback(a->ai_addr);
  freeaddrinfo(found);
  return all;
}

}  // namespace gpuprobe::serve
