#include "app/report_file.h"

#include <sys/stat.h>

#include <fmt/format.h>

#include "core/file_io.h"

namespace gpuprobe::app {

bool IsGpuprobeReport(const std::string& html) {
  if (html.rfind("<!DOCTYPE html>", 0) != 0) return false;
  size_t head_end = html.find("</head>");
  size_t tag = html.find("<meta name=\"generator\" content=\"gpuprobe\">");
  return tag != std::string::npos && head_end != std::string::npos && tag < head_end && tag < 512;
}

core::Status WriteReportFile(const std::string& path, const std::string& html, bool force) {
  struct stat info {};
  if (!force && ::lstat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0) {
    auto existing = core::ReadTextFile(path, 64ull << 20);
    if (!existing.ok() || !IsGpuprobeReport(*existing)) {
      return core::Status::InvalidArgument(fmt::format("'{}' exists and is not a gpuprobe report: not replacing it", path),
                                           "choose another file with -o, move that one away, or add --force")
          .WithKeys("report.error.foreign_file", {{"path", path}}, "report.error.foreign_file.hint");
    }
  }
  return core::WriteFileAtomically(path, html);
}

}  // namespace gpuprobe::app
