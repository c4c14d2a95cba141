#include "telemetry/smi_xml_parser.h"

#include <pugixml.hpp>

#include <regex>

#include <fmt/format.h>

#include "telemetry/smi_values.h"

namespace gpuprobe::telemetry {
namespace {

constexpr int kNewestSchema = 13;

std::string Text(const pugi::xml_node& node, const char* path) {
  pugi::xml_node n = node.first_element_by_path(path);
  return n ? smi::Trim(n.child_value()) : std::string();
}
std::optional<double> Num(const pugi::xml_node& node, const char* path) { return smi::Number(Text(node, path)); }
std::optional<double> Mib(const pugi::xml_node& node, const char* path) {
  std::string t = Text(node, path);
  return t.empty() ? std::nullopt : smi::Bytes(t);
}
std::optional<int> Int(const pugi::xml_node& node, const char* path) { return smi::Integer(Text(node, path)); }
std::optional<bool> Flg(const pugi::xml_node& node, const char* path) { return smi::Flag(Text(node, path)); }

std::optional<double> SumChildren(const pugi::xml_node& node, bool uncorrectable) {
  if (!node) return std::nullopt;
  std::optional<double> total;
  for (pugi::xml_node c : node.children()) {
    std::string name = c.name();
    bool is_unc = name.find("uncorrectable") != std::string::npos || name.find("double_bit") != std::string::npos;
    bool is_cor = (name.find("correctable") != std::string::npos && !is_unc) || name.find("single_bit") != std::string::npos;
    if (c.first_child() && c.first_child().type() == pugi::node_element) {
      if (auto nested = SumChildren(c, uncorrectable)) total = total.value_or(0) + *nested;
      continue;
    }
    if ((uncorrectable && is_unc) || (!uncorrectable && is_cor) || (name == "total" && false)) {
      if (auto v = smi::Number(c.child_value())) total = total.value_or(0) + *v;
    }
  }
  return total;
}

Snapshot ParseGpu(const pugi::xml_node& gpu, const pugi::xml_node& log) {
  Snapshot s;
  s.source = "nvidia-smi-xml";
  s.timestamp = Text(log, "timestamp");
  s.driver_version = Text(log, "driver_version");
  if (smi::IsAbsent(s.driver_version) || s.driver_version.find("eprecated") != std::string::npos) {
    s.driver_version = Text(log, "kmd_version");
  }
  std::string cuda = Text(log, "cuda_version");
  if (smi::IsAbsent(cuda)) cuda = Text(log, "cuda_umd_version");
  s.cuda_version = smi::IsAbsent(cuda) ? "" : cuda;
  s.pci_bus_id = gpu.attribute("id").as_string();
  s.name = Text(gpu, "product_name");
  s.architecture = Text(gpu, "product_architecture");
  s.serial = Text(gpu, "serial");
  s.uuid = Text(gpu, "uuid");
  s.vbios_version = Text(gpu, "vbios_version");
  s.persistence_mode = Flg(gpu, "persistence_mode");
  s.mig_enabled = Flg(gpu, "mig_mode/current_mig");
  s.compute_mode = Text(gpu, "compute_mode");
  s.performance_state = Text(gpu, "performance_state");
  if (smi::IsAbsent(s.performance_state)) s.performance_state.clear();
  if (auto id = smi::Hex("0x" + Text(gpu, "pci/pci_device_id"))) s.pci_device_id = static_cast<std::uint32_t>(*id);
  std::string bus = Text(gpu, "pci/pci_bus_id");
  if (!bus.empty()) s.pci_bus_id = bus;
  s.pcie_generation_max = Int(gpu, "pci/pci_gpu_link_info/pcie_gen/max_link_gen");
  s.pcie_generation_current = Int(gpu, "pci/pci_gpu_link_info/pcie_gen/current_link_gen");
  s.pcie_width_max = Int(gpu, "pci/pci_gpu_link_info/link_widths/max_link_width");
  s.pcie_width_current = Int(gpu, "pci/pci_gpu_link_info/link_widths/current_link_width");
  s.pcie_replay_count = Num(gpu, "pci/replay_counter");
  s.pcie_tx_bytes_per_s = smi::KilobytesPerSecond(Text(gpu, "pci/tx_util"));
  s.pcie_rx_bytes_per_s = smi::KilobytesPerSecond(Text(gpu, "pci/rx_util"));
  s.fan_speed_percent = Num(gpu, "fan_speed");

  // <clocks_throttle_reasons> (<= 525) was renamed <clocks_event_reasons> (570+).
  for (const char* section : {"clocks_event_reasons", "clocks_throttle_reasons"}) {
    pugi::xml_node reasons = gpu.child(section);
    if (!reasons) continue;
    std::uint64_t bits = 0;
    bool any = false;
    struct Bit { const char* suffix; std::uint64_t mask; };
    const Bit kBits[] = {{"gpu_idle", clock_event::kGpuIdle}, {"applications_clocks_setting", clock_event::kApplicationsClocks},
                         {"sw_power_cap", clock_event::kSwPowerCap}, {"hw_slowdown", clock_event::kHwSlowdown},
                         {"hw_thermal_slowdown", clock_event::kHwThermal}, {"hw_power_brake_slowdown", clock_event::kHwPowerBrake},
                         {"sync_boost", clock_event::kSyncBoost}, {"sw_thermal_slowdown", clock_event::kSwThermal},
                         {"display_clocks_setting", clock_event::kDisplayClock}};
    for (pugi::xml_node c : reasons.children()) {
      std::string name = c.name();
      for (const auto& b : kBits) {
        std::string suffix = std::string("_") + b.suffix;
        if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 &&
            !(std::string(b.suffix) == "hw_slowdown" && (name.find("thermal") != std::string::npos || name.find("brake") != std::string::npos))) {
          if (auto v = smi::Flag(c.child_value())) {
            any = true;
            if (*v) bits |= b.mask;
          }
        }
      }
    }
    if (any) s.clock_event_reasons = bits;
    break;
  }

  s.memory_total_bytes = Mib(gpu, "fb_memory_usage/total");
  s.memory_reserved_bytes = Mib(gpu, "fb_memory_usage/reserved");
  s.memory_used_bytes = Mib(gpu, "fb_memory_usage/used");
  s.memory_free_bytes = Mib(gpu, "fb_memory_usage/free");
  s.bar1_total_bytes = Mib(gpu, "bar1_memory_usage/total");
  s.bar1_used_bytes = Mib(gpu, "bar1_memory_usage/used");
  s.utilization_gpu_percent = Num(gpu, "utilization/gpu_util");
  s.utilization_memory_percent = Num(gpu, "utilization/memory_util");
  s.utilization_encoder_percent = Num(gpu, "utilization/encoder_util");
  s.utilization_decoder_percent = Num(gpu, "utilization/decoder_util");
  s.ecc_enabled = Flg(gpu, "ecc_mode/current_ecc");
  pugi::xml_node ecc = gpu.child("ecc_errors");
  s.ecc_corrected_volatile = SumChildren(ecc.child("volatile"), false);
  s.ecc_uncorrected_volatile = SumChildren(ecc.child("volatile"), true);
  s.ecc_corrected_aggregate = SumChildren(ecc.child("aggregate"), false);
  s.ecc_uncorrected_aggregate = SumChildren(ecc.child("aggregate"), true);
  s.retired_pages_sbe = Num(gpu, "retired_pages/multiple_single_bit_retirement/retired_count");
  s.retired_pages_dbe = Num(gpu, "retired_pages/double_bit_retirement/retired_count");
  s.retired_pages_pending = Flg(gpu, "retired_pages/pending_retirement");
  if (!s.retired_pages_pending) s.retired_pages_pending = Flg(gpu, "retired_pages/pending_blacklist");
  s.remapped_rows_correctable = Num(gpu, "remapped_rows/remapped_row_corr");
  s.remapped_rows_uncorrectable = Num(gpu, "remapped_rows/remapped_row_unc");
  s.remapped_rows_pending = Flg(gpu, "remapped_rows/remapped_row_pending");
  s.remapped_rows_failure = Flg(gpu, "remapped_rows/remapped_row_failure");

  s.temperature_celsius = Num(gpu, "temperature/gpu_temp");
  s.memory_temperature_celsius = Num(gpu, "temperature/memory_temp");
  s.temperature_slowdown_celsius = Num(gpu, "temperature/gpu_temp_slow_threshold");
  s.temperature_shutdown_celsius = Num(gpu, "temperature/gpu_temp_max_threshold");
  s.temperature_margin_celsius = Num(gpu, "temperature/gpu_temp_tlimit");

  // <power_readings> (<= 525) -> <gpu_power_readings> (535+), draw -> average/instant (570+).
  for (const char* section : {"gpu_power_readings", "power_readings"}) {
    pugi::xml_node power = gpu.child(section);
    if (!power) continue;
    for (const char* field : {"average_power_draw", "power_draw", "instant_power_draw"}) {
      if (!s.power_draw_watts) s.power_draw_watts = Num(power, field);
    }
    for (const char* field : {"current_power_limit", "enforced_power_limit", "power_limit"}) {
      if (!s.power_limit_watts) s.power_limit_watts = Num(power, field);
    }
    if (!s.power_max_limit_watts) s.power_max_limit_watts = Num(power, "max_power_limit");
  }
  s.sm_clock_mhz = Num(gpu, "clocks/sm_clock");
  s.graphics_clock_mhz = Num(gpu, "clocks/graphics_clock");
  s.memory_clock_mhz = Num(gpu, "clocks/mem_clock");
  s.sm_clock_max_mhz = Num(gpu, "max_clocks/sm_clock");
  s.memory_clock_max_mhz = Num(gpu, "max_clocks/mem_clock");

  for (pugi::xml_node m : gpu.child("mig_devices").children("mig_device")) {
    MigInstance mig;
    mig.gpu_instance_id = Int(m, "gpu_instance_id");
    mig.compute_instance_id = Int(m, "compute_instance_id");
    mig.sm_count = Int(m, "device_attributes/shared/multiprocessor_count");
    mig.memory_total_bytes = Mib(m, "fb_memory_usage/total");
    mig.memory_used_bytes = Mib(m, "fb_memory_usage/used");
    s.mig_instances.push_back(mig);
  }
  pugi::xml_node processes = gpu.child("processes");
  if (processes) {
    s.processes_known = true;
    for (pugi::xml_node p : processes.children("process_info")) {
      ProcessInfo info;
      auto pid = Num(p, "pid");
      info.pid = pid ? static_cast<std::uint32_t>(*pid) : 0;
      info.type = Text(p, "type");
      info.name = Text(p, "process_name");
      info.used_memory_bytes = Mib(p, "used_memory");
      info.gpu_instance_id = Int(p, "gpu_instance_id");
      info.compute_instance_id = Int(p, "compute_instance_id");
      s.processes.push_back(info);
    }
  }
  return s;
}

}  // namespace

core::Result<XmlParseResult> ParseSmiXml(std::string_view xml) {
  // Entity declarations are how XXE and billion-laughs attacks begin; real captures have none.
  if (xml.find("<!ENTITY") != std::string_view::npos) {
    return core::Status::ParseError("the XML declares entities, which nvidia-smi never does; refusing to read it");
  }
  pugi::xml_document document;
  pugi::xml_parse_result parsed = document.load_buffer(xml.data(), xml.size(), pugi::parse_default, pugi::encoding_utf8);
  if (!parsed) {
    return core::Status::ParseError(fmt::format("malformed XML at byte {}: {}", parsed.offset, parsed.description()));
  }
  pugi::xml_node log = document.child("nvidia_smi_log");
  if (!log) return core::Status::ParseError("not nvidia-smi -q -x output: the root element is not <nvidia_smi_log>");
  XmlParseResult result;
  // The DOCTYPE names the schema: <!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">.
  std::string head(xml.substr(0, std::min<size_t>(xml.size(), 512)));
  std::smatch match;
  if (std::regex_search(head, match, std::regex(R"(nvsmi_device_v(\d+)\.dtd)"))) result.schema_version = std::stoi(match[1]);
  if (result.schema_version < 10 || result.schema_version > kNewestSchema) {
    result.warnings.push_back(fmt::format("schema {} is not one gpuprobe knows (v10-v{}); read as v{}",
                                          result.schema_version == 0 ? std::string("unnamed") : "v" + std::to_string(result.schema_version),
                                          kNewestSchema, kNewestSchema));
  }
  for (pugi::xml_node gpu : log.children("gpu")) {
    Snapshot s = ParseGpu(gpu, log);
    s.index = static_cast<int>(result.gpus.size());
    result.gpus.push_back(std::move(s));
  }
  if (result.gpus.empty()) return core::Status::ParseError("nvidia-smi -q -x output lists no <gpu> block");
  auto attached = smi::Integer(Text(log, "attached_gpus"));
  if (attached && *attached != static_cast<int>(result.gpus.size())) {
    result.warnings.push_back(fmt::format("attached_gpus says {} but the file has {} <gpu> block(s); trusting the blocks",
                                          *attached, result.gpus.size()));
  }
  return result;
}

}  // namespace gpuprobe::telemetry
