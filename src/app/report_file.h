// Writing the HTML report without destroying anything that is not ours: an existing file is
// replaced only when it is a gpuprobe report (or with --force), never through a link, never
// a pipe or a device, always atomically and keeping the file's permissions.
//
// Thread safety: reentrant.
#pragma once

#include <string>

#include "core/status.h"

namespace gpuprobe::app {

/// Whether `html` was written by gpuprobe's report: it starts with our doctype and carries our
/// generator tag in its head (a page that merely quotes the tag in its body does not count).
bool IsGpuprobeReport(const std::string& html);

/// Writes `html` to `path` (core::WriteFileAtomically). Refuses, with InvalidArgument and the
/// file untouched, an existing non-empty regular file that is not a gpuprobe report unless
/// `force`; links, FIFOs and devices are refused even with `force`.
core::Status WriteReportFile(const std::string& path, const std::string& html, bool force);

}  // namespace gpuprobe::app
