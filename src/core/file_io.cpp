#include "core/file_io.h"

#include <algorithm>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <iostream>
#include <iterator>

#include <fmt/format.h>

#include "core/units.h"

namespace gpuprobe::core {
namespace {

// Reads at most max_bytes + 1 so "too large" is detected without reading a huge file whole.
// `path` empty means standard input (its messages say so rather than naming a file).
// `expected_bytes`, a regular file's size, is reserved up front: a big log is copied once, not
// re-grown a doubling at a time.
Result<std::string> ReadStream(std::FILE* file, const std::string& path, std::uint64_t max_bytes,
                               std::uint64_t expected_bytes = 0) {
  const std::string label = path.empty() ? std::string("standard input") : "'" + path + "'";
  std::string data;
  data.reserve(static_cast<size_t>(std::min(expected_bytes, max_bytes) + 1));
  char buffer[65536];
  while (true) {
    size_t n = std::fread(buffer, 1, sizeof buffer, file);
    if (n > 0) data.append(buffer, n);
    if (data.size() > max_bytes) {
      std::string limit = FormatBytesBinary(static_cast<double>(max_bytes));
      Status status = Status::InvalidArgument(fmt::format("{} is larger than {}, too large to be the expected input", label, limit));
      return path.empty() ? status.WithKeys("error.file.stdin_too_large", {{"limit", limit}})
                          : status.WithKeys("error.file.stream_too_large", {{"path", path}, {"limit", limit}});
    }
    if (n < sizeof buffer) break;
  }
  if (std::ferror(file)) {
    return path.empty() ? StatusFromErrnoKeyed("reading " + label, errno, "error.file.stdin_read_failed", {})
                        : StatusFromErrnoKeyed("reading " + label, errno, "error.file.read_failed", {{"path", path}});
  }
  return data;
}

Status NotRegular(const std::string& path) {
  return Status::InvalidArgument(fmt::format("'{}' is not a regular file (a pipe, device or socket)", path),
                                 "save it to a file first, or pipe it in as '-'")
      .WithKeys("error.file.not_regular", {{"path", path}}, "error.file.not_regular.hint");
}

}  // namespace

Result<std::string> ReadTextFile(const std::string& path, std::uint64_t max_bytes) {
  if (path == "-") return ReadStream(stdin, "", max_bytes);
  if (path.empty()) return Status::InvalidArgument("an empty file name was given").WithKeys("error.file.empty_name", {});
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    return StatusFromErrnoKeyed("cannot read '" + path + "'", errno, "error.file.cannot_read", {{"path", path}});
  }
  if (S_ISDIR(info.st_mode)) {
    return Status::InvalidArgument(fmt::format("'{}' is a directory, not a file", path), "give the path of the file inside it")
        .WithKeys("error.file.is_directory", {{"path", path}}, "error.file.is_directory.hint");
  }
  // A FIFO with no writer blocks forever and a device such as /dev/zero never ends: only
  // regular files are read by name (standard input stays available as "-").
  if (!S_ISREG(info.st_mode)) return NotRegular(path);
  if (static_cast<std::uint64_t>(info.st_size) > max_bytes) {
    std::string size = FormatBytesBinary(static_cast<double>(info.st_size));
    std::string limit = FormatBytesBinary(static_cast<double>(max_bytes));
    return Status::InvalidArgument(fmt::format("'{}' is {}, too large to be the expected input (limit {})", path, size, limit))
        .WithKeys("error.file.too_large", {{"path", path}, {"size", size}, {"limit", limit}});
  }
  // O_NONBLOCK: were the file swapped for a FIFO after the stat, the open must not hang.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return StatusFromErrnoKeyed("cannot open '" + path + "'", errno, "error.file.cannot_open", {{"path", path}});
  struct stat opened {};
  if (::fstat(fd, &opened) != 0 || !S_ISREG(opened.st_mode)) {
    ::close(fd);
    return NotRegular(path);
  }
  std::FILE* file = ::fdopen(fd, "rb");
  if (file == nullptr) {
    int error = errno;
    ::close(fd);
    return StatusFromErrnoKeyed("cannot open '" + path + "'", error, "error.file.cannot_open", {{"path", path}});
  }
  Result<std::string> data = ReadStream(file, path, max_bytes, static_cast<std::uint64_t>(opened.st_size));
  std::fclose(file);
  return data;
}

Result<std::string> ReadSystemFile(const std::string& path, std::uint64_t max_bytes) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    return StatusFromErrnoKeyed("system file: cannot open " + path, errno, "error.file.cannot_open_system", {{"path", path}});
  }
  Result<std::string> data = ReadStream(file, path, max_bytes);
  std::fclose(file);
  return data;
}

Status WriteFileAtomically(const std::string& path, const std::string& content) {
  if (path.empty()) return Status::InvalidArgument("an empty file name was given").WithKeys("error.file.empty_name", {});
  struct stat info {};
  bool exists = ::lstat(path.c_str(), &info) == 0;
  if (exists && S_ISDIR(info.st_mode)) {
    return Status::InvalidArgument(fmt::format("'{}' is a directory", path), "give a file name, e.g. " + path + "/report.html")
        .WithKeys("error.write.is_directory", {{"path", path}}, "error.write.is_directory.hint");
  }
  // Replacing a link would silently redirect the write (or replace the link by a file); a
  // FIFO, device or socket is not a document: refuse all of them, touch nothing.
  if (exists && S_ISLNK(info.st_mode)) {
    return Status::InvalidArgument(fmt::format("'{}' is a symbolic link: not writing through it", path),
                                   "give the real path of the file")
        .WithKeys("error.write.symlink", {{"path", path}}, "error.write.symlink.hint");
  }
  if (exists && !S_ISREG(info.st_mode)) {
    return Status::InvalidArgument(fmt::format("'{}' is not a regular file (a pipe, device or socket): not writing it", path))
        .WithKeys("error.write.not_regular", {{"path", path}});
  }
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  struct stat dir_info {};
  if (::stat(dir.c_str(), &dir_info) != 0 || !S_ISDIR(dir_info.st_mode)) {
    return Status::InvalidArgument(fmt::format("cannot write '{}': directory '{}' does not exist", path, dir))
        .WithKeys("error.write.no_directory", {{"path", path}, {"dir", dir}});
  }
  // A replaced file keeps its permissions (a 0600 file stays private); a new one gets the
  // usual 0666 less the umask, like any file the user creates.
  mode_t mode = 0;
  if (exists) {
    mode = info.st_mode & 07777;
  } else {
    mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  std::string temp = path + ".tmp-XXXXXX";
  int fd = ::mkstemp(temp.data());
  if (fd < 0) return StatusFromErrnoKeyed("cannot write '" + path + "'", errno, "error.write.failed", {{"path", path}});
  if (::fchmod(fd, mode) != 0) {
    int error = errno;
    ::close(fd);
    ::unlink(temp.c_str());
    return StatusFromErrnoKeyed("cannot write '" + path + "'", error, "error.write.failed", {{"path", path}});
  }
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int error = n == 0 ? ENOSPC : errno;
      ::close(fd);
      ::unlink(temp.c_str());
      return StatusFromErrnoKeyed("writing '" + path + "'", error, "error.write.failed", {{"path", path}});
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int error = errno;
    ::unlink(temp.c_str());
    return StatusFromErrnoKeyed("writing '" + path + "'", error, "error.write.failed", {{"path", path}});
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    int error = errno;
    ::unlink(temp.c_str());
    return StatusFromErrnoKeyed("cannot replace '" + path + "'", error, "error.write.cannot_replace", {{"path", path}});
  }
  return Status::Ok();
}

}  // namespace gpuprobe::core
