#include "checkpoint/checkpoint_files.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

#include <fmt/format.h>

#include "core/file_io.h"
#include "core/strings.h"

namespace gpuprobe::checkpoint {

namespace fs = std::filesystem;
using core::Result;
using core::Status;

namespace {

constexpr std::uint64_t kMaxHeaderBytes = 100ull << 20;  // safetensors' own limit is 100 MB
constexpr size_t kMaxEntries = 100000;

using core::EndsWith;

// A regular file's size, refusing FIFOs and devices (a read could block or never end).
Result<std::uint64_t> RegularFileSize(const std::string& path) {
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) return Status::InvalidArgument(fmt::format("{}: no such file", path))
      .WithKeys("error.checkpoint.no_file", {{"path", path}});
  if (fs::is_directory(status)) return Status::InvalidArgument(fmt::format("{}: is a directory", path))
      .WithKeys("error.checkpoint.directory", {{"path", path}});
  if (!fs::is_regular_file(status)) return Status::InvalidArgument(fmt::format("{}: not a regular file", path))
      .WithKeys("error.checkpoint.not_regular", {{"path", path}});
  std::uint64_t size = fs::file_size(path, ec);
  if (ec) return Status::InvalidArgument(fmt::format("{}: cannot read its size ({})", path, ec.message()))
      .WithKeys("error.checkpoint.size", {{"path", path}, {"reason", ec.message()}});
  return size;
}

Status ReadAt(std::ifstream& in, const std::string& path, std::uint64_t offset, std::uint64_t n, std::string& out) {
  out.resize(n);
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(out.data(), static_cast<std::streamsize>(n));
  if (static_cast<std::uint64_t>(in.gcount()) != n) {
    return Status::InvalidArgument(fmt::format("{}: could not read {} bytes at offset {}", path, n, offset))
        .WithKeys("error.checkpoint.short_read", {{"path", path}, {"bytes", std::to_string(n)}, {"offset", std::to_string(offset)}});
  }
  return Status::Ok();
}

}  // namespace

bool PathExists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

bool IsDirectory(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

Result<CheckpointFiles> ScanDirectory(const std::string& directory) {
  std::error_code ec;
  fs::directory_iterator it(directory, ec);
  if (ec) return Status::InvalidArgument(fmt::format("{}: cannot list the directory ({})", directory, ec.message()))
      .WithKeys("error.checkpoint.list", {{"path", directory}, {"reason", ec.message()}});
  CheckpointFiles files;
  files.directory = directory;
  size_t entries = 0;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) return Status::InvalidArgument(fmt::format("{}: cannot list the directory ({})", directory, ec.message()))
        .WithKeys("error.checkpoint.list", {{"path", directory}, {"reason", ec.message()}});
    if (++entries > kMaxEntries) {
      return Status::InvalidArgument(fmt::format("{}: more than {} entries; not a checkpoint directory", directory, kMaxEntries))
          .WithKeys("error.checkpoint.too_many_entries", {{"path", directory}, {"limit", std::to_string(kMaxEntries)}});
    }
    // Hub snapshots hold symlinks into blobs/: follow them (status, not symlink_status).
    const std::string name = it->path().filename().string();
    const std::string path = it->path().string();
    if (!it->is_regular_file(ec)) continue;
    if (name == "config.json") files.config_path = path;
    if (EndsWith(name, ".safetensors")) files.safetensors.push_back(path);
    if (EndsWith(name, ".gguf")) files.gguf.push_back(path);
  }
  std::sort(files.safetensors.begin(), files.safetensors.end());
  std::sort(files.gguf.begin(), files.gguf.end());
  return files;
}

Result<HeaderBytes> ReadSafetensorsHeader(const std::string& path) {
  std::uint64_t size = 0;
  GPUPROBE_ASSIGN_OR_RETURN(size, RegularFileSize(path));
  if (size < 8) return Status::InvalidArgument(fmt::format("{}: {} bytes, too short for a safetensors file", path, size))
      .WithKeys("error.checkpoint.safetensors_short", {{"path", path}, {"bytes", std::to_string(size)}});
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::InvalidArgument(fmt::format("{}: cannot be opened", path))
      .WithKeys("error.checkpoint.open", {{"path", path}});
  std::string length_bytes;
  GPUPROBE_RETURN_IF_ERROR(ReadAt(in, path, 0, 8, length_bytes));
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(length_bytes[static_cast<size_t>(i)]);
  if (n > kMaxHeaderBytes) {
    return Status::InvalidArgument(fmt::format("{}: header length {} is beyond the 100 MiB limit (not a safetensors file?)", path, n))
        .WithKeys("error.checkpoint.header_limit", {{"path", path}, {"length", std::to_string(n)}});
  }
  if (n > size - 8) {
    return Status::InvalidArgument(fmt::format("{}: header length {} runs past the end of the {}-byte file", path, n, size))
        .WithKeys("error.checkpoint.header_past_end", {{"path", path}, {"length", std::to_string(n)}, {"bytes", std::to_string(size)}});
  }
  HeaderBytes out;
  out.file_size = size;
  out.data_bytes = size - 8 - n;
  GPUPROBE_RETURN_IF_ERROR(ReadAt(in, path, 8, n, out.bytes));
  return out;
}

Result<HeaderBytes> ReadFilePrefix(const std::string& path, std::uint64_t max_bytes) {
  std::uint64_t size = 0;
  GPUPROBE_ASSIGN_OR_RETURN(size, RegularFileSize(path));
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::InvalidArgument(fmt::format("{}: cannot be opened", path))
      .WithKeys("error.checkpoint.open", {{"path", path}});
  HeaderBytes out;
  out.file_size = size;
  struct stat st {};
  out.disk_bytes = ::stat(path.c_str(), &st) == 0 && st.st_blocks > 0 ? static_cast<std::uint64_t>(st.st_blocks) * 512 : size;
  GPUPROBE_RETURN_IF_ERROR(ReadAt(in, path, 0, std::min(size, max_bytes), out.bytes));
  return out;
}

std::vector<std::string> HubCacheRoots() {
  std::vector<std::string> roots;
  auto env = [](const char* name) -> std::string {
    const char* value = std::getenv(name);
    return value != nullptr ? std::string(value) : std::string();
  };
  if (!env("HF_HUB_CACHE").empty()) roots.push_back(env("HF_HUB_CACHE"));
  if (!env("HF_HOME").empty()) roots.push_back(env("HF_HOME") + "/hub");
  if (!env("XDG_CACHE_HOME").empty()) roots.push_back(env("XDG_CACHE_HOME") + "/huggingface/hub");
  if (!env("HOME").empty()) roots.push_back(env("HOME") + "/.cache/huggingface/hub");
  return roots;
}

std::optional<std::string> FindHubSnapshot(const std::string& repo_id) {
  auto slash = repo_id.find('/');
  if (slash == std::string::npos || repo_id.find('/', slash + 1) != std::string::npos) return std::nullopt;
  const std::string folder = "models--" + repo_id.substr(0, slash) + "--" + repo_id.substr(slash + 1);
  for (const std::string& root : HubCacheRoots()) {
    const std::string repo = root + "/" + folder;
    if (!IsDirectory(repo + "/snapshots")) continue;
    // refs/main names the revision the Hub client last resolved for "main".
    auto ref = core::ReadTextFile(repo + "/refs/main", 256);
    if (ref.ok()) {
      std::string revision = *ref;
      while (!revision.empty() && (revision.back() == '\n' || revision.back() == '\r')) revision.pop_back();
      const std::string snapshot = repo + "/snapshots/" + revision;
      if (revision.find('/') == std::string::npos && PathExists(snapshot + "/config.json")) return snapshot;
    }
    std::error_code ec;
    std::optional<std::string> newest;
    fs::file_time_type newest_time;
    for (fs::directory_iterator it(repo + "/snapshots", ec), end; !ec && it != end; it.increment(ec)) {
      const std::string snapshot = it->path().string();
      if (!PathExists(snapshot + "/config.json")) continue;
      auto time = fs::last_write_time(it->path(), ec);
      if (ec) continue;
      if (!newest || time > newest_time) {
        newest = snapshot;
        newest_time = time;
      }
    }
    if (newest) return newest;
  }
  return std::nullopt;
}

}  // namespace gpuprobe::checkpoint
