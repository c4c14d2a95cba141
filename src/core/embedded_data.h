// Data files under data/ compiled into the binary (cmake/EmbedData.cmake), so gpuprobe runs
// from any directory with nothing installed beside it.
//
// Thread safety: the table is immutable after static initialisation.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpuprobe::core {

struct EmbeddedFileEntry {
  const char* name;  ///< path relative to data/, e.g. "gpu_specs.json"
  const char* data;
  std::size_t size_bytes;
};

/// Every embedded file (defined in the generated source).
const std::vector<EmbeddedFileEntry>& EmbeddedFiles();

/// The contents of data/<name>, or NotFound naming the file (a build problem, not input).
Result<std::string_view> EmbeddedFile(std::string_view name);

/// The error of reading the embedded data/<name> (empty `name`: one of several), said as a
/// damaged build in every language (error.embedded.damaged), its detail kept as the parser
/// wrote it. A status that already has a text key is returned as it is.
Status DamagedEmbeddedData(const Status& status, std::string_view name = {});

}  // namespace gpuprobe::core
