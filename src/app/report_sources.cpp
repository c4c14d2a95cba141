#include "app/report_sources.h"

#include <fmt/format.h>

#include "core/file_io.h"
#include "core/json_input.h"

namespace gpuprobe::app {
namespace {

constexpr std::uint64_t kMaxDocumentBytes = 256ull << 20;

core::Status PlaceOnce(bool taken, const std::string& kind, const std::string& path) {
  if (taken) {
    return core::Status::InvalidArgument(fmt::format("'{}' is a second {} document; give each kind once", path, kind))
        .WithKeys("report.error.second_document", {{"path", path}, {"kind", kind}});
  }
  return core::Status::Ok();
}

enum class Kind { kString, kNumber, kBool, kArray, kObject };

// The text key of KindName(k): the same words in en and zh.
const char* KindKey(Kind k) {
  switch (k) {
    case Kind::kString: return "report.kind.string";
    case Kind::kNumber: return "report.kind.number";
    case Kind::kBool: return "report.kind.bool";
    case Kind::kArray: return "report.kind.array";
    case Kind::kObject: return "report.kind.object";
  }
  return "report.kind.object";
}

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kString: return "a string";
    case Kind::kNumber: return "a number";
    case Kind::kBool: return "true or false";
    case Kind::kArray: return "an array";
    case Kind::kObject: return "an object";
  }
  return "?";
}

bool Is(const nlohmann::json& v, Kind k) {
  switch (k) {
    case Kind::kString: return v.is_string();
    case Kind::kNumber: return v.is_number();
    case Kind::kBool: return v.is_boolean();
    case Kind::kArray: return v.is_array();
    case Kind::kObject: return v.is_object();
  }
  return false;
}

// The fields the summary reads from a part, with their types: a present field of another
// type (or null where a value is expected) is an error naming the file and the field,
// instead of being silently read as "unknown".
struct FieldRule {
  const char* name;
  Kind kind;
};

core::Status CheckFields(const nlohmann::json& object, const std::vector<FieldRule>& rules, const std::string& path,
                         const std::string& where) {
  for (const auto& rule : rules) {
    auto it = object.find(rule.name);
    if (it == object.end() || (it->is_null() && rule.kind == Kind::kNumber)) continue;
    if (!Is(*it, rule.kind)) {
      return core::Status::ParseError(fmt::format("{}: {}{} must be {}", path, where, rule.name, KindName(rule.kind)))
          .WithKeys("error.report_input.kind", {{"file", path}, {"field", where + rule.name}, {"kind_key", KindKey(rule.kind)}});
    }
  }
  return core::Status::Ok();
}

// Each element of the array `key` (when present) must be an object with these fields.
core::Status CheckArrayOfObjects(const nlohmann::json& object, const char* key, const std::vector<FieldRule>& rules,
                                 const std::string& path, const std::string& where) {
  auto it = object.find(key);
  if (it == object.end()) return core::Status::Ok();
  if (!it->is_array()) {
    return core::Status::ParseError(fmt::format("{}: {}{} must be an array", path, where, key))
        .WithKeys("error.report_input.kind", {{"file", path}, {"field", where + key}, {"kind_key", "report.kind.array"}});
  }
  for (size_t i = 0; i < it->size(); ++i) {
    const auto& element = (*it)[i];
    std::string at = fmt::format("{}{}[{}]", where, key, i);
    if (!element.is_object()) {
      return core::Status::ParseError(fmt::format("{}: {} must be an object", path, at))
          .WithKeys("error.report_input.kind", {{"file", path}, {"field", at}, {"kind_key", "report.kind.object"}});
    }
    GPUPROBE_RETURN_IF_ERROR(CheckFields(element, rules, path, at + "."));
  }
  return core::Status::Ok();
}

core::Status CheckPart(const nlohmann::json& doc, const std::string& kind, const std::string& path) {
  const std::string where = kind == "inspect" || kind == "doctor" ? "" : kind + ".";
  if (kind == "inspect") {
    GPUPROBE_RETURN_IF_ERROR(CheckArrayOfObjects(
        doc, "gpus",
        {{"index", Kind::kNumber}, {"name", Kind::kString}, {"utilization_gpu_percent", Kind::kNumber},
         {"memory_used_bytes", Kind::kNumber}, {"memory_total_bytes", Kind::kNumber}, {"temperature_celsius", Kind::kNumber},
         {"power_draw_watts", Kind::kNumber}, {"power_limit_watts", Kind::kNumber}, {"sm_clock_mhz", Kind::kNumber}},
        path, where));
    return CheckArrayOfObjects(doc, "findings",
                               {{"id", Kind::kString}, {"severity", Kind::kString}, {"explanation", Kind::kString},
                                {"evidence", Kind::kString}, {"next_step", Kind::kString}},
                               path, where);
  }
  if (kind == "doctor") {
    return CheckArrayOfObjects(doc, "checks",
                               {{"id", Kind::kString}, {"status", Kind::kString}, {"title", Kind::kString},
                                {"evidence", Kind::kString}, {"fix", Kind::kString}},
                               path, where);
  }
  if (kind == "gpu") {
    GPUPROBE_RETURN_IF_ERROR(CheckFields(doc, {{"available", Kind::kBool}, {"reason", Kind::kString}}, path, where));
    return CheckArrayOfObjects(doc, "devices",
                               {{"name", Kind::kString}, {"spec_database_name", Kind::kString}, {"memory_bytes", Kind::kNumber},
                                {"smoke_test", Kind::kObject}},
                               path, where);
  }
  return CheckFields(doc, {{"model", Kind::kString}, {"physical_cores", Kind::kNumber}, {"memory_bytes", Kind::kNumber}},
                     path, where);
}

// Inspect, doctor and identity parts are kept as JSON; the fields the summary reads are
// checked here, so a hand-edited file is an error naming the field, never a crash later.
core::Status PlaceJson(nlohmann::json* slot, const nlohmann::json& doc, const std::string& kind, const std::string& path) {
  GPUPROBE_RETURN_IF_ERROR(PlaceOnce(!slot->is_null(), kind, path));
  if (!doc.is_object()) {
    return core::Status::ParseError(fmt::format("{}: the {} part must be an object", path, kind))
        .WithKeys("report.error.part_not_object", {{"path", path}, {"kind", kind}});
  }
  GPUPROBE_RETURN_IF_ERROR(CheckPart(doc, kind, path));
  *slot = doc;
  return core::Status::Ok();
}

core::Status PlaceBench(ReportSources* src, const nlohmann::json& doc, const std::string& path) {
  GPUPROBE_RETURN_IF_ERROR(PlaceOnce(src->bench.has_value(), "bench", path));
  auto bench = bench::BenchDocumentFromJson(doc, path);
  if (!bench.ok()) return bench.status();
  src->bench = std::move(bench.value());
  return core::Status::Ok();
}

// A bench run alone says which GPU it measured in its "machine.gpus" lines ("GPU 0: NVIDIA
// H200"); with no identity document that is the GPU of the report.
nlohmann::json GpuFromBench(const std::optional<bench::BenchDocument>& bench) {
  bool measured = bench && bench->HasBackend("cuda");
  nlohmann::json gpu = {{"available", measured}, {"devices", nlohmann::json::array()}};
  if (!measured) {
    gpu["reason"] = "no GPU in the saved files";
    gpu["reason_id"] = "no_saved_gpu";  // app/gpu_absence.h
    return gpu;
  }
  for (const auto& line : bench->gpus) {
    if (line.rfind("GPU 0: ", 0) == 0) gpu["devices"].push_back({{"name", line.substr(7)}});
  }
  if (gpu["devices"].empty()) gpu["devices"].push_back({{"name", "GPU 0"}});  // a run that did not name it
  return gpu;
}

}  // namespace

core::Result<ReportSources> LoadReportSources(const std::vector<std::string>& paths) {
  ReportSources src;
  for (const auto& path : paths) {
    auto text = core::ReadTextFile(path, kMaxDocumentBytes);
    if (!text.ok()) return text.status();
    auto parsed = core::ParseJsonInput(*text, path);
    if (!parsed.ok()) return parsed.status();
    const nlohmann::json& doc = *parsed;
    if (!doc.is_object()) {
      return core::Status::InvalidArgument(fmt::format("'{}' is not a JSON document", path),
                                           "give a file written by 'gpuprobe bench --json', 'inspect --json', "
                                           "'doctor --json' or 'gpuprobe --json'")
          .WithKeys("report.error.not_document", {{"path", path}}, "report.error.not_document.hint");
    }
    auto schema_it = doc.find("schema");
    std::string schema = schema_it != doc.end() && schema_it->is_string() ? schema_it->get<std::string>() : "";
    if (schema == bench::kBenchSchema) {
      GPUPROBE_RETURN_IF_ERROR(PlaceBench(&src, doc, path));
    } else if (schema == "gpuprobe.inspect.v1") {
      GPUPROBE_RETURN_IF_ERROR(PlaceJson(&src.inspect, doc, "inspect", path));
    } else if (schema == "gpuprobe.doctor.v1") {
      GPUPROBE_RETURN_IF_ERROR(PlaceJson(&src.doctor, doc, "doctor", path));
    } else if (schema == "gpuprobe.tour.v1") {
      for (const char* part : {"bench", "inspect", "doctor", "gpu", "cpu"}) {
        auto it = doc.find(part);
        if (it == doc.end() || it->is_null()) continue;
        std::string name = part;
        if (name == "bench") {
          GPUPROBE_RETURN_IF_ERROR(PlaceBench(&src, *it, path + " (bench)"));
          continue;
        }
        nlohmann::json* slot = name == "inspect" ? &src.inspect : name == "doctor" ? &src.doctor : name == "gpu" ? &src.gpu : &src.cpu;
        GPUPROBE_RETURN_IF_ERROR(PlaceJson(slot, *it, name, path));
      }
    } else {
      return core::Status::InvalidArgument(
                 fmt::format("'{}' has schema '{}', which a report cannot use", path, schema.empty() ? "(none)" : schema),
                 "accepted: gpuprobe.bench.v1, gpuprobe.inspect.v1, gpuprobe.doctor.v1, gpuprobe.tour.v1")
          .WithKeys(schema.empty() ? "report.error.no_schema" : "report.error.schema", {{"path", path}, {"schema", schema}},
                    "report.error.schema.hint");
    }
    src.origins.push_back(path);
  }
  if (src.gpu.is_null()) src.gpu = GpuFromBench(src.bench);
  return src;
}

}  // namespace gpuprobe::app
