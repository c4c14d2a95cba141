#include "telemetry/snapshot_json.h"

#include <cmath>

#include <fmt/format.h>

#include "core/json_input.h"
#include "telemetry/smi_values.h"

namespace gpuprobe::telemetry {
namespace {

using nlohmann::json;
using smi::Quantity;

// One list of fields for both directions, with what each measures (its possible range).
#define GPUPROBE_STRING_FIELDS(X)                                                                    \
  X(source) X(timestamp) X(name) X(uuid) X(pci_bus_id) X(serial) X(vbios_version) X(architecture) \
  X(driver_version) X(cuda_version) X(compute_capability) X(compute_mode) X(performance_state)     \
  X(driver_model) X(virtualization_mode)
#define GPUPROBE_DOUBLE_FIELDS(X)                                                                                      \
  X(memory_total_bytes, kBytes) X(memory_reserved_bytes, kBytes) X(memory_used_bytes, kBytes)                          \
  X(memory_free_bytes, kBytes) X(bar1_total_bytes, kBytes) X(bar1_used_bytes, kBytes)                                  \
  X(utilization_gpu_percent, kPercent) X(utilization_memory_percent, kPercent) X(utilization_encoder_percent, kPercent) \
  X(utilization_decoder_percent, kPercent) X(temperature_celsius, kCelsius) X(memory_temperature_celsius, kCelsius)    \
  X(temperature_slowdown_celsius, kCelsius) X(temperature_shutdown_celsius, kCelsius)                                   \
  X(temperature_margin_celsius, kCelsius) X(temperature_slowdown_tlimit_celsius, kCelsius)                              \
  X(temperature_shutdown_tlimit_celsius, kCelsius) X(power_draw_watts, kWatts) X(power_limit_watts, kWatts)           \
  X(power_max_limit_watts, kWatts) X(fan_speed_percent, kPercent) X(sm_clock_mhz, kMegahertz)                          \
  X(memory_clock_mhz, kMegahertz) X(graphics_clock_mhz, kMegahertz) X(sm_clock_max_mhz, kMegahertz)                   \
  X(memory_clock_max_mhz, kMegahertz) X(pcie_tx_bytes_per_s, kBytesPerSecond) X(pcie_rx_bytes_per_s, kBytesPerSecond) \
  X(pcie_replay_count, kCount) X(ecc_corrected_volatile, kCount) X(ecc_uncorrected_volatile, kCount)                   \
  X(ecc_corrected_aggregate, kCount) X(ecc_uncorrected_aggregate, kCount) X(retired_pages_sbe, kCount)                 \
  X(retired_pages_dbe, kCount) X(remapped_rows_correctable, kCount) X(remapped_rows_uncorrectable, kCount)
#define GPUPROBE_INT_FIELDS(X)                                                                                      \
  X(index, kCount) X(pcie_generation_current, kPcieGeneration) X(pcie_generation_max, kPcieGeneration)             \
  X(pcie_width_current, kPcieWidth) X(pcie_width_max, kPcieWidth) X(nvlink_links_active, kCount) X(nvlink_links_total, kCount)
#define GPUPROBE_BOOL_FIELDS(X)                                                                                     \
  X(persistence_mode) X(mig_enabled) X(ecc_enabled) X(retired_pages_pending) X(remapped_rows_pending)               \
  X(remapped_rows_failure) X(display_active) X(ecc_sram_threshold_exceeded) X(repair_pending_other) X(multi_gpu_board)

template <typename T>
json Opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

// "'gpus[0].memory_used_bytes'"; the caller's context already says the input is gpuprobe JSON.
std::string Where(const std::string& context, const char* key) { return fmt::format("'{}{}'", context, key); }

// A number within what `quantity` allows, read without any conversion that could be
// undefined (the range is checked on the double before an integer is made of it).
core::Status ReadNumber(const json& j, const char* key, Quantity quantity, const std::string& context, std::optional<double>* out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return core::Status::Ok();
  if (!it->is_number()) return core::Status::ParseError(Where(context, key) + " must be a number")
      .WithKeys("error.snapshot.not_number", {{"field", Where(context, key)}});
  double value = it->get<double>();
  smi::Diagnostics notes;
  *out = smi::Checked(value, quantity, key, fmt::format("{}", value), "", &notes);
  if (!*out) return core::Status::ParseError(fmt::format("{} is {}, which is not a possible value", Where(context, key), it->dump()))
      .WithKeys("error.snapshot.impossible", {{"field", Where(context, key)}, {"value", it->dump()}});
  return core::Status::Ok();
}

core::Status ReadInt(const json& j, const char* key, Quantity quantity, const std::string& context, std::optional<int>* out) {
  std::optional<double> value;
  GPUPROBE_RETURN_IF_ERROR(ReadNumber(j, key, quantity, context, &value));
  if (value) *out = smi::ToInt(value);
  return core::Status::Ok();
}

core::Status ReadBool(const json& j, const char* key, const std::string& context, std::optional<bool>* out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return core::Status::Ok();
  if (!it->is_boolean()) return core::Status::ParseError(Where(context, key) + " must be true or false")
      .WithKeys("error.snapshot.not_bool", {{"field", Where(context, key)}});
  *out = it->get<bool>();
  return core::Status::Ok();
}

core::Status ReadString(const json& j, const char* key, const std::string& context, std::string* out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return core::Status::Ok();
  if (!it->is_string()) return core::Status::ParseError(Where(context, key) + " must be a string")
      .WithKeys("error.snapshot.not_string", {{"field", Where(context, key)}});
  *out = smi::ValidUtf8(it->get<std::string>());
  return core::Status::Ok();
}

core::Status ReadHex(const json& j, const char* key, std::uint64_t max, const std::string& context, std::optional<std::uint64_t>* out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return core::Status::Ok();
  if (!it->is_string()) return core::Status::ParseError(Where(context, key) + " must be a hexadecimal string such as \"0x233510DE\"")
      .WithKeys("error.snapshot.not_hex", {{"field", Where(context, key)}});
  auto value = smi::Hex(it->get<std::string>());
  if (!value || *value > max) return core::Status::ParseError(Where(context, key) + " is not a hexadecimal number in range")
      .WithKeys("error.snapshot.hex_range", {{"field", Where(context, key)}});
  *out = value;
  return core::Status::Ok();
}

core::Result<ProcessInfo> ProcessFromJson(const json& p, const std::string& context) {
  if (!p.is_object()) return core::Status::ParseError(fmt::format("'{}processes': every process must be an object", context))
      .WithKeys("error.snapshot.process_object", {{"context", context}});
  ProcessInfo info;
  std::optional<double> pid;
  GPUPROBE_RETURN_IF_ERROR(ReadNumber(p, "pid", Quantity::kCount, context, &pid));
  if (pid) {
    auto checked = smi::ToUint32(pid);
    if (!checked) return core::Status::ParseError(Where(context, "pid") + " is not a process id")
        .WithKeys("error.snapshot.pid", {{"field", Where(context, "pid")}});
    info.pid = *checked;
  }
  GPUPROBE_RETURN_IF_ERROR(ReadString(p, "type", context, &info.type));
  GPUPROBE_RETURN_IF_ERROR(ReadString(p, "name", context, &info.name));
  GPUPROBE_RETURN_IF_ERROR(ReadNumber(p, "used_memory_bytes", Quantity::kBytes, context, &info.used_memory_bytes));
  GPUPROBE_RETURN_IF_ERROR(ReadInt(p, "gpu_instance_id", Quantity::kCount, context, &info.gpu_instance_id));
  GPUPROBE_RETURN_IF_ERROR(ReadInt(p, "compute_instance_id", Quantity::kCount, context, &info.compute_instance_id));
  return info;
}

}  // namespace

json SnapshotToJson(const Snapshot& s) {
  json j;
#define GPUPROBE_W(f) j[#f] = smi::ValidUtf8(s.f);
  GPUPROBE_STRING_FIELDS(GPUPROBE_W)
#undef GPUPROBE_W
#define GPUPROBE_W(f, q) j[#f] = Opt(s.f);
  GPUPROBE_DOUBLE_FIELDS(GPUPROBE_W)
  GPUPROBE_INT_FIELDS(GPUPROBE_W)
#undef GPUPROBE_W
#define GPUPROBE_W(f) j[#f] = Opt(s.f);
  GPUPROBE_BOOL_FIELDS(GPUPROBE_W)
#undef GPUPROBE_W
  j["pci_device_id"] = s.pci_device_id ? json(fmt::format("0x{:08X}", *s.pci_device_id)) : json(nullptr);
  j["clock_event_reasons"] = s.clock_event_reasons ? json(fmt::format("0x{:016X}", *s.clock_event_reasons)) : json(nullptr);
  j["fan_speed_error"] = s.fan_speed_error;
  j["processes_known"] = s.processes_known;
  j["graphics_processes_known"] = s.graphics_processes_known;
  j["processes"] = json::array();
  for (const auto& p : s.processes) {
    j["processes"].push_back({{"pid", p.pid}, {"type", smi::ValidUtf8(p.type)}, {"name", smi::ValidUtf8(p.name)},
                              {"used_memory_bytes", Opt(p.used_memory_bytes)}, {"gpu_instance_id", Opt(p.gpu_instance_id)},
                              {"compute_instance_id", Opt(p.compute_instance_id)}});
  }
  j["mig_instances"] = json::array();
  for (const auto& m : s.mig_instances) {
    j["mig_instances"].push_back({{"gpu_instance_id", Opt(m.gpu_instance_id)}, {"compute_instance_id", Opt(m.compute_instance_id)},
                                  {"sm_count", Opt(m.sm_count)}, {"memory_total_bytes", Opt(m.memory_total_bytes)},
                                  {"memory_used_bytes", Opt(m.memory_used_bytes)}});
  }
  return j;
}

core::Result<Snapshot> SnapshotFromJson(const json& j, const std::string& context) {
  if (!j.is_object()) return core::Status::ParseError(fmt::format("'{}': every GPU must be an object", context))
      .WithKeys("error.snapshot.gpu_object", {{"context", context}});
  Snapshot s;
#define GPUPROBE_R(f) GPUPROBE_RETURN_IF_ERROR(ReadString(j, #f, context, &s.f));
  GPUPROBE_STRING_FIELDS(GPUPROBE_R)
#undef GPUPROBE_R
#define GPUPROBE_R(f, q) GPUPROBE_RETURN_IF_ERROR(ReadNumber(j, #f, Quantity::q, context, &s.f));
  GPUPROBE_DOUBLE_FIELDS(GPUPROBE_R)
#undef GPUPROBE_R
#define GPUPROBE_R(f, q) GPUPROBE_RETURN_IF_ERROR(ReadInt(j, #f, Quantity::q, context, &s.f));
  GPUPROBE_INT_FIELDS(GPUPROBE_R)
#undef GPUPROBE_R
#define GPUPROBE_R(f) GPUPROBE_RETURN_IF_ERROR(ReadBool(j, #f, context, &s.f));
  GPUPROBE_BOOL_FIELDS(GPUPROBE_R)
#undef GPUPROBE_R
  std::optional<std::uint64_t> device_id, reasons;
  GPUPROBE_RETURN_IF_ERROR(ReadHex(j, "pci_device_id", 0xFFFFFFFFull, context, &device_id));
  GPUPROBE_RETURN_IF_ERROR(ReadHex(j, "clock_event_reasons", ~0ull, context, &reasons));
  if (device_id) s.pci_device_id = static_cast<std::uint32_t>(*device_id);
  s.clock_event_reasons = reasons;
  std::optional<bool> known, graphics_known, fan_error;
  GPUPROBE_RETURN_IF_ERROR(ReadBool(j, "fan_speed_error", context, &fan_error));
  s.fan_speed_error = fan_error.value_or(false);
  GPUPROBE_RETURN_IF_ERROR(ReadBool(j, "processes_known", context, &known));
  GPUPROBE_RETURN_IF_ERROR(ReadBool(j, "graphics_processes_known", context, &graphics_known));
  s.processes_known = known.value_or(false);
  s.graphics_processes_known = graphics_known.value_or(true);
  if (j.contains("processes")) {
    if (!j["processes"].is_array()) return core::Status::ParseError(Where(context, "processes") + " must be a list")
        .WithKeys("error.snapshot.processes_list", {{"field", Where(context, "processes")}});
    for (const auto& p : j["processes"]) {
      auto info = ProcessFromJson(p, context);
      if (!info.ok()) return info.status();
      s.processes.push_back(std::move(info.value()));
    }
  }
  if (j.contains("mig_instances")) {
    if (!j["mig_instances"].is_array()) return core::Status::ParseError(Where(context, "mig_instances") + " must be a list")
        .WithKeys("error.snapshot.processes_list", {{"field", Where(context, "mig_instances")}});
    for (const auto& m : j["mig_instances"]) {
      if (!m.is_object()) return core::Status::ParseError(fmt::format("'{}mig_instances': every MIG instance must be an object", context))
          .WithKeys("error.snapshot.mig_object", {{"context", context}});
      MigInstance mig;
      GPUPROBE_RETURN_IF_ERROR(ReadInt(m, "gpu_instance_id", Quantity::kCount, context, &mig.gpu_instance_id));
      GPUPROBE_RETURN_IF_ERROR(ReadInt(m, "compute_instance_id", Quantity::kCount, context, &mig.compute_instance_id));
      GPUPROBE_RETURN_IF_ERROR(ReadInt(m, "sm_count", Quantity::kCount, context, &mig.sm_count));
      GPUPROBE_RETURN_IF_ERROR(ReadNumber(m, "memory_total_bytes", Quantity::kBytes, context, &mig.memory_total_bytes));
      GPUPROBE_RETURN_IF_ERROR(ReadNumber(m, "memory_used_bytes", Quantity::kBytes, context, &mig.memory_used_bytes));
      s.mig_instances.push_back(mig);
    }
  }
  return s;
}

core::Result<std::vector<Snapshot>> ParseSnapshotJson(std::string_view text) {
  auto parsed = core::ParseJsonInput(text, "gpuprobe JSON");
  if (!parsed.ok()) return parsed.status();
  const json& doc = *parsed;
  if (!doc.is_object() || !doc.contains("schema") || !doc["schema"].is_string() ||
      doc["schema"].get<std::string>().rfind("gpuprobe.inspect.", 0) != 0) {
    return core::Status::ParseError("not a gpuprobe inspect document (expected \"schema\": \"gpuprobe.inspect.v1\")")
        .WithKeys("error.capture.not_inspect_json", {});
  }
  if (!doc.contains("gpus") || !doc["gpus"].is_array() || doc["gpus"].empty()) {
    return core::Status::ParseError("gpuprobe inspect document lists no GPU").WithKeys("error.capture.json_no_gpu", {});
  }
  std::vector<Snapshot> out;
  for (size_t i = 0; i < doc["gpus"].size(); ++i) {
    auto s = SnapshotFromJson(doc["gpus"][i], fmt::format("gpus[{}].", i));
    if (!s.ok()) return s.status();
    out.push_back(std::move(s.value()));
  }
  return out;
}

}  // namespace gpuprobe::telemetry
