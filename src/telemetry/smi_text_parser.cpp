#include "telemetry/smi_text_parser.h"

#include <memory>
#include <sstream>

#include "telemetry/smi_values.h"

namespace gpuprobe::telemetry {
namespace {

struct Node {
  std::string key;
  std::string value;
  bool has_value = false;
  std::vector<std::unique_ptr<Node>> children;

  const Node* Child(std::string_view name) const {
    for (const auto& c : children) {
      if (c->key == name) return c.get();
    }
    return nullptr;
  }
  // The value at a path of child keys; empty optional when any step is missing.
  std::optional<std::string> At(std::initializer_list<std::string_view> path) const {
    const Node* n = this;
    for (auto step : path) {
      n = n->Child(step);
      if (n == nullptr) return std::nullopt;
    }
    if (!n->has_value) return std::nullopt;
    return n->value;
  }
};

int Indent(const std::string& line) {
  int n = 0;
  while (n < static_cast<int>(line.size()) && (line[static_cast<size_t>(n)] == ' ' || line[static_cast<size_t>(n)] == '\t')) ++n;
  return n;
}

// Splits "    Key          : value" into key and value; a line without " : " is a section.
void SplitLine(const std::string& line, std::string* key, std::string* value, bool* has_value) {
  size_t sep = line.find(" : ");
  if (sep == std::string::npos && line.size() >= 2 && line.compare(line.size() - 2, 2, " :") == 0) sep = line.size() - 2;
  if (sep == std::string::npos) {
    *key = smi::Trim(line);
    *value = "";
    *has_value = false;
    return;
  }
  *key = smi::Trim(std::string_view(line).substr(0, sep));
  *value = sep + 3 <= line.size() ? smi::Trim(std::string_view(line).substr(sep + 3)) : "";
  *has_value = true;
}

std::unique_ptr<Node> BuildTree(std::string_view text) {
  auto root = std::make_unique<Node>();
  std::vector<std::pair<int, Node*>> stack = {{-1, root.get()}};
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (smi::Trim(line).empty() || line.find("=====") != std::string::npos) continue;
    int indent = Indent(line);
    auto node = std::make_unique<Node>();
    SplitLine(line, &node->key, &node->value, &node->has_value);
    while (stack.size() > 1 && stack.back().first >= indent) stack.pop_back();
    Node* raw = node.get();
    stack.back().second->children.push_back(std::move(node));
    stack.emplace_back(indent, raw);
  }
  return root;
}

template <typename T>
void Set(std::optional<T>* field, std::optional<T> value) {
  if (value) *field = value;
}

std::optional<double> Celsius(const std::optional<std::string>& v) { return v ? smi::Number(*v) : std::nullopt; }
std::optional<double> Num(const std::optional<std::string>& v) { return v ? smi::Number(*v) : std::nullopt; }
std::optional<double> Mib(const std::optional<std::string>& v) { return v ? smi::Bytes(*v) : std::nullopt; }
std::optional<bool> Flg(const std::optional<std::string>& v) { return v ? smi::Flag(*v) : std::nullopt; }
std::optional<int> Int(const std::optional<std::string>& v) { return v ? smi::Integer(*v) : std::nullopt; }

// Sums every leaf under `node` whose key matches the predicate.
template <typename Pred>
std::optional<double> SumLeaves(const Node* node, Pred pred) {
  if (node == nullptr) return std::nullopt;
  std::optional<double> total;
  for (const auto& c : node->children) {
    if (c->has_value && pred(c->key)) {
      if (auto v = smi::Number(c->value)) total = total.value_or(0) + *v;
    }
    if (!c->children.empty()) {
      // Old layout: "Single Bit" / "Double Bit" sections with a "Total".
      if (auto nested = SumLeaves(c.get(), pred)) total = total.value_or(0) + *nested;
    }
  }
  return total;
}

bool IsUncorrectable(const std::string& key) {
  return key.find("Uncorrectable") != std::string::npos || key.find("Double Bit") != std::string::npos;
}
bool IsCorrectable(const std::string& key) {
  return (key.find("Correctable") != std::string::npos && !IsUncorrectable(key)) || key.find("Single Bit") != std::string::npos;
}

void ParseProcesses(const Node* processes, Snapshot* s) {
  if (processes == nullptr) return;
  s->processes_known = true;
  if (processes->has_value) return;  // "None" or "No running processes found"
  ProcessInfo* current = nullptr;
  std::optional<int> gi, ci;
  auto fill = [&](const std::string& key, const std::string& value) {
    if (current == nullptr) return;
    if (key == "Type") current->type = value;
    else if (key == "Name" || key == "Process Name") current->name = value;
    else if (key == "Used GPU Memory") current->used_memory_bytes = smi::Bytes(value);
  };
  for (const auto& c : processes->children) {
    if (c->key == "GPU instance ID" || c->key == "GPU Instance ID") {
      gi = smi::Integer(c->value);
    } else if (c->key == "Compute instance ID" || c->key == "Compute Instance ID") {
      ci = smi::Integer(c->value);
    } else if (c->key == "Process ID") {
      ProcessInfo p;
      auto pid = smi::Number(c->value);
      p.pid = pid ? static_cast<std::uint32_t>(*pid) : 0;
      p.gpu_instance_id = gi;
      p.compute_instance_id = ci;
      s->processes.push_back(p);
      current = &s->processes.back();
      for (const auto& detail : c->children) fill(detail->key, detail->value);  // nested layout
    } else {
      fill(c->key, c->value);  // flat layout: details are siblings of Process ID
    }
  }
}

Snapshot ParseGpu(const Node& gpu, const Node& root) {
  Snapshot s;
  s.source = "nvidia-smi-text";
  s.timestamp = root.At({"Timestamp"}).value_or("");
  // R610 renamed the banner; both spellings stay readable.
  s.driver_version = root.At({"KMD Version"}).value_or(root.At({"Driver Version"}).value_or(""));
  if (s.driver_version.find("Deprecated") != std::string::npos) s.driver_version = root.At({"KMD Version"}).value_or("");
  std::string cuda = root.At({"CUDA UMD Version"}).value_or(root.At({"CUDA Version"}).value_or(""));
  s.cuda_version = smi::IsAbsent(cuda) ? "" : cuda.substr(0, cuda.find(' '));
  if (s.driver_version.find(' ') != std::string::npos) s.driver_version = s.driver_version.substr(0, s.driver_version.find(' '));

  s.pci_bus_id = gpu.key.size() > 4 ? gpu.key.substr(4) : "";
  s.name = gpu.At({"Product Name"}).value_or("");
  s.architecture = gpu.At({"Product Architecture"}).value_or("");
  s.serial = gpu.At({"Serial Number"}).value_or("");
  s.uuid = gpu.At({"GPU UUID"}).value_or("");
  s.vbios_version = gpu.At({"VBIOS Version"}).value_or("");
  s.persistence_mode = Flg(gpu.At({"Persistence Mode"}));
  s.mig_enabled = Flg(gpu.At({"MIG Mode", "Current"}));
  s.compute_mode = gpu.At({"Compute Mode"}).value_or("");
  s.performance_state = gpu.At({"Performance State"}).value_or("");
  if (smi::IsAbsent(s.performance_state)) s.performance_state.clear();
  if (auto id = gpu.At({"PCI", "Device Id"})) {
    if (auto hex = smi::Hex(*id)) s.pci_device_id = static_cast<std::uint32_t>(*hex);
  }
  if (auto bus = gpu.At({"PCI", "Bus Id"})) s.pci_bus_id = *bus;

  const Node* link = nullptr;
  if (const Node* pci = gpu.Child("PCI")) link = pci->Child("GPU Link Info");
  if (link != nullptr) {
    s.pcie_generation_max = Int(link->At({"PCIe Generation", "Max"}));
    s.pcie_generation_current = Int(link->At({"PCIe Generation", "Current"}));
    if (!s.pcie_generation_current) s.pcie_generation_current = Int(link->At({"PCIe Generation", "Device Current"}));
    s.pcie_width_max = Int(link->At({"Link Width", "Max"}));
    s.pcie_width_current = Int(link->At({"Link Width", "Current"}));
  }
  s.pcie_replay_count = Num(gpu.At({"PCI", "Replays Since Reset"}));
  if (auto tx = gpu.At({"PCI", "Tx Throughput"})) s.pcie_tx_bytes_per_s = smi::KilobytesPerSecond(*tx);
  if (auto rx = gpu.At({"PCI", "Rx Throughput"})) s.pcie_rx_bytes_per_s = smi::KilobytesPerSecond(*rx);
  s.fan_speed_percent = Num(gpu.At({"Fan Speed"}));

  const Node* reasons = gpu.Child("Clocks Event Reasons");
  if (reasons == nullptr) reasons = gpu.Child("Clocks Throttle Reasons");
  if (reasons != nullptr) {
    std::uint64_t bits = 0;
    bool any = false;
    auto bit = [&](std::initializer_list<std::string_view> path, std::uint64_t mask) {
      if (auto v = Flg(reasons->At(path))) {
        any = true;
        if (*v) bits |= mask;
      }
    };
    bit({"Idle"}, clock_event::kGpuIdle);
    bit({"Applications Clocks Setting"}, clock_event::kApplicationsClocks);
    bit({"SW Power Cap"}, clock_event::kSwPowerCap);
    bit({"HW Slowdown"}, clock_event::kHwSlowdown);
    bit({"HW Slowdown", "HW Thermal Slowdown"}, clock_event::kHwThermal);
    bit({"HW Slowdown", "HW Power Brake Slowdown"}, clock_event::kHwPowerBrake);
    bit({"HW Thermal Slowdown"}, clock_event::kHwThermal);
    bit({"HW Power Brake Slowdown"}, clock_event::kHwPowerBrake);
    bit({"Sync Boost"}, clock_event::kSyncBoost);
    bit({"SW Thermal Slowdown"}, clock_event::kSwThermal);
    bit({"Display Clock Setting"}, clock_event::kDisplayClock);
    if (any) s.clock_event_reasons = bits;
  }

  s.memory_total_bytes = Mib(gpu.At({"FB Memory Usage", "Total"}));
  s.memory_reserved_bytes = Mib(gpu.At({"FB Memory Usage", "Reserved"}));
  s.memory_used_bytes = Mib(gpu.At({"FB Memory Usage", "Used"}));
  s.memory_free_bytes = Mib(gpu.At({"FB Memory Usage", "Free"}));
  s.bar1_total_bytes = Mib(gpu.At({"BAR1 Memory Usage", "Total"}));
  s.bar1_used_bytes = Mib(gpu.At({"BAR1 Memory Usage", "Used"}));

  s.utilization_gpu_percent = Num(gpu.At({"Utilization", "GPU"}));
  if (!s.utilization_gpu_percent) s.utilization_gpu_percent = Num(gpu.At({"Utilization", "Gpu"}));
  s.utilization_memory_percent = Num(gpu.At({"Utilization", "Memory"}));
  s.utilization_encoder_percent = Num(gpu.At({"Utilization", "Encoder"}));
  s.utilization_decoder_percent = Num(gpu.At({"Utilization", "Decoder"}));

  s.ecc_enabled = Flg(gpu.At({"ECC Mode", "Current"}));
  if (const Node* ecc = gpu.Child("ECC Errors")) {
    s.ecc_corrected_volatile = SumLeaves(ecc->Child("Volatile"), IsCorrectable);
    s.ecc_uncorrected_volatile = SumLeaves(ecc->Child("Volatile"), IsUncorrectable);
    s.ecc_corrected_aggregate = SumLeaves(ecc->Child("Aggregate"), IsCorrectable);
    s.ecc_uncorrected_aggregate = SumLeaves(ecc->Child("Aggregate"), IsUncorrectable);
  }
  s.retired_pages_sbe = Num(gpu.At({"Retired Pages", "Single Bit ECC"}));
  s.retired_pages_dbe = Num(gpu.At({"Retired Pages", "Double Bit ECC"}));
  s.retired_pages_pending = Flg(gpu.At({"Retired Pages", "Pending Page Blacklist"}));
  if (!s.retired_pages_pending) s.retired_pages_pending = Flg(gpu.At({"Retired Pages", "Pending"}));
  s.remapped_rows_correctable = Num(gpu.At({"Remapped Rows", "Correctable Error"}));
  s.remapped_rows_uncorrectable = Num(gpu.At({"Remapped Rows", "Uncorrectable Error"}));
  s.remapped_rows_pending = Flg(gpu.At({"Remapped Rows", "Pending"}));
  s.remapped_rows_failure = Flg(gpu.At({"Remapped Rows", "Remapping Failure Occurred"}));

  s.temperature_celsius = Celsius(gpu.At({"Temperature", "GPU Current Temp"}));
  s.memory_temperature_celsius = Celsius(gpu.At({"Temperature", "Memory Current Temp"}));
  s.temperature_slowdown_celsius = Celsius(gpu.At({"Temperature", "GPU Slowdown Temp"}));
  s.temperature_shutdown_celsius = Celsius(gpu.At({"Temperature", "GPU Shutdown Temp"}));
  s.temperature_margin_celsius = Celsius(gpu.At({"Temperature", "GPU T.Limit Temp"}));

  for (const char* section : {"GPU Power Readings", "Power Readings"}) {
    const Node* power = gpu.Child(section);
    if (power == nullptr) continue;
    if (!s.power_draw_watts) s.power_draw_watts = Num(power->At({"Average Power Draw"}));
    if (!s.power_draw_watts) s.power_draw_watts = Num(power->At({"Power Draw"}));
    if (!s.power_draw_watts) s.power_draw_watts = Num(power->At({"Instantaneous Power Draw"}));
    if (!s.power_limit_watts) s.power_limit_watts = Num(power->At({"Current Power Limit"}));
    if (!s.power_limit_watts) s.power_limit_watts = Num(power->At({"Enforced Power Limit"}));
    if (!s.power_limit_watts) s.power_limit_watts = Num(power->At({"Power Limit"}));
    if (!s.power_max_limit_watts) s.power_max_limit_watts = Num(power->At({"Max Power Limit"}));
  }
  s.sm_clock_mhz = Num(gpu.At({"Clocks", "SM"}));
  s.graphics_clock_mhz = Num(gpu.At({"Clocks", "Graphics"}));
  s.memory_clock_mhz = Num(gpu.At({"Clocks", "Memory"}));
  s.sm_clock_max_mhz = Num(gpu.At({"Max Clocks", "SM"}));
  s.memory_clock_max_mhz = Num(gpu.At({"Max Clocks", "Memory"}));

  for (const auto& c : gpu.children) {
    if (c->key != "MIG Device") continue;
    MigInstance m;
    m.gpu_instance_id = Int(c->At({"GPU Instance ID"}));
    m.compute_instance_id = Int(c->At({"Compute Instance ID"}));
    m.sm_count = Int(c->At({"Device Attributes", "Shared", "Multiprocessor count"}));
    m.memory_total_bytes = Mib(c->At({"Shared FB Memory Usage", "Total"}));
    if (!m.memory_total_bytes) m.memory_total_bytes = Mib(c->At({"FB Memory Usage", "Total"}));
    m.memory_used_bytes = Mib(c->At({"Shared FB Memory Usage", "Used"}));
    if (!m.memory_used_bytes) m.memory_used_bytes = Mib(c->At({"FB Memory Usage", "Used"}));
    s.mig_instances.push_back(m);
  }
  ParseProcesses(gpu.Child("Processes"), &s);
  return s;
}

}  // namespace

core::Result<std::vector<Snapshot>> ParseSmiText(std::string_view text) {
  if (text.find("NVSMI LOG") == std::string_view::npos) {
    return core::Status::ParseError("not nvidia-smi -q output: the '==NVSMI LOG==' banner is missing");
  }
  auto root = BuildTree(text);
  std::vector<Snapshot> out;
  for (const auto& child : root->children) {
    if (child->key.rfind("GPU ", 0) != 0 || child->has_value) continue;
    Snapshot s = ParseGpu(*child, *root);
    if (s.name.empty()) {
      return core::Status::ParseError("nvidia-smi -q output is truncated: the section of GPU " + s.pci_bus_id +
                                      " has no Product Name");
    }
    s.index = static_cast<int>(out.size());
    out.push_back(std::move(s));
  }
  if (out.empty()) return core::Status::ParseError("nvidia-smi -q output lists no GPU section (is it complete?)");
  return out;
}

}  // namespace gpuprobe::telemetry
