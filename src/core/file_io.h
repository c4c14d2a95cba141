// Reading user-supplied files with the checks a CLI needs: a clear error for a missing
// path, a directory, an unreadable file or one too large to be what it claims, and "-" for
// standard input.
//
// Thread safety: functions are reentrant.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"

namespace gpuprobe::core {

/// Reads the whole file at `path` ("-" reads standard input). InvalidArgument naming the path
/// when it does not exist, is a directory or anything but a regular file (a FIFO or a device
/// would block or never end), cannot be opened, or exceeds `max_bytes`.
Result<std::string> ReadTextFile(const std::string& path, std::uint64_t max_bytes);

/// Reads a small system file such as /proc/cpuinfo; an empty optional-like error when absent.
Result<std::string> ReadSystemFile(const std::string& path, std::uint64_t max_bytes = 1 << 20);

/// Writes `content` to `path` through a temporary file in the same directory and a rename,
/// so a crash or a full disk leaves the old file (if any) untouched and no partial file
/// behind. A replaced file keeps its mode; a new one gets 0666 less the umask. InvalidArgument
/// naming the path (nothing written) when it is a directory, a symbolic link, a FIFO, device
/// or socket, or its directory does not exist; IoError for a full disk or a failed write.
Status WriteFileAtomically(const std::string& path, const std::string& content);

}  // namespace gpuprobe::core
