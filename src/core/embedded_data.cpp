#include "core/embedded_data.h"

#include <string>

namespace gpuprobe::core {

Result<std::string_view> EmbeddedFile(std::string_view name) {
  for (const auto& entry : EmbeddedFiles()) {
    if (name == entry.name) return std::string_view(entry.data, entry.size_bytes);
  }
  return Status::Internal("embedded data file '" + std::string(name) + "' is missing from this build")
      .WithKeys("error.embedded.missing", {{"file", std::string(name)}});
}

Status DamagedEmbeddedData(const Status& status, std::string_view name) {
  if (status.ok() || !status.message_key().empty()) return status;
  return status.WithKeys("error.embedded.damaged",
                         {{"file_key", name.empty() ? "embedded.file.none" : "embedded.file.named"},
                          {"name", std::string(name)},
                          {"detail", status.message()}});
}

}  // namespace gpuprobe::core
