#include "hub/hub_names.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace gpuprobe::hub {
namespace {

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

bool IsNamePart(std::string_view part) {
  if (part.empty() || !std::all_of(part.begin(), part.end(), IsNameChar)) return false;
  // The Hub's \b...\b: a part starts and ends with a letter, digit or '_'.
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  return word(part.front()) && word(part.back());
}

}  // namespace

bool IsRepoId(std::string_view text) {
  if (text.empty() || text.size() > 96) return false;
  if (text.find("--") != std::string_view::npos || text.find("..") != std::string_view::npos) return false;
  size_t slash = text.find('/');
  if (slash == std::string_view::npos) return IsNamePart(text);
  if (text.find('/', slash + 1) != std::string_view::npos) return false;
  return IsNamePart(text.substr(0, slash)) && IsNamePart(text.substr(slash + 1));
}

core::Status ValidateRepoId(std::string_view repo_id) {
  if (IsRepoId(repo_id)) return core::Status::Ok();
  const std::string shown(repo_id.substr(0, 200));
  return core::Status::InvalidArgument(fmt::format("'{}' is not a Hugging Face model id (ORG/NAME)", shown),
                                       "write it as on the model's Hub page, e.g. Qwen/Qwen3-8B")
      .WithKeys("error.hub.bad_repo_id", {{"repo", shown}}, "error.hub.bad_repo_id.hint");
}

core::Status ValidateRevision(std::string_view revision) {
  bool ok = !revision.empty() && revision.size() <= 255 && revision.front() != '/' && revision.front() != '-' &&
            revision.find("..") == std::string_view::npos &&
            std::all_of(revision.begin(), revision.end(), [](char c) { return c > 0x20 && c < 0x7f && c != '\\'; });
  if (ok) return core::Status::Ok();
  const std::string shown(revision.substr(0, 200));
  return core::Status::InvalidArgument(fmt::format("'{}' is not a revision (a branch, tag or commit)", shown))
      .WithKeys("error.hub.bad_revision", {{"revision", shown}});
}

bool IsCommitHash(std::string_view text) {
  return text.size() == 40 &&
         std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool IsSafePathComponent(std::string_view text) {
  return !text.empty() && text.size() <= 255 && text != "." && text != ".." &&
         std::all_of(text.begin(), text.end(), IsNameChar);
}

std::string RepoFolderName(std::string_view repo_id) {
  std::string folder = "models--";
  for (char c : repo_id) {
    if (c == '/') {
      folder += "--";
    } else {
      folder += c;
    }
  }
  return folder;
}

std::string PercentEncode(std::string_view text, bool keep_slash) {
  std::string out;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
      out += c;
    } else {
      out += fmt::format("%{:02X}", u);
    }
  }
  return out;
}

std::string ResolveUrl(std::string_view endpoint, std::string_view repo_id, std::string_view revision,
                       std::string_view filename) {
  return fmt::format("{}/{}/resolve/{}/{}", endpoint, repo_id, PercentEncode(revision, false),
                     PercentEncode(filename, true));
}

std::string NormalizeEtag(std::string_view etag) {
  while (!etag.empty() && (etag.front() == ' ' || etag.front() == '\t')) etag.remove_prefix(1);
  while (!etag.empty() && (etag.back() == ' ' || etag.back() == '\t')) etag.remove_suffix(1);
  if (etag.rfind("W/", 0) == 0) etag.remove_prefix(2);
  while (!etag.empty() && etag.front() == '"') etag.remove_prefix(1);
  while (!etag.empty() && etag.back() == '"') etag.remove_suffix(1);
  return std::string(etag);
}

}  // namespace gpuprobe::hub
