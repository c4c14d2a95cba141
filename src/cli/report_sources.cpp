// Loading saved documents for `report --from`: each file's "schema" says what it is.
#include <fmt/format.h>

#include "cli/machine_summary.h"
#include "core/file_io.h"

namespace gpuprobe::cli {
namespace {

constexpr std::uint64_t kMaxDocumentBytes = 256ull << 20;

core::Status Place(nlohmann::json* slot, const nlohmann::json& doc, const std::string& kind, const std::string& path) {
  if (!slot->is_null()) {
    return core::Status::InvalidArgument(fmt::format("'{}' is a second {} document; give each kind once", path, kind));
  }
  *slot = doc;
  return core::Status::Ok();
}

}  // namespace

core::Result<ReportSources> LoadReportSources(const std::vector<std::string>& paths) {
  ReportSources src;
  for (const auto& path : paths) {
    auto text = core::ReadTextFile(path, kMaxDocumentBytes);
    if (!text.ok()) return text.status();
    nlohmann::json doc = nlohmann::json::parse(*text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
      return core::Status::InvalidArgument(fmt::format("'{}' is not a JSON document", path),
                                           "give a file written by 'gpuprobe bench --json', 'inspect --json', "
                                           "'doctor --json' or 'gpuprobe --json'");
    }
    std::string schema = doc.value("schema", "");
    if (schema == "gpuprobe.bench.v1") {
      if (!doc.contains("results") || !doc["results"].is_array()) {
        return core::Status::InvalidArgument(fmt::format("'{}' is a bench document without results", path));
      }
      GPUPROBE_RETURN_IF_ERROR(Place(&src.bench, doc, "bench", path));
    } else if (schema == "gpuprobe.inspect.v1") {
      GPUPROBE_RETURN_IF_ERROR(Place(&src.inspect, doc, "inspect", path));
    } else if (schema == "gpuprobe.doctor.v1") {
      GPUPROBE_RETURN_IF_ERROR(Place(&src.doctor, doc, "doctor", path));
    } else if (schema == "gpuprobe.tour.v1") {
      for (const char* part : {"bench", "inspect", "doctor", "gpu", "cpu"}) {
        if (!doc.contains(part) || doc[part].is_null()) continue;
        nlohmann::json* slot = std::string(part) == "bench"     ? &src.bench
                               : std::string(part) == "inspect" ? &src.inspect
                               : std::string(part) == "doctor"  ? &src.doctor
                               : std::string(part) == "gpu"     ? &src.gpu
                                                                : &src.cpu;
        GPUPROBE_RETURN_IF_ERROR(Place(slot, doc[part], part, path));
      }
    } else {
      return core::Status::InvalidArgument(
          fmt::format("'{}' has schema '{}', which a report cannot use", path, schema.empty() ? "(none)" : schema),
          "accepted: gpuprobe.bench.v1, gpuprobe.inspect.v1, gpuprobe.doctor.v1, gpuprobe.tour.v1");
    }
    src.origins.push_back(path);
  }
  if (src.gpu.is_null()) {
    // A bench run alone: the GPU is present when it measured one; its name is in the run's
    // "machine.gpus" lines ("GPU 0: NVIDIA H200").
    bool measured = false;
    if (src.bench.is_object()) {
      for (const auto& r : src.bench["results"]) measured |= r.value("backend", "") == "cuda";
    }
    src.gpu = {{"available", measured}, {"devices", nlohmann::json::array()}};
    if (!measured) src.gpu["reason"] = "no GPU in the saved files";
    if (measured && src.bench.contains("machine") && src.bench["machine"].is_object()) {
      for (const auto& line : src.bench["machine"].value("gpus", nlohmann::json::array())) {
        std::string text = line.is_string() ? line.get<std::string>() : "";
        if (text.rfind("GPU 0: ", 0) == 0) src.gpu["devices"].push_back({{"name", text.substr(7)}});
      }
    }
    if (measured && src.gpu["devices"].empty()) src.gpu["devices"].push_back({{"name", "the GPU of the saved run"}});
  }
  return src;
}

}  // namespace gpuprobe::cli
