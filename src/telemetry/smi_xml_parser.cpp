#include "telemetry/smi_xml_parser.h"

#include <pugixml.hpp>

#include <charconv>

#include <fmt/format.h>

#include "telemetry/smi_values.h"
#include "telemetry/snapshot_fields.h"

namespace gpuprobe::telemetry {
namespace {

constexpr int kNewestSchema = 13;

// nvidia-smi's deepest element (a MIG device's shared attributes) sits 6 levels below the
// root; anything near this limit is not nvidia-smi output, and a limit keeps every later walk
// of the tree cheap and bounded.
constexpr int kMaxDepth = 32;

std::string Raw(const pugi::xml_node& node, const char* path) {
  pugi::xml_node n = node.first_element_by_path(path);
  return n ? std::string(n.child_value()) : std::string();
}

// Each element's path below <gpu> and the --query-gpu field it holds, in the order a parser
// should prefer them (the first value present wins, see SnapshotField::set).
struct XmlField {
  const char* path;
  const char* field;
};
constexpr XmlField kGpuFields[] = {
    {"product_name", "name"},
    {"uuid", "uuid"},
    {"serial", "serial"},
    {"vbios_version", "vbios_version"},
    {"persistence_mode", "persistence_mode"},
    {"driver_model/current_dm", "driver_model.current"},
    {"display_active", "display_active"},
    {"gpu_virtualization_mode/virtualization_mode", "virtualization_mode"},
    {"mig_mode/current_mig", "mig.mode.current"},
    {"multigpu_board", "multigpu_board"},
    {"compute_mode", "compute_mode"},
    {"performance_state", "pstate"},
    {"pci/pci_bus_id", "pci.bus_id"},
    {"pci/pci_gpu_link_info/pcie_gen/max_link_gen", "pcie.link.gen.max"},
    {"pci/pci_gpu_link_info/pcie_gen/current_link_gen", "pcie.link.gen.current"},
    {"pci/pci_gpu_link_info/pcie_gen/device_current_link_gen", "pcie.link.gen.current"},
    {"pci/pci_gpu_link_info/link_widths/max_link_width", "pcie.link.width.max"},
    {"pci/pci_gpu_link_info/link_widths/current_link_width", "pcie.link.width.current"},
    {"pci/replay_counter", "pcie.replay_counter"},
    {"pci/tx_util", "pcie.tx_throughput"},
    {"pci/rx_util", "pcie.rx_throughput"},
    {"fan_speed", "fan.speed"},
    {"fb_memory_usage/total", "memory.total"},
    {"fb_memory_usage/reserved", "memory.reserved"},
    {"fb_memory_usage/used", "memory.used"},
    {"fb_memory_usage/free", "memory.free"},
    {"bar1_memory_usage/total", "bar1.total"},
    {"bar1_memory_usage/used", "bar1.used"},
    {"utilization/gpu_util", "utilization.gpu"},
    {"utilization/memory_util", "utilization.memory"},
    {"utilization/encoder_util", "utilization.encoder"},
    {"utilization/decoder_util", "utilization.decoder"},
    {"ecc_mode/current_ecc", "ecc.mode.current"},
    {"ecc_errors/aggregate/sram_threshold_exceeded", "ecc.errors.uncorrected.aggregate.sram.thresholdExceeded"},
    {"retired_pages/multiple_single_bit_retirement/retired_count", "retired_pages.sbe"},
    {"retired_pages/double_bit_retirement/retired_count", "retired_pages.dbe"},
    {"retired_pages/pending_retirement", "retired_pages.pending"},
    {"retired_pages/pending_blacklist", "retired_pages.pending"},
    {"remapped_rows/remapped_row_corr", "remapped_rows.correctable"},
    {"remapped_rows/remapped_row_unc", "remapped_rows.uncorrectable"},
    {"remapped_rows/remapped_row_pending", "remapped_rows.pending"},
    {"remapped_rows/remapped_row_failure", "remapped_rows.failure"},
    {"temperature/gpu_temp", "temperature.gpu"},
    {"temperature/memory_temp", "temperature.memory"},
    {"temperature/gpu_temp_slow_threshold", "temperature.gpu.slowdown_threshold"},
    {"temperature/gpu_temp_max_threshold", "temperature.gpu.shutdown_threshold"},
    {"temperature/gpu_temp_tlimit", "temperature.gpu.tlimit"},
    {"temperature/gpu_temp_slow_tlimit_threshold", "temperature.gpu.slowdown_tlimit"},
    {"temperature/gpu_temp_max_tlimit_threshold", "temperature.gpu.shutdown_tlimit"},
    // <power_readings> (<= 525) became <gpu_power_readings> (535+); draw became average and
    // instant (570+).
    {"gpu_power_readings/power_draw", "power.draw"},
    {"gpu_power_readings/average_power_draw", "power.draw"},
    {"gpu_power_readings/instant_power_draw", "power.draw"},
    {"power_readings/power_draw", "power.draw"},
    {"power_readings/average_power_draw", "power.draw"},
    {"power_readings/instant_power_draw", "power.draw"},
    {"gpu_power_readings/current_power_limit", "power.limit"},
    {"gpu_power_readings/enforced_power_limit", "power.limit"},
    {"gpu_power_readings/power_limit", "power.limit"},
    {"power_readings/current_power_limit", "power.limit"},
    {"power_readings/enforced_power_limit", "power.limit"},
    {"power_readings/power_limit", "power.limit"},
    {"gpu_power_readings/max_power_limit", "power.max_limit"},
    {"power_readings/max_power_limit", "power.max_limit"},
    {"clocks/sm_clock", "clocks.current.sm"},
    {"clocks/graphics_clock", "clocks.current.graphics"},
    {"clocks/mem_clock", "clocks.current.memory"},
    {"max_clocks/sm_clock", "clocks.max.sm"},
    {"max_clocks/mem_clock", "clocks.max.memory"},
};

// The error counts of one ECC block (<volatile> or <aggregate>), in every layout nvidia-smi
// has used: <single_bit>/<double_bit> with per-unit counts and (usually) a <total> (drivers
// 3xx-4xx, kept for Pascal and older); <sram_correctable>/<sram_uncorrectable>/<dram_*>
// (Ampere, 450+); and <sram_uncorrectable_parity>/<sram_uncorrectable_secded> (535+).
struct EccCounts {
  std::optional<double> corrected, uncorrected;
};

std::optional<double> Add(std::optional<double> total, std::optional<double> value) {
  if (!value) return total;
  return total.value_or(0) + *value;
}

// The <total> of an old-style <single_bit> block, or the sum of its per-unit counts when a
// driver printed no total. A fixed two-level look, never a recursion over the document.
std::optional<double> OldBlockTotal(const pugi::xml_node& block) {
  if (!block) return std::nullopt;
  if (auto total = smi::Number(block.child_value("total"))) return total;
  std::optional<double> sum;
  for (pugi::xml_node unit : block.children()) sum = Add(sum, smi::Number(unit.child_value()));
  return sum;
}

EccCounts ReadEccBlock(const pugi::xml_node& block) {
  EccCounts counts;
  if (!block) return counts;
  if (block.child("single_bit") || block.child("double_bit")) {
    counts.corrected = OldBlockTotal(block.child("single_bit"));
    counts.uncorrected = OldBlockTotal(block.child("double_bit"));
    return counts;
  }
  for (const char* name : {"sram_correctable", "dram_correctable"}) counts.corrected = Add(counts.corrected, smi::Number(block.child_value(name)));
  for (const char* name : {"sram_uncorrectable", "sram_uncorrectable_parity", "sram_uncorrectable_secded", "dram_uncorrectable"}) {
    counts.uncorrected = Add(counts.uncorrected, smi::Number(block.child_value(name)));
  }
  return counts;
}

std::string CountText(std::optional<double> v) { return v ? fmt::format("{}", *v) : std::string(); }

// Clock-event reasons: <clocks_event_reasons>/<clocks_event_reason_X> (570+) or
// <clocks_throttle_reasons>/<clocks_throttle_reason_X> (older); X names the bit.
void ReadReasons(const pugi::xml_node& gpu, Snapshot* s, const FieldContext& context) {
  for (const char* section : {"clocks_event_reasons", "clocks_throttle_reasons"}) {
    pugi::xml_node reasons = gpu.child(section);
    if (!reasons) continue;
    for (pugi::xml_node c : reasons.children()) {
      std::string name = c.name();
      size_t at = name.find("reason_");
      if (at == std::string::npos) continue;
      std::string bit = name.substr(at + 7);
      if (bit == "display_clocks_setting") bit = "display_clock_setting";
      SetSnapshotField(s, "clocks_event_reasons." + bit, c.child_value(), context);
    }
    return;
  }
}

void ReadProcesses(const pugi::xml_node& gpu, Snapshot* s, const FieldContext& context) {
  pugi::xml_node processes = gpu.child("processes");
  if (!processes) return;
  s->processes_known = true;
  for (pugi::xml_node p : processes.children("process_info")) {
    ProcessInfo info;
    std::string pid = Raw(p, "pid");
    info.pid = smi::ToUint32(smi::Checked(smi::Number(pid), smi::Quantity::kCount, "process pid", pid, context.where,
                                          context.diagnostics)).value_or(0);
    info.type = smi::CleanText(Raw(p, "type"), "process type", context.where, context.diagnostics);
    info.name = smi::CleanText(Raw(p, "process_name"), "process name", context.where, context.diagnostics);
    std::string used = Raw(p, "used_memory");
    info.used_memory_bytes = smi::Checked(smi::Bytes(used), smi::Quantity::kBytes, "process used_memory", used, context.where,
                                          context.diagnostics);
    info.gpu_instance_id = smi::Integer(Raw(p, "gpu_instance_id"));
    info.compute_instance_id = smi::Integer(Raw(p, "compute_instance_id"));
    s->processes.push_back(std::move(info));
  }
}

void ReadMig(const pugi::xml_node& gpu, Snapshot* s, const FieldContext& context) {
  for (pugi::xml_node m : gpu.child("mig_devices").children("mig_device")) {
    MigInstance mig;
    mig.gpu_instance_id = smi::Integer(Raw(m, "gpu_instance_id"));
    mig.compute_instance_id = smi::Integer(Raw(m, "compute_instance_id"));
    mig.sm_count = smi::Integer(Raw(m, "device_attributes/shared/multiprocessor_count"));
    std::string total = Raw(m, "fb_memory_usage/total"), used = Raw(m, "fb_memory_usage/used");
    mig.memory_total_bytes = smi::Checked(smi::Bytes(total), smi::Quantity::kBytes, "MIG memory total", total, context.where, context.diagnostics);
    mig.memory_used_bytes = smi::Checked(smi::Bytes(used), smi::Quantity::kBytes, "MIG memory used", used, context.where, context.diagnostics);
    s->mig_instances.push_back(mig);
  }
}

// What every <gpu> shares, read once (reading it per GPU from the root made large documents
// quadratic).
struct Header {
  std::string timestamp, driver_version, cuda_version;
};

Header ReadHeader(const pugi::xml_node& log, smi::Diagnostics* diagnostics) {
  Header h;
  h.timestamp = smi::CleanText(log.child_value("timestamp"), "timestamp", "", diagnostics);
  h.driver_version = smi::CleanText(log.child_value("driver_version"), "driver_version", "", diagnostics);
  if (h.driver_version.empty()) h.driver_version = smi::CleanText(log.child_value("kmd_version"), "kmd_version", "", diagnostics);
  h.cuda_version = smi::CleanText(log.child_value("cuda_version"), "cuda_version", "", diagnostics);
  if (h.cuda_version.empty()) h.cuda_version = smi::CleanText(log.child_value("cuda_umd_version"), "cuda_umd_version", "", diagnostics);
  return h;
}

Snapshot ParseGpu(const pugi::xml_node& gpu, const Header& header, smi::Diagnostics* diagnostics) {
  Snapshot s;
  s.source = "nvidia-smi-xml";
  s.timestamp = header.timestamp;
  s.driver_version = header.driver_version;
  s.cuda_version = header.cuda_version;
  std::string id = smi::CleanText(gpu.attribute("id").as_string(), "gpu id", "", diagnostics);
  FieldContext context{"GPU " + id, diagnostics};
  for (const XmlField& f : kGpuFields) {
    pugi::xml_node n = gpu.first_element_by_path(f.path);
    if (n) SetSnapshotField(&s, f.field, n.child_value(), context);
  }
  if (s.pci_bus_id.empty()) s.pci_bus_id = id;
  // XML prints the device id without "0x" (<pci_device_id>233510DE</pci_device_id>).
  std::string device_id = smi::Trim(Raw(gpu, "pci/pci_device_id"));
  if (!device_id.empty() && !smi::IsAbsent(device_id)) SetSnapshotField(&s, "pci.device_id", "0x" + device_id, context);

  pugi::xml_node ecc = gpu.child("ecc_errors");
  EccCounts volatile_counts = ReadEccBlock(ecc.child("volatile"));
  EccCounts aggregate_counts = ReadEccBlock(ecc.child("aggregate"));
  SetSnapshotField(&s, "ecc.errors.corrected.volatile.total", CountText(volatile_counts.corrected), context);
  SetSnapshotField(&s, "ecc.errors.uncorrected.volatile.total", CountText(volatile_counts.uncorrected), context);
  SetSnapshotField(&s, "ecc.errors.corrected.aggregate.total", CountText(aggregate_counts.corrected), context);
  SetSnapshotField(&s, "ecc.errors.uncorrected.aggregate.total", CountText(aggregate_counts.uncorrected), context);
  // Blackwell reports repairs it will make at the next reset beside the ECC counts.
  for (const char* name : {"channel_repair_pending", "tpc_repair_pending"}) {
    if (auto v = smi::Flag(ecc.child_value(name))) s.repair_pending_other = s.repair_pending_other.value_or(false) || *v;
  }
  ReadReasons(gpu, &s, context);
  ReadMig(gpu, &s, context);
  ReadProcesses(gpu, &s, context);
  return s;
}

// The depth of the deepest element, walked without recursion; stops counting past `limit`.
int Depth(const pugi::xml_node& root, int limit) {
  int depth = 0, deepest = 0;
  pugi::xml_node n = root.first_child();
  while (n && depth >= 0) {
    if (n.first_child()) {
      n = n.first_child();
      deepest = std::max(deepest, ++depth);
      if (deepest > limit) return deepest;
      continue;
    }
    while (n && !n.next_sibling() && depth >= 0) {
      n = n.parent();
      --depth;
    }
    if (n && depth >= 0) n = n.next_sibling();
  }
  return deepest;
}

// The number in "nvsmi_device_v12.dtd", read with from_chars (no exception on absurd digits).
int SchemaVersion(std::string_view xml) {
  std::string_view head = xml.substr(0, std::min<size_t>(xml.size(), 1024));
  size_t at = head.find("nvsmi_device_v");
  if (at == std::string_view::npos) return 0;
  std::string_view digits = head.substr(at + 14);
  int version = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), version);
  if (error != std::errc() || end == digits.data() || version < 0) return -1;  // -1: named, but not a number we can hold
  return version;
}

}  // namespace

core::Result<XmlParseResult> ParseSmiXml(std::string_view xml) {
  // Entity declarations are how XXE and billion-laughs attacks begin; real captures have none.
  if (xml.find("<!ENTITY") != std::string_view::npos) {
    return core::Status::ParseError("the XML declares entities, which nvidia-smi never does; refusing to read it")
        .WithKeys("error.capture.xml_entities", {});
  }
  pugi::xml_document document;
  // pugixml parses without recursion; the depth is checked right after, before any use.
  pugi::xml_parse_result parsed = document.load_buffer(xml.data(), xml.size(), pugi::parse_default, pugi::encoding_utf8);
  if (!parsed) {
    return core::Status::ParseError(fmt::format("malformed XML at byte {}: {}", parsed.offset, parsed.description()))
        .WithKeys("error.capture.xml_malformed", {{"offset", std::to_string(parsed.offset)}, {"detail", parsed.description()}});
  }
  int depth = Depth(document, kMaxDepth);
  if (depth > kMaxDepth) {
    return core::Status::ParseError(fmt::format("elements are nested more than {} deep; nvidia-smi output is never deeper than 8", kMaxDepth))
        .WithKeys("error.capture.xml_deep", {{"max", std::to_string(kMaxDepth)}});
  }
  pugi::xml_node log = document.child("nvidia_smi_log");
  if (!log) {
    return core::Status::ParseError("not nvidia-smi -q -x output: the root element is not <nvidia_smi_log>").WithKeys("error.capture.xml_root", {});
  }
  XmlParseResult result;
  smi::Diagnostics diagnostics;
  result.schema_version = SchemaVersion(xml);
  if (result.schema_version < 10 || result.schema_version > kNewestSchema) {
    std::string named = result.schema_version == 0 ? std::string("unnamed")
                        : result.schema_version < 0 ? std::string("with an unreadable number")
                                                    : "v" + std::to_string(result.schema_version);
    result.warnings.push_back(fmt::format("schema {} is not one gpuprobe knows (v10-v{}); read as v{}", named, kNewestSchema, kNewestSchema));
    core::MessageArgs args = {{"newest", std::to_string(kNewestSchema)}, {"version", std::to_string(result.schema_version)}};
    result.warning_texts.push_back({result.schema_version == 0  ? "inspect.warning.schema_unnamed"
                                    : result.schema_version < 0 ? "inspect.warning.schema_unreadable"
                                                                : "inspect.warning.schema_unknown",
                                    args});
    if (result.schema_version < 0) result.schema_version = 0;
  }
  Header header = ReadHeader(log, &diagnostics);
  for (pugi::xml_node gpu : log.children("gpu")) {
    Snapshot s = ParseGpu(gpu, header, &diagnostics);
    s.index = static_cast<int>(result.gpus.size());
    result.gpus.push_back(std::move(s));
  }
  if (result.gpus.empty()) return core::Status::ParseError("nvidia-smi -q -x output lists no <gpu> block").WithKeys("error.capture.xml_no_gpu", {});
  auto attached = smi::Integer(log.child_value("attached_gpus"));
  if (attached && *attached != static_cast<int>(result.gpus.size())) {
    result.warnings.push_back(fmt::format("attached_gpus says {} but the file has {} <gpu> block(s); trusting the blocks",
                                          *attached, result.gpus.size()));
    result.warning_texts.push_back(
        {"inspect.warning.attached_gpus", {{"attached", std::to_string(*attached)}, {"blocks", std::to_string(result.gpus.size())}}});
  }
  for (auto& note : diagnostics.Messages()) result.warnings.push_back(std::move(note));
  for (auto& text : diagnostics.Texts()) result.warning_texts.push_back(std::move(text));
  return result;
}

}  // namespace gpuprobe::telemetry
