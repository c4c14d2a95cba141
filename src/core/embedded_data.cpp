#include "core/embedded_data.h"

#include <string>

namespace gpuprobe::core {

Result<std::string_view> EmbeddedFile(std::string_view name) {
  for (const auto& entry : EmbeddedFiles()) {
    if (name == entry.name) return std::string_view(entry.data, entry.size_bytes);
  }
  return Status::Internal("embedded data file '" + std::string(name) + "' is missing from this build");
}

}  // namespace gpuprobe::core
