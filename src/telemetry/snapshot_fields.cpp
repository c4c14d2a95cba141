#include "telemetry/snapshot_fields.h"

#include <unordered_map>

#include <fmt/format.h>

namespace gpuprobe::telemetry {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
using smi::Quantity;

std::optional<std::string> Str(const std::string& s) { return s.empty() ? std::nullopt : std::optional<std::string>(s); }
std::optional<std::string> Fixed(std::optional<double> v, int decimals) {
  if (!v) return std::nullopt;
  return fmt::format("{:.{}f}", *v, decimals);
}
std::optional<std::string> MibOf(std::optional<double> bytes) {
  if (!bytes) return std::nullopt;
  return fmt::format("{:.0f}", *bytes / kMiB);
}
std::optional<std::string> EnabledOf(std::optional<bool> v) {
  if (!v) return std::nullopt;
  return std::string(*v ? "Enabled" : "Disabled");
}
std::optional<std::string> YesNo(std::optional<bool> v) {
  if (!v) return std::nullopt;
  return std::string(*v ? "Yes" : "No");
}
std::optional<std::string> IntOf(std::optional<int> v) {
  if (!v) return std::nullopt;
  return std::to_string(*v);
}

using Setter = std::function<void(Snapshot*, std::string_view, const FieldContext&)>;
using Getter = std::function<std::optional<std::string>(const Snapshot&)>;

// Setters: each fills its member only while it is empty, and sends the value through the
// range check of what it measures.
Setter Number(std::optional<double> Snapshot::*member, Quantity quantity, const char* name) {
  return [=](Snapshot* s, std::string_view raw, const FieldContext& c) {
    if (s->*member) return;
    s->*member = smi::Checked(smi::Number(raw), quantity, name, raw, c.where, c.diagnostics);
  };
}
Setter Mib(std::optional<double> Snapshot::*member, const char* name) {
  return [=](Snapshot* s, std::string_view raw, const FieldContext& c) {
    if (s->*member) return;
    s->*member = smi::Checked(smi::Bytes(raw), Quantity::kBytes, name, raw, c.where, c.diagnostics);
  };
}
Setter KiBps(std::optional<double> Snapshot::*member, const char* name) {
  return [=](Snapshot* s, std::string_view raw, const FieldContext& c) {
    if (s->*member) return;
    s->*member = smi::Checked(smi::KilobytesPerSecond(raw), Quantity::kBytesPerSecond, name, raw, c.where, c.diagnostics);
  };
}
Setter Whole(std::optional<int> Snapshot::*member, Quantity quantity, const char* name) {
  return [=](Snapshot* s, std::string_view raw, const FieldContext& c) {
    if (s->*member) return;
    s->*member = smi::ToInt(smi::Checked(smi::Number(raw), quantity, name, raw, c.where, c.diagnostics));
  };
}
Setter Bool(std::optional<bool> Snapshot::*member) {
  return [=](Snapshot* s, std::string_view raw, const FieldContext&) {
    if (!(s->*member)) s->*member = smi::Flag(raw);
  };
}
Setter Text(std::string Snapshot::*member, const char* name) {
  return [=](Snapshot* s, std::string_view raw, const FieldContext& c) {
    if ((s->*member).empty()) s->*member = smi::CleanText(raw, name, c.where, c.diagnostics);
  };
}
// One clock-event reason given as Active / Not Active: ORed into the bitmask (a bitmask read
// whole from clocks_event_reasons.active already holds the same bits).
Setter Reason(std::uint64_t mask) {
  return [=](Snapshot* s, std::string_view raw, const FieldContext&) {
    if (auto v = smi::Flag(raw)) s->clock_event_reasons = s->clock_event_reasons.value_or(0) | (*v ? mask : 0);
  };
}
Getter ReasonGet(std::uint64_t mask) {
  return [=](const Snapshot& s) -> std::optional<std::string> {
    if (!s.clock_event_reasons) return std::nullopt;
    return std::string((*s.clock_event_reasons & mask) ? "Active" : "Not Active");
  };
}

std::vector<SnapshotField> BuildFields() {
  using S = Snapshot;
  std::vector<SnapshotField> f;
  auto add = [&](std::vector<std::string> names, std::string unit, Setter set, Getter get, bool query_gpu = true) {
    f.push_back({std::move(names), std::move(unit), query_gpu, std::move(set), std::move(get)});
  };
  add({"timestamp"}, "", Text(&S::timestamp, "timestamp"), [](const S& s) { return Str(s.timestamp); });
  add({"index"}, "", Whole(&S::index, Quantity::kCount, "index"), [](const S& s) { return IntOf(s.index); });
  add({"name", "gpu_name"}, "", Text(&S::name, "name"), [](const S& s) { return Str(s.name); });
  add({"uuid", "gpu_uuid"}, "", Text(&S::uuid, "uuid"), [](const S& s) { return Str(s.uuid); });
  add({"serial", "gpu_serial"}, "", Text(&S::serial, "serial"), [](const S& s) { return Str(s.serial); });
  add({"pci.bus_id", "gpu_bus_id"}, "", Text(&S::pci_bus_id, "pci.bus_id"), [](const S& s) { return Str(s.pci_bus_id); });
  add({"pci.device_id"}, "",
      [](S* s, std::string_view raw, const FieldContext&) {
        auto v = smi::Hex(raw);
        if (!s->pci_device_id && v && *v <= 0xFFFFFFFFull) s->pci_device_id = static_cast<std::uint32_t>(*v);
      },
      [](const S& s) { return s.pci_device_id ? std::optional<std::string>(fmt::format("0x{:08X}", *s.pci_device_id)) : std::nullopt; });
  add({"driver_version", "kmd_version"}, "", Text(&S::driver_version, "driver_version"), [](const S& s) { return Str(s.driver_version); });
  add({"vbios_version"}, "", Text(&S::vbios_version, "vbios_version"), [](const S& s) { return Str(s.vbios_version); });
  add({"compute_cap"}, "", Text(&S::compute_capability, "compute_cap"), [](const S& s) { return Str(s.compute_capability); });
  add({"persistence_mode"}, "", Bool(&S::persistence_mode), [](const S& s) { return EnabledOf(s.persistence_mode); });
  add({"driver_model.current"}, "", Text(&S::driver_model, "driver_model.current"), [](const S& s) { return Str(s.driver_model); });
  add({"display_active"}, "", Bool(&S::display_active), [](const S& s) { return EnabledOf(s.display_active); });
  add({"virtualization_mode"}, "", Text(&S::virtualization_mode, "virtualization_mode"),
      [](const S& s) { return Str(s.virtualization_mode); }, false);
  add({"multigpu_board"}, "", Bool(&S::multi_gpu_board), [](const S& s) { return YesNo(s.multi_gpu_board); }, false);
  add({"compute_mode"}, "", Text(&S::compute_mode, "compute_mode"), [](const S& s) { return Str(s.compute_mode); });
  add({"mig.mode.current"}, "", Bool(&S::mig_enabled), [](const S& s) { return EnabledOf(s.mig_enabled); });
  add({"pstate"}, "", Text(&S::performance_state, "pstate"), [](const S& s) { return Str(s.performance_state); });
  add({"memory.total"}, "MiB", Mib(&S::memory_total_bytes, "memory.total"), [](const S& s) { return MibOf(s.memory_total_bytes); });
  add({"memory.reserved"}, "MiB", Mib(&S::memory_reserved_bytes, "memory.reserved"), [](const S& s) { return MibOf(s.memory_reserved_bytes); });
  add({"memory.used"}, "MiB", Mib(&S::memory_used_bytes, "memory.used"), [](const S& s) { return MibOf(s.memory_used_bytes); });
  add({"memory.free"}, "MiB", Mib(&S::memory_free_bytes, "memory.free"), [](const S& s) { return MibOf(s.memory_free_bytes); });
  add({"bar1.total"}, "MiB", Mib(&S::bar1_total_bytes, "bar1.total"), [](const S& s) { return MibOf(s.bar1_total_bytes); }, false);
  add({"bar1.used"}, "MiB", Mib(&S::bar1_used_bytes, "bar1.used"), [](const S& s) { return MibOf(s.bar1_used_bytes); }, false);
  add({"utilization.gpu"}, "%", Number(&S::utilization_gpu_percent, Quantity::kPercent, "utilization.gpu"),
      [](const S& s) { return Fixed(s.utilization_gpu_percent, 0); });
  add({"utilization.memory"}, "%", Number(&S::utilization_memory_percent, Quantity::kPercent, "utilization.memory"),
      [](const S& s) { return Fixed(s.utilization_memory_percent, 0); });
  add({"utilization.encoder"}, "%", Number(&S::utilization_encoder_percent, Quantity::kPercent, "utilization.encoder"),
      [](const S& s) { return Fixed(s.utilization_encoder_percent, 0); });
  add({"utilization.decoder"}, "%", Number(&S::utilization_decoder_percent, Quantity::kPercent, "utilization.decoder"),
      [](const S& s) { return Fixed(s.utilization_decoder_percent, 0); });
  add({"temperature.gpu"}, "", Number(&S::temperature_celsius, Quantity::kCelsius, "temperature.gpu"),
      [](const S& s) { return Fixed(s.temperature_celsius, 0); });
  add({"temperature.memory"}, "", Number(&S::memory_temperature_celsius, Quantity::kCelsius, "temperature.memory"),
      [](const S& s) { return Fixed(s.memory_temperature_celsius, 0); });
  add({"temperature.gpu.tlimit"}, "", Number(&S::temperature_margin_celsius, Quantity::kCelsius, "temperature.gpu.tlimit"),
      [](const S& s) { return Fixed(s.temperature_margin_celsius, 0); });
  add({"temperature.gpu.slowdown_threshold"}, "",
      Number(&S::temperature_slowdown_celsius, Quantity::kCelsius, "temperature.gpu.slowdown_threshold"),
      [](const S& s) { return Fixed(s.temperature_slowdown_celsius, 0); }, false);
  add({"temperature.gpu.shutdown_threshold"}, "",
      Number(&S::temperature_shutdown_celsius, Quantity::kCelsius, "temperature.gpu.shutdown_threshold"),
      [](const S& s) { return Fixed(s.temperature_shutdown_celsius, 0); }, false);
  add({"temperature.gpu.slowdown_tlimit"}, "",
      Number(&S::temperature_slowdown_tlimit_celsius, Quantity::kCelsius, "temperature.gpu.slowdown_tlimit"),
      [](const S& s) { return Fixed(s.temperature_slowdown_tlimit_celsius, 0); }, false);
  add({"temperature.gpu.shutdown_tlimit"}, "",
      Number(&S::temperature_shutdown_tlimit_celsius, Quantity::kCelsius, "temperature.gpu.shutdown_tlimit"),
      [](const S& s) { return Fixed(s.temperature_shutdown_tlimit_celsius, 0); }, false);
  add({"power.draw", "power.draw.average", "power.draw.instant"}, "W", Number(&S::power_draw_watts, Quantity::kWatts, "power.draw"),
      [](const S& s) { return Fixed(s.power_draw_watts, 2); });
  add({"power.limit", "enforced.power.limit", "power.current_limit"}, "W",
      Number(&S::power_limit_watts, Quantity::kWatts, "power.limit"), [](const S& s) { return Fixed(s.power_limit_watts, 2); });
  add({"power.max_limit"}, "W", Number(&S::power_max_limit_watts, Quantity::kWatts, "power.max_limit"),
      [](const S& s) { return Fixed(s.power_max_limit_watts, 2); });
  add({"fan.speed"}, "%",
      [](S* s, std::string_view raw, const FieldContext& c) {
        // "ERR!" (table) or "Unknown Error" (-q, XML): the driver asked and the fan did not answer.
        std::string cell = smi::Trim(raw);
        if (cell == "ERR!" || cell.find("Unknown Error") != std::string::npos) s->fan_speed_error = true;
        if (!s->fan_speed_percent) s->fan_speed_percent = smi::Checked(smi::Number(raw), Quantity::kPercent, "fan.speed", raw, c.where, c.diagnostics);
      },
      [](const S& s) -> std::optional<std::string> {
        if (s.fan_speed_error && !s.fan_speed_percent) return std::string("ERR!");
        return Fixed(s.fan_speed_percent, 0);
      });
  add({"clocks.current.sm", "clocks.sm"}, "MHz", Number(&S::sm_clock_mhz, Quantity::kMegahertz, "clocks.current.sm"),
      [](const S& s) { return Fixed(s.sm_clock_mhz, 0); });
  add({"clocks.current.memory", "clocks.mem"}, "MHz", Number(&S::memory_clock_mhz, Quantity::kMegahertz, "clocks.current.memory"),
      [](const S& s) { return Fixed(s.memory_clock_mhz, 0); });
  add({"clocks.current.graphics", "clocks.gr"}, "MHz", Number(&S::graphics_clock_mhz, Quantity::kMegahertz, "clocks.current.graphics"),
      [](const S& s) { return Fixed(s.graphics_clock_mhz, 0); });
  add({"clocks.max.sm", "clocks.max.sm_clock"}, "MHz", Number(&S::sm_clock_max_mhz, Quantity::kMegahertz, "clocks.max.sm"),
      [](const S& s) { return Fixed(s.sm_clock_max_mhz, 0); });
  add({"clocks.max.memory", "clocks.max.mem"}, "MHz", Number(&S::memory_clock_max_mhz, Quantity::kMegahertz, "clocks.max.memory"),
      [](const S& s) { return Fixed(s.memory_clock_max_mhz, 0); });
  add({"clocks_event_reasons.active", "clocks_throttle_reasons.active"}, "",
      [](S* s, std::string_view raw, const FieldContext&) {
        if (!s->clock_event_reasons) s->clock_event_reasons = smi::Hex(raw);
      },
      [](const S& s) { return s.clock_event_reasons ? std::optional<std::string>(fmt::format("0x{:016X}", *s.clock_event_reasons)) : std::nullopt; });
  struct NamedReason {
    const char* suffix;
    std::uint64_t mask;
  };
  for (const NamedReason& r : {NamedReason{"gpu_idle", clock_event::kGpuIdle},
                               NamedReason{"applications_clocks_setting", clock_event::kApplicationsClocks},
                               NamedReason{"sw_power_cap", clock_event::kSwPowerCap}, NamedReason{"hw_slowdown", clock_event::kHwSlowdown},
                               NamedReason{"hw_thermal_slowdown", clock_event::kHwThermal},
                               NamedReason{"hw_power_brake_slowdown", clock_event::kHwPowerBrake},
                               NamedReason{"sw_thermal_slowdown", clock_event::kSwThermal}, NamedReason{"sync_boost", clock_event::kSyncBoost},
                               NamedReason{"display_clock_setting", clock_event::kDisplayClock}}) {
    add({std::string("clocks_event_reasons.") + r.suffix, std::string("clocks_throttle_reasons.") + r.suffix}, "", Reason(r.mask),
        ReasonGet(r.mask));
  }
  add({"pcie.link.gen.current", "pcie.link.gen.gpucurrent"}, "", Whole(&S::pcie_generation_current, Quantity::kPcieGeneration, "pcie.link.gen.current"),
      [](const S& s) { return IntOf(s.pcie_generation_current); });
  add({"pcie.link.gen.max", "pcie.link.gen.gpumax"}, "", Whole(&S::pcie_generation_max, Quantity::kPcieGeneration, "pcie.link.gen.max"),
      [](const S& s) { return IntOf(s.pcie_generation_max); });
  add({"pcie.link.width.current"}, "", Whole(&S::pcie_width_current, Quantity::kPcieWidth, "pcie.link.width.current"),
      [](const S& s) { return IntOf(s.pcie_width_current); });
  add({"pcie.link.width.max"}, "", Whole(&S::pcie_width_max, Quantity::kPcieWidth, "pcie.link.width.max"),
      [](const S& s) { return IntOf(s.pcie_width_max); });
  add({"pcie.replay_counter"}, "", Number(&S::pcie_replay_count, Quantity::kCount, "pcie.replay_counter"),
      [](const S& s) { return Fixed(s.pcie_replay_count, 0); }, false);
  add({"pcie.tx_throughput"}, "KB/s", KiBps(&S::pcie_tx_bytes_per_s, "pcie.tx_throughput"),
      [](const S& s) { return s.pcie_tx_bytes_per_s ? Fixed(*s.pcie_tx_bytes_per_s / 1024.0, 0) : std::nullopt; }, false);
  add({"pcie.rx_throughput"}, "KB/s", KiBps(&S::pcie_rx_bytes_per_s, "pcie.rx_throughput"),
      [](const S& s) { return s.pcie_rx_bytes_per_s ? Fixed(*s.pcie_rx_bytes_per_s / 1024.0, 0) : std::nullopt; }, false);
  add({"ecc.mode.current"}, "", Bool(&S::ecc_enabled), [](const S& s) { return EnabledOf(s.ecc_enabled); });
  auto count = [&](const char* name, std::optional<double> Snapshot::*member) {
    add({name}, "", Number(member, Quantity::kCount, name), [member](const S& s) { return Fixed(s.*member, 0); });
  };
  count("ecc.errors.corrected.volatile.total", &S::ecc_corrected_volatile);
  count("ecc.errors.uncorrected.volatile.total", &S::ecc_uncorrected_volatile);
  count("ecc.errors.corrected.aggregate.total", &S::ecc_corrected_aggregate);
  count("ecc.errors.uncorrected.aggregate.total", &S::ecc_uncorrected_aggregate);
  add({"ecc.errors.uncorrected.aggregate.sram.thresholdExceeded"}, "", Bool(&S::ecc_sram_threshold_exceeded),
      [](const S& s) { return YesNo(s.ecc_sram_threshold_exceeded); });
  add({"retired_pages.sbe", "retired_pages.single_bit_ecc.count"}, "", Number(&S::retired_pages_sbe, Quantity::kCount, "retired_pages.sbe"),
      [](const S& s) { return Fixed(s.retired_pages_sbe, 0); });
  add({"retired_pages.dbe", "retired_pages.double_bit.count"}, "", Number(&S::retired_pages_dbe, Quantity::kCount, "retired_pages.dbe"),
      [](const S& s) { return Fixed(s.retired_pages_dbe, 0); });
  add({"retired_pages.pending"}, "", Bool(&S::retired_pages_pending), [](const S& s) { return YesNo(s.retired_pages_pending); });
  count("remapped_rows.correctable", &S::remapped_rows_correctable);
  count("remapped_rows.uncorrectable", &S::remapped_rows_uncorrectable);
  add({"remapped_rows.pending"}, "", Bool(&S::remapped_rows_pending), [](const S& s) { return YesNo(s.remapped_rows_pending); });
  add({"remapped_rows.failure"}, "", Bool(&S::remapped_rows_failure), [](const S& s) { return YesNo(s.remapped_rows_failure); });
  add({"repair.pending"}, "", Bool(&S::repair_pending_other), [](const S& s) { return YesNo(s.repair_pending_other); }, false);
  return f;
}

// Units shown in evidence for fields whose CSV cells carry none.
const char* EvidenceUnit(std::string_view name) {
  if (name.rfind("temperature.", 0) == 0) return "C";
  return "";
}

}  // namespace

const std::vector<SnapshotField>& SnapshotFields() {
  static const std::vector<SnapshotField> kFields = BuildFields();
  return kFields;
}

const SnapshotField* FindSnapshotField(std::string_view name) {
  // Parsers look a field up for every value of every GPU: a hash index keeps that constant.
  static const std::unordered_map<std::string_view, const SnapshotField*> kIndex = [] {
    std::unordered_map<std::string_view, const SnapshotField*> index;
    for (const auto& f : SnapshotFields()) {
      for (const auto& n : f.names) index.emplace(n, &f);
    }
    return index;
  }();
  auto it = kIndex.find(name);
  return it == kIndex.end() ? nullptr : it->second;
}

void SetSnapshotField(Snapshot* snapshot, std::string_view name, std::string_view raw, const FieldContext& context) {
  if (const SnapshotField* f = FindSnapshotField(name)) f->set(snapshot, raw, context);
}

std::optional<std::string> SnapshotFieldText(const Snapshot& snapshot, std::string_view name) {
  const SnapshotField* f = FindSnapshotField(name);
  if (f == nullptr) return std::nullopt;
  auto value = f->get(snapshot);
  if (!value) return std::nullopt;
  std::string unit = f->unit.empty() ? EvidenceUnit(name) : f->unit;
  if (*value == "ERR!") return value;
  if (unit == "%") return *value + " %";
  return unit.empty() ? *value : *value + " " + unit;
}

}  // namespace gpuprobe::telemetry
