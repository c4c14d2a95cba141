#include "report/json_document.h"

#include <cmath>

#include "core/version.h"

namespace gpuprobe::report {

nlohmann::json MakeDocument(const std::string& kind) {
  nlohmann::json document;
  document["schema"] = "gpuprobe." + kind + ".v" + std::to_string(kSchemaVersion);
  document["gpuprobe_version"] = core::kVersion;
  return document;
}

std::string RenderJson(const nlohmann::json& document) {
  // dump() writes NaN/inf as null already; replace invalid UTF-8 rather than throw.
  return document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

nlohmann::json NumberOrNull(double value) {
  if (!std::isfinite(value)) return nullptr;
  return value;
}

}  // namespace gpuprobe::report
