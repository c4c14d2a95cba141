#include "telemetry/snapshot_json.h"

#include <fmt/format.h>

namespace gpuprobe::telemetry {
namespace {

using nlohmann::json;

// One list of fields for both directions.
#define GPUPROBE_STRING_FIELDS(X) \
  X(source) X(timestamp) X(name) X(uuid) X(pci_bus_id) X(serial) X(vbios_version) X(architecture) \
  X(driver_version) X(cuda_version) X(compute_capability) X(compute_mode) X(performance_state)
#define GPUPROBE_DOUBLE_FIELDS(X)                                                                         \
  X(memory_total_bytes) X(memory_reserved_bytes) X(memory_used_bytes) X(memory_free_bytes) X(bar1_total_bytes) \
  X(bar1_used_bytes) X(utilization_gpu_percent) X(utilization_memory_percent) X(utilization_encoder_percent)  \
  X(utilization_decoder_percent) X(temperature_celsius) X(memory_temperature_celsius)                       \
  X(temperature_slowdown_celsius) X(temperature_shutdown_celsius) X(temperature_margin_celsius)             \
  X(power_draw_watts) X(power_limit_watts) X(power_max_limit_watts) X(fan_speed_percent) X(sm_clock_mhz)      \
  X(memory_clock_mhz) X(graphics_clock_mhz) X(sm_clock_max_mhz) X(memory_clock_max_mhz)                      \
  X(pcie_tx_bytes_per_s) X(pcie_rx_bytes_per_s) X(pcie_replay_count) X(ecc_corrected_volatile)              \
  X(ecc_uncorrected_volatile) X(ecc_corrected_aggregate) X(ecc_uncorrected_aggregate) X(retired_pages_sbe)   \
  X(retired_pages_dbe) X(remapped_rows_correctable) X(remapped_rows_uncorrectable)
#define GPUPROBE_INT_FIELDS(X)                                                                          \
  X(index) X(pcie_generation_current) X(pcie_generation_max) X(pcie_width_current) X(pcie_width_max) \
  X(nvlink_links_active) X(nvlink_links_total)
#define GPUPROBE_BOOL_FIELDS(X) \
  X(persistence_mode) X(mig_enabled) X(ecc_enabled) X(retired_pages_pending) X(remapped_rows_pending) X(remapped_rows_failure)

template <typename T>
json Opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

template <typename T>
core::Status Read(const json& j, const char* key, std::optional<T>* out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return core::Status::Ok();
  if constexpr (std::is_same_v<T, bool>) {
    if (!it->is_boolean()) return core::Status::ParseError(fmt::format("gpuprobe JSON: '{}' must be true or false", key));
    *out = it->get<bool>();
  } else {
    if (!it->is_number()) return core::Status::ParseError(fmt::format("gpuprobe JSON: '{}' must be a number", key));
    *out = it->get<T>();
  }
  return core::Status::Ok();
}

}  // namespace

json SnapshotToJson(const Snapshot& s) {
  json j;
#define GPUPROBE_W(f) j[#f] = s.f;
  GPUPROBE_STRING_FIELDS(GPUPROBE_W)
#undef GPUPROBE_W
#define GPUPROBE_W(f) j[#f] = Opt(s.f);
  GPUPROBE_DOUBLE_FIELDS(GPUPROBE_W)
  GPUPROBE_INT_FIELDS(GPUPROBE_W)
  GPUPROBE_BOOL_FIELDS(GPUPROBE_W)
#undef GPUPROBE_W
  j["pci_device_id"] = s.pci_device_id ? json(fmt::format("0x{:08X}", *s.pci_device_id)) : json(nullptr);
  j["clock_event_reasons"] = s.clock_event_reasons ? json(fmt::format("0x{:016X}", *s.clock_event_reasons)) : json(nullptr);
  j["processes_known"] = s.processes_known;
  j["processes"] = json::array();
  for (const auto& p : s.processes) {
    j["processes"].push_back({{"pid", p.pid}, {"type", p.type}, {"name", p.name}, {"used_memory_bytes", Opt(p.used_memory_bytes)},
                              {"gpu_instance_id", Opt(p.gpu_instance_id)}, {"compute_instance_id", Opt(p.compute_instance_id)}});
  }
  j["mig_instances"] = json::array();
  for (const auto& m : s.mig_instances) {
    j["mig_instances"].push_back({{"gpu_instance_id", Opt(m.gpu_instance_id)}, {"compute_instance_id", Opt(m.compute_instance_id)},
                                  {"sm_count", Opt(m.sm_count)}, {"memory_total_bytes", Opt(m.memory_total_bytes)},
                                  {"memory_used_bytes", Opt(m.memory_used_bytes)}});
  }
  return j;
}

core::Result<Snapshot> SnapshotFromJson(const json& j) {
  if (!j.is_object()) return core::Status::ParseError("gpuprobe JSON: every GPU must be an object");
  Snapshot s;
#define GPUPROBE_R(f)                                                                                  \
  if (j.contains(#f) && !j[#f].is_null()) {                                                            \
    if (!j[#f].is_string()) return core::Status::ParseError("gpuprobe JSON: '" #f "' must be a string"); \
    s.f = j[#f].get<std::string>();                                                                    \
  }
  GPUPROBE_STRING_FIELDS(GPUPROBE_R)
#undef GPUPROBE_R
#define GPUPROBE_R(f) GPUPROBE_RETURN_IF_ERROR(Read(j, #f, &s.f));
  GPUPROBE_DOUBLE_FIELDS(GPUPROBE_R)
  GPUPROBE_INT_FIELDS(GPUPROBE_R)
  GPUPROBE_BOOL_FIELDS(GPUPROBE_R)
#undef GPUPROBE_R
  auto hex = [&](const char* key) -> std::optional<std::uint64_t> {
    if (!j.contains(key) || !j[key].is_string()) return std::nullopt;
    try {
      return std::stoull(j[key].get<std::string>(), nullptr, 16);
    } catch (...) {
      return std::nullopt;
    }
  };
  if (auto id = hex("pci_device_id")) s.pci_device_id = static_cast<std::uint32_t>(*id);
  s.clock_event_reasons = hex("clock_event_reasons");
  s.processes_known = j.value("processes_known", false);
  if (j.contains("processes") && j["processes"].is_array()) {
    for (const auto& p : j["processes"]) {
      if (!p.is_object()) return core::Status::ParseError("gpuprobe JSON: every process must be an object");
      ProcessInfo info;
      if (p.contains("pid") && p["pid"].is_number_unsigned()) info.pid = p["pid"].get<std::uint32_t>();
      if (p.contains("type") && p["type"].is_string()) info.type = p["type"].get<std::string>();
      if (p.contains("name") && p["name"].is_string()) info.name = p["name"].get<std::string>();
      GPUPROBE_RETURN_IF_ERROR(Read(p, "used_memory_bytes", &info.used_memory_bytes));
      GPUPROBE_RETURN_IF_ERROR(Read(p, "gpu_instance_id", &info.gpu_instance_id));
      GPUPROBE_RETURN_IF_ERROR(Read(p, "compute_instance_id", &info.compute_instance_id));
      s.processes.push_back(info);
    }
  }
  if (j.contains("mig_instances") && j["mig_instances"].is_array()) {
    for (const auto& m : j["mig_instances"]) {
      if (!m.is_object()) return core::Status::ParseError("gpuprobe JSON: every MIG instance must be an object");
      MigInstance mig;
      GPUPROBE_RETURN_IF_ERROR(Read(m, "gpu_instance_id", &mig.gpu_instance_id));
      GPUPROBE_RETURN_IF_ERROR(Read(m, "compute_instance_id", &mig.compute_instance_id));
      GPUPROBE_RETURN_IF_ERROR(Read(m, "sm_count", &mig.sm_count));
      GPUPROBE_RETURN_IF_ERROR(Read(m, "memory_total_bytes", &mig.memory_total_bytes));
      GPUPROBE_RETURN_IF_ERROR(Read(m, "memory_used_bytes", &mig.memory_used_bytes));
      s.mig_instances.push_back(mig);
    }
  }
  return s;
}

core::Result<std::vector<Snapshot>> ParseSnapshotJson(std::string_view text) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) return core::Status::ParseError("not valid JSON (truncated or corrupted?)");
  if (!doc.is_object() || !doc.contains("schema") || !doc["schema"].is_string() ||
      doc["schema"].get<std::string>().rfind("gpuprobe.inspect.", 0) != 0) {
    return core::Status::ParseError("not a gpuprobe inspect document (expected \"schema\": \"gpuprobe.inspect.v1\")");
  }
  if (!doc.contains("gpus") || !doc["gpus"].is_array() || doc["gpus"].empty()) {
    return core::Status::ParseError("gpuprobe inspect document lists no GPU");
  }
  std::vector<Snapshot> out;
  for (const auto& g : doc["gpus"]) {
    auto s = SnapshotFromJson(g);
    if (!s.ok()) return s.status();
    out.push_back(std::move(s.value()));
  }
  return out;
}

}  // namespace gpuprobe::telemetry
