#include "telemetry/smi_csv.h"

#include <cmath>
#include <functional>
#include <sstream>

#include <fmt/format.h>

#include "core/spelling.h"
#include "telemetry/smi_values.h"

namespace gpuprobe::telemetry {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

struct Field {
  std::vector<std::string> names;  // first is the canonical one
  std::string unit;                // printed in the header "[MiB]" and after values
  std::function<void(Snapshot*, const std::string&)> set;
  std::function<std::optional<std::string>(const Snapshot&)> get;
};

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

const std::vector<Field>& Fields() {
  static const std::vector<Field> kFields = [] {
    std::vector<Field> f;
    auto num = [](std::optional<double> Snapshot::*member) {
      return [member](Snapshot* s, const std::string& c) { s->*member = smi::Number(c); };
    };
    auto mib = [](std::optional<double> Snapshot::*member) {
      return [member](Snapshot* s, const std::string& c) { s->*member = smi::Bytes(c); };
    };
    auto text = [](std::string Snapshot::*member) {
      return [member](Snapshot* s, const std::string& c) {
        if (!smi::IsAbsent(c)) s->*member = smi::Trim(c);
      };
    };
    f.push_back({{"index"}, "", [](Snapshot* s, const std::string& c) { s->index = smi::Integer(c); },
                 [](const Snapshot& s) { return s.index ? std::optional<std::string>(std::to_string(*s.index)) : std::nullopt; }});
    f.push_back({{"name", "gpu_name"}, "", text(&Snapshot::name), [](const Snapshot& s) { return Str(s.name); }});
    f.push_back({{"uuid", "gpu_uuid"}, "", text(&Snapshot::uuid), [](const Snapshot& s) { return Str(s.uuid); }});
    f.push_back({{"serial", "gpu_serial"}, "", text(&Snapshot::serial), [](const Snapshot& s) { return Str(s.serial); }});
    f.push_back({{"pci.bus_id", "gpu_bus_id"}, "", text(&Snapshot::pci_bus_id), [](const Snapshot& s) { return Str(s.pci_bus_id); }});
    f.push_back({{"pci.device_id"}, "",
                 [](Snapshot* s, const std::string& c) {
                   if (auto v = smi::Hex(c)) s->pci_device_id = static_cast<std::uint32_t>(*v);
                 },
                 [](const Snapshot& s) {
                   return s.pci_device_id ? std::optional<std::string>(fmt::format("0x{:08X}", *s.pci_device_id)) : std::nullopt;
                 }});
    f.push_back({{"driver_version", "kmd_version"}, "",
                 [](Snapshot* s, const std::string& c) {
                   if (!smi::IsAbsent(c) && s->driver_version.empty()) s->driver_version = smi::Trim(c);
                 },
                 [](const Snapshot& s) { return Str(s.driver_version); }});
    f.push_back({{"vbios_version"}, "", text(&Snapshot::vbios_version), [](const Snapshot& s) { return Str(s.vbios_version); }});
    f.push_back({{"compute_cap"}, "", text(&Snapshot::compute_capability), [](const Snapshot& s) { return Str(s.compute_capability); }});
    f.push_back({{"persistence_mode"}, "", [](Snapshot* s, const std::string& c) { s->persistence_mode = smi::Flag(c); },
                 [](const Snapshot& s) { return EnabledOf(s.persistence_mode); }});
    f.push_back({{"compute_mode"}, "", text(&Snapshot::compute_mode), [](const Snapshot& s) { return Str(s.compute_mode); }});
    f.push_back({{"mig.mode.current"}, "", [](Snapshot* s, const std::string& c) { s->mig_enabled = smi::Flag(c); },
                 [](const Snapshot& s) { return EnabledOf(s.mig_enabled); }});
    f.push_back({{"pstate"}, "", text(&Snapshot::performance_state), [](const Snapshot& s) { return Str(s.performance_state); }});
    f.push_back({{"memory.total"}, "MiB", mib(&Snapshot::memory_total_bytes), [](const Snapshot& s) { return MibOf(s.memory_total_bytes); }});
    f.push_back({{"memory.reserved"}, "MiB", mib(&Snapshot::memory_reserved_bytes), [](const Snapshot& s) { return MibOf(s.memory_reserved_bytes); }});
    f.push_back({{"memory.used"}, "MiB", mib(&Snapshot::memory_used_bytes), [](const Snapshot& s) { return MibOf(s.memory_used_bytes); }});
    f.push_back({{"memory.free"}, "MiB", mib(&Snapshot::memory_free_bytes), [](const Snapshot& s) { return MibOf(s.memory_free_bytes); }});
    f.push_back({{"utilization.gpu"}, "%", num(&Snapshot::utilization_gpu_percent), [](const Snapshot& s) { return Fixed(s.utilization_gpu_percent, 0); }});
    f.push_back({{"utilization.memory"}, "%", num(&Snapshot::utilization_memory_percent), [](const Snapshot& s) { return Fixed(s.utilization_memory_percent, 0); }});
    f.push_back({{"utilization.encoder"}, "%", num(&Snapshot::utilization_encoder_percent), [](const Snapshot& s) { return Fixed(s.utilization_encoder_percent, 0); }});
    f.push_back({{"utilization.decoder"}, "%", num(&Snapshot::utilization_decoder_percent), [](const Snapshot& s) { return Fixed(s.utilization_decoder_percent, 0); }});
    f.push_back({{"temperature.gpu"}, "", num(&Snapshot::temperature_celsius), [](const Snapshot& s) { return Fixed(s.temperature_celsius, 0); }});
    f.push_back({{"temperature.memory"}, "", num(&Snapshot::memory_temperature_celsius), [](const Snapshot& s) { return Fixed(s.memory_temperature_celsius, 0); }});
    f.push_back({{"power.draw", "power.draw.average"}, "W",
                 [](Snapshot* s, const std::string& c) {
                   if (!s->power_draw_watts) s->power_draw_watts = smi::Number(c);
                 },
                 [](const Snapshot& s) { return Fixed(s.power_draw_watts, 2); }});
    f.push_back({{"power.limit", "enforced.power.limit", "power.current_limit"}, "W",
                 [](Snapshot* s, const std::string& c) {
                   if (!s->power_limit_watts) s->power_limit_watts = smi::Number(c);
                 },
                 [](const Snapshot& s) { return Fixed(s.power_limit_watts, 2); }});
    f.push_back({{"power.max_limit"}, "W", num(&Snapshot::power_max_limit_watts), [](const Snapshot& s) { return Fixed(s.power_max_limit_watts, 2); }});
    f.push_back({{"fan.speed"}, "%", num(&Snapshot::fan_speed_percent), [](const Snapshot& s) { return Fixed(s.fan_speed_percent, 0); }});
    f.push_back({{"clocks.current.sm", "clocks.sm"}, "MHz", num(&Snapshot::sm_clock_mhz), [](const Snapshot& s) { return Fixed(s.sm_clock_mhz, 0); }});
    f.push_back({{"clocks.current.memory", "clocks.mem"}, "MHz", num(&Snapshot::memory_clock_mhz), [](const Snapshot& s) { return Fixed(s.memory_clock_mhz, 0); }});
    f.push_back({{"clocks.current.graphics", "clocks.gr"}, "MHz", num(&Snapshot::graphics_clock_mhz), [](const Snapshot& s) { return Fixed(s.graphics_clock_mhz, 0); }});
    f.push_back({{"clocks.max.sm", "clocks.max.sm_clock"}, "MHz", num(&Snapshot::sm_clock_max_mhz), [](const Snapshot& s) { return Fixed(s.sm_clock_max_mhz, 0); }});
    f.push_back({{"clocks.max.memory", "clocks.max.mem"}, "MHz", num(&Snapshot::memory_clock_max_mhz), [](const Snapshot& s) { return Fixed(s.memory_clock_max_mhz, 0); }});
    f.push_back({{"clocks_event_reasons.active", "clocks_throttle_reasons.active"}, "",
                 [](Snapshot* s, const std::string& c) { s->clock_event_reasons = smi::Hex(c); },
                 [](const Snapshot& s) {
                   return s.clock_event_reasons ? std::optional<std::string>(fmt::format("0x{:016X}", *s.clock_event_reasons)) : std::nullopt;
                 }});
    auto int_field = [](std::optional<int> Snapshot::*member) {
      return [member](Snapshot* s, const std::string& c) { s->*member = smi::Integer(c); };
    };
    auto int_get = [](std::optional<int> Snapshot::*member) {
      return [member](const Snapshot& s) {
        return (s.*member) ? std::optional<std::string>(std::to_string(*(s.*member))) : std::nullopt;
      };
    };
    f.push_back({{"pcie.link.gen.current", "pcie.link.gen.gpucurrent"}, "",
                 [](Snapshot* s, const std::string& c) {
                   if (!s->pcie_generation_current) s->pcie_generation_current = smi::Integer(c);
                 },
                 int_get(&Snapshot::pcie_generation_current)});
    f.push_back({{"pcie.link.gen.max", "pcie.link.gen.gpumax"}, "",
                 [](Snapshot* s, const std::string& c) {
                   if (!s->pcie_generation_max) s->pcie_generation_max = smi::Integer(c);
                 },
                 int_get(&Snapshot::pcie_generation_max)});
    f.push_back({{"pcie.link.width.current"}, "", int_field(&Snapshot::pcie_width_current), int_get(&Snapshot::pcie_width_current)});
    f.push_back({{"pcie.link.width.max"}, "", int_field(&Snapshot::pcie_width_max), int_get(&Snapshot::pcie_width_max)});
    f.push_back({{"ecc.mode.current"}, "", [](Snapshot* s, const std::string& c) { s->ecc_enabled = smi::Flag(c); },
                 [](const Snapshot& s) { return EnabledOf(s.ecc_enabled); }});
    f.push_back({{"ecc.errors.corrected.volatile.total"}, "", num(&Snapshot::ecc_corrected_volatile), [](const Snapshot& s) { return Fixed(s.ecc_corrected_volatile, 0); }});
    f.push_back({{"ecc.errors.uncorrected.volatile.total"}, "", num(&Snapshot::ecc_uncorrected_volatile), [](const Snapshot& s) { return Fixed(s.ecc_uncorrected_volatile, 0); }});
    f.push_back({{"ecc.errors.corrected.aggregate.total"}, "", num(&Snapshot::ecc_corrected_aggregate), [](const Snapshot& s) { return Fixed(s.ecc_corrected_aggregate, 0); }});
    f.push_back({{"ecc.errors.uncorrected.aggregate.total"}, "", num(&Snapshot::ecc_uncorrected_aggregate), [](const Snapshot& s) { return Fixed(s.ecc_uncorrected_aggregate, 0); }});
    f.push_back({{"retired_pages.sbe", "retired_pages.single_bit_ecc.count"}, "", num(&Snapshot::retired_pages_sbe), [](const Snapshot& s) { return Fixed(s.retired_pages_sbe, 0); }});
    f.push_back({{"retired_pages.dbe", "retired_pages.double_bit.count"}, "", num(&Snapshot::retired_pages_dbe), [](const Snapshot& s) { return Fixed(s.retired_pages_dbe, 0); }});
    f.push_back({{"retired_pages.pending"}, "", [](Snapshot* s, const std::string& c) { s->retired_pages_pending = smi::Flag(c); },
                 [](const Snapshot& s) { return s.retired_pages_pending ? std::optional<std::string>(*s.retired_pages_pending ? "Yes" : "No") : std::nullopt; }});
    f.push_back({{"remapped_rows.correctable"}, "", num(&Snapshot::remapped_rows_correctable), [](const Snapshot& s) { return Fixed(s.remapped_rows_correctable, 0); }});
    f.push_back({{"remapped_rows.uncorrectable"}, "", num(&Snapshot::remapped_rows_uncorrectable), [](const Snapshot& s) { return Fixed(s.remapped_rows_uncorrectable, 0); }});
    f.push_back({{"remapped_rows.pending"}, "", [](Snapshot* s, const std::string& c) { s->remapped_rows_pending = smi::Flag(c); },
                 [](const Snapshot& s) { return s.remapped_rows_pending ? std::optional<std::string>(*s.remapped_rows_pending ? "Yes" : "No") : std::nullopt; }});
    f.push_back({{"remapped_rows.failure"}, "", [](Snapshot* s, const std::string& c) { s->remapped_rows_failure = smi::Flag(c); },
                 [](const Snapshot& s) { return s.remapped_rows_failure ? std::optional<std::string>(*s.remapped_rows_failure ? "Yes" : "No") : std::nullopt; }});
    return f;
  }();
  return kFields;
}

const Field* FindField(const std::string& name) {
  for (const auto& f : Fields()) {
    for (const auto& n : f.names) {
      if (n == name) return &f;
    }
  }
  return nullptr;
}

std::vector<std::string> SplitCells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (char c : line) {
    if (c == ',') {
      cells.push_back(smi::Trim(cell));
      cell.clear();
    } else {
      cell.push_back(c);
    }
  }
  cells.push_back(smi::Trim(cell));
  return cells;
}

}  // namespace

const std::vector<std::string>& QueryGpuFields() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const auto& f : Fields()) names.insert(names.end(), f.names.begin(), f.names.end());
    return names;
  }();
  return kNames;
}

core::Result<std::vector<Snapshot>> ParseSmiCsv(std::string_view csv) {
  std::istringstream in{std::string(csv)};
  std::string line;
  std::vector<const Field*> columns;
  bool header_seen = false;
  int known = 0;
  int line_number = 0;
  std::vector<Snapshot> out;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (smi::Trim(line).empty()) continue;
    std::vector<std::string> cells = SplitCells(line);
    if (!header_seen) {
      for (auto& cell : cells) {
        std::string name = cell.substr(0, cell.find(" ["));  // "memory.used [MiB]"
        const Field* f = FindField(name);
        if (f) ++known;
        columns.push_back(f);
      }
      header_seen = true;
      if (known == 0) {
        return core::Status::ParseError("the CSV header names no nvidia-smi --query-gpu field gpuprobe knows "
                                        "(a header line is required: do not use 'noheader')");
      }
      continue;
    }
    if (cells.size() != columns.size()) {
      return core::Status::ParseError(fmt::format("CSV line {} has {} cells but the header has {}", line_number, cells.size(),
                                                  columns.size()));
    }
    Snapshot s;
    s.source = "nvidia-smi-csv";
    for (size_t i = 0; i < cells.size(); ++i) {
      if (columns[i] != nullptr) columns[i]->set(&s, cells[i]);
    }
    if (!s.index) s.index = static_cast<int>(out.size());
    out.push_back(std::move(s));
  }
  if (!header_seen) return core::Status::ParseError("the CSV is empty");
  if (out.empty()) return core::Status::ParseError("the CSV has a header but no GPU rows");
  return out;
}

core::Result<CsvFormat> ParseCsvFormat(const std::string& format) {
  CsvFormat f;
  std::vector<std::string> parts = SplitCells(format);
  if (parts.empty() || parts[0] != "csv") {
    return core::Status::InvalidArgument("--format must start with csv (csv, csv,noheader, csv,nounits)");
  }
  for (size_t i = 1; i < parts.size(); ++i) {
    if (parts[i] == "noheader") f.header = false;
    else if (parts[i] == "nounits") f.units = false;
    else return core::Status::InvalidArgument("unknown --format option '" + parts[i] + "' (use noheader, nounits)");
  }
  return f;
}

core::Result<std::string> FormatQueryGpu(const std::vector<Snapshot>& gpus, const std::string& fields, const CsvFormat& format) {
  std::vector<std::string> names = SplitCells(fields);
  std::vector<const Field*> columns;
  for (const auto& name : names) {
    const Field* f = FindField(name);
    if (f == nullptr) {
      auto near = core::ClosestMatches(name, QueryGpuFields());
      return core::Status::InvalidArgument(
          fmt::format("'{}' is not a valid field to query{}", name, near.empty() ? "" : fmt::format("; did you mean '{}'?", near.front())),
          "gpuprobe inspect --query-gpu=help lists the fields");
    }
    columns.push_back(f);
  }
  std::string out;
  if (format.header) {
    for (size_t i = 0; i < names.size(); ++i) {
      out += (i ? ", " : "") + names[i];
      if (format.units && !columns[i]->unit.empty()) out += " [" + columns[i]->unit + "]";
    }
    out += "\n";
  }
  for (const auto& s : gpus) {
    for (size_t i = 0; i < columns.size(); ++i) {
      auto value = columns[i]->get(s);
      std::string cell = value ? *value : "[N/A]";
      if (value && format.units && !columns[i]->unit.empty()) cell += " " + columns[i]->unit;
      out += (i ? ", " : "") + cell;
    }
    out += "\n";
  }
  return out;
}

}  // namespace gpuprobe::telemetry
