#include "hub/hub_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/file_io.h"
#include "core/json_input.h"
#include "hub/hub_names.h"

namespace gpuprobe::hub {
namespace {

namespace fs = std::filesystem;
using core::Status;

constexpr const char* kSidecarSchema = "gpuprobe.hub_header.v1";

// A ref or commit file holds 40 hex digits; anything far longer is not one.
constexpr std::uint64_t kMaxRefBytes = 256;

Status MakeDirectories(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return CacheWriteError(dir, ec.value());
  return Status::Ok();
}

bool IsRegularFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);  // follows the snapshot's symlinks
}

bool EntryExists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

bool IsDanglingLink(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode) && ::stat(path.c_str(), &st) != 0;
}

std::string Parent(const std::string& path) { return fs::path(path).parent_path().string(); }

}  // namespace

Status CacheWriteError(const std::string& path, int error) {
  return Status::IoError(fmt::format("cannot write the cache at {}: {}", path, std::strerror(error)),
                         "set HF_HUB_CACHE (the Hub cache) and XDG_CACHE_HOME (gpuprobe's headers) to writable "
                         "directories")
      .WithKeys("error.hub.cache_write",
                {{"path", path}, {"reason_key", core::ErrnoReasonKey(error)}, {"errno", std::to_string(error)}},
                "error.hub.cache_write.hint");
}

std::string SavedHeaderToJson(const SavedHeader& saved) {
  nlohmann::json doc = {{"schema", kSidecarSchema},
                        {"file", saved.file},
                        {"url", saved.url},
                        {"etag", saved.etag},
                        {"file_size_bytes", saved.file_size_bytes},
                        {"header_length_bytes", saved.header.size()},
                        {"header", saved.header}};
  // Headers are parsed as JSON before they are saved, so they are valid UTF-8 and `ignore`
  // never drops a byte; it only keeps a dump from throwing.
  return doc.dump(1, ' ', false, nlohmann::json::error_handler_t::ignore) + "\n";
}

core::Result<SavedHeader> SavedHeaderFromJson(const std::string& text, const std::string& path) {
  // What exactly is wrong matters less than what to do: the file is gpuprobe's, so delete it.
  auto bad = [&path](const std::string& /*what*/) {
    return Status::ParseError(
               fmt::format("{}: not a shard header saved by gpuprobe (damaged, or written by another program)", path),
               "delete the file; the next run fetches the header again")
        .WithKeys("error.hub.sidecar_bad", {{"path", path}}, "error.hub.sidecar_bad.hint");
  };
  auto parsed = core::ParseJsonInput(text, path);
  if (!parsed.ok()) return bad("not valid JSON");
  const nlohmann::json& doc = *parsed;
  if (!doc.is_object() || doc.value("schema", "") != kSidecarSchema) return bad("no schema " + std::string(kSidecarSchema));
  for (const char* key : {"file", "url", "etag", "header"}) {
    if (!doc.contains(key) || !doc[key].is_string()) return bad(fmt::format("'{}' is not a string", key));
  }
  for (const char* key : {"file_size_bytes", "header_length_bytes"}) {
    if (!doc.contains(key) || !doc[key].is_number_unsigned()) return bad(fmt::format("'{}' is not a size", key));
  }
  SavedHeader saved;
  saved.file = doc["file"].get<std::string>();
  saved.url = doc["url"].get<std::string>();
  saved.etag = doc["etag"].get<std::string>();
  saved.header = doc["header"].get<std::string>();
  saved.file_size_bytes = doc["file_size_bytes"].get<std::uint64_t>();
  if (doc["header_length_bytes"].get<std::uint64_t>() != saved.header.size()) return bad("the header's length differs");
  if (saved.file_size_bytes < 8 + saved.header.size()) return bad("the file size is below 8 + the header");
  return saved;
}

HubCache::HubCache(const HubEnv& env, const std::string& repo_id)
    : repo_dir_(env.hub_cache + "/" + RepoFolderName(repo_id)),
      sidecar_dir_(env.headers_cache + "/" + RepoFolderName(repo_id)) {}

std::string HubCache::SnapshotDir(const std::string& commit) const { return repo_dir_ + "/snapshots/" + commit; }

std::string HubCache::SnapshotFile(const std::string& commit, const std::string& file) const {
  return SnapshotDir(commit) + "/" + file;
}

std::string HubCache::SidecarPath(const std::string& commit, const std::string& shard) const {
  return sidecar_dir_ + "/" + commit + "/" + shard + ".header.json";
}

std::optional<std::string> HubCache::ReadRef(const std::string& revision) const {
  auto text = core::ReadTextFile(repo_dir_ + "/refs/" + revision, kMaxRefBytes);
  if (!text.ok()) return std::nullopt;
  std::string commit = *text;
  while (!commit.empty() && (commit.back() == '\n' || commit.back() == '\r' || commit.back() == ' ')) commit.pop_back();
  if (!IsSafePathComponent(commit)) return std::nullopt;
  return commit;
}

Status HubCache::WriteRef(const std::string& revision, const std::string& commit) const {
  const std::string path = repo_dir_ + "/refs/" + revision;
  if (EntryExists(path)) return Status::Ok();
  GPUPROBE_RETURN_IF_ERROR(MakeDirectories(Parent(path)));
  return core::WriteFileAtomically(path, commit);  // huggingface_hub writes no newline
}

bool HubCache::HasFile(const std::string& commit, const std::string& file) const {
  return IsRegularFile(SnapshotFile(commit, file));
}

Status HubCache::WriteFile(const std::string& commit, const std::string& file, const std::string& etag,
                           const std::string& content) const {
  const std::string blob = repo_dir_ + "/blobs/" + etag;
  const std::string pointer = SnapshotFile(commit, file);
  if (IsRegularFile(pointer)) return Status::Ok();
  GPUPROBE_RETURN_IF_ERROR(MakeDirectories(repo_dir_ + "/blobs"));
  GPUPROBE_RETURN_IF_ERROR(MakeDirectories(SnapshotDir(commit)));
  if (!IsRegularFile(blob)) GPUPROBE_RETURN_IF_ERROR(core::WriteFileAtomically(blob, content));
  // A link whose blob was deleted is not a user's file: it is made again.
  if (IsDanglingLink(pointer)) ::unlink(pointer.c_str());
  const std::string target = "../../blobs/" + etag;
  if (::symlink(target.c_str(), pointer.c_str()) == 0 || errno == EEXIST) return Status::Ok();
  // File systems without symlinks (some network and FAT mounts): a copy, as huggingface_hub does.
  return core::WriteFileAtomically(pointer, content);
}

bool HubCache::IsMarkedAbsent(const std::string& commit, const std::string& file) const {
  return IsRegularFile(repo_dir_ + "/.no_exist/" + commit + "/" + file);
}

Status HubCache::MarkAbsent(const std::string& commit, const std::string& file) const {
  const std::string path = repo_dir_ + "/.no_exist/" + commit + "/" + file;
  if (EntryExists(path)) return Status::Ok();
  GPUPROBE_RETURN_IF_ERROR(MakeDirectories(Parent(path)));
  return core::WriteFileAtomically(path, "");
}

bool HubCache::HasSidecar(const std::string& commit, const std::string& shard) const {
  return IsRegularFile(SidecarPath(commit, shard));
}

Status HubCache::WriteSidecar(const std::string& commit, const SavedHeader& saved) const {
  const std::string path = SidecarPath(commit, saved.file);
  if (EntryExists(path)) return Status::Ok();
  GPUPROBE_RETURN_IF_ERROR(MakeDirectories(Parent(path)));
  return core::WriteFileAtomically(path, SavedHeaderToJson(saved));
}

}  // namespace gpuprobe::hub
