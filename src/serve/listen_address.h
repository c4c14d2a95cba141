// Where `gpuprobe serve` listens: HOST:PORT parsed and validated, and whether the host is
// loopback only (127.0.0.0/8, ::1, and IPv4-mapped 127.x) or reachable from other machines,
// which `serve` refuses without --allow-remote.
//
// Thread safety: pure functions apart from name resolution (getaddrinfo) in IsLoopbackHost.
#pragma once

#include <string>

#include "core/status.h"

namespace gpuprobe::serve {

struct ListenAddress {
  std::string host;  ///< without brackets: "127.0.0.1", "::1", "0.0.0.0", "localhost"
  int port = 0;      ///< 0 = pick a free port
};

/// Parses "HOST:PORT" or "[IPv6]:PORT". InvalidArgument naming the text for a missing host or
/// port, or a port outside 0-65535.
core::Result<ListenAddress> ParseListen(const std::string& text);

/// True when every address `host` stands for is a loopback address; false for an unspecified
/// address (0.0.0.0, ::), any other address, or a name that does not resolve.
bool IsLoopbackHost(const std::string& host);

}  // namespace gpuprobe::serve
