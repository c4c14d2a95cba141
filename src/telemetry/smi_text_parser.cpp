#include "telemetry/smi_text_parser.h"

#include <fmt/format.h>

#include "telemetry/smi_values.h"
#include "telemetry/snapshot_fields.h"

namespace gpuprobe::telemetry {
namespace {

// nvidia-smi -q indents at most 5 levels (MIG device attributes); deeper indentation is not
// its output, and a bound keeps the tree small and every walk of it shallow.
constexpr int kMaxDepth = 16;

// The indentation tree of the text, held in one vector (no recursive ownership, so even a
// hostile input cannot make its destruction recurse).
struct Node {
  std::string key, value;
  bool has_value = false;
  std::vector<int> children;
};

class Tree {
 public:
  const Node& at(int i) const { return nodes_[static_cast<size_t>(i)]; }
  int Child(int node, std::string_view key) const {
    for (int c : at(node).children) {
      if (at(c).key == key) return c;
    }
    return -1;
  }
  // The value at a path of child keys; empty when a step is missing or it has no value.
  std::optional<std::string> At(int node, const std::vector<std::string_view>& path) const {
    for (auto step : path) {
      if (node < 0) return std::nullopt;
      node = Child(node, step);
    }
    if (node < 0 || !at(node).has_value) return std::nullopt;
    return at(node).value;
  }
  int Add(int parent, Node node) {
    nodes_.push_back(std::move(node));
    int index = static_cast<int>(nodes_.size()) - 1;
    if (parent >= 0) nodes_[static_cast<size_t>(parent)].children.push_back(index);
    return index;
  }

 private:
  std::vector<Node> nodes_;
};

int Indent(std::string_view line) {
  int n = 0;
  while (n < static_cast<int>(line.size()) && (line[static_cast<size_t>(n)] == ' ' || line[static_cast<size_t>(n)] == '\t')) ++n;
  return n;
}

// Splits "    Key          : value" into key and value; a line without " : " is a section.
Node SplitLine(std::string_view line) {
  Node node;
  size_t sep = line.find(" : ");
  if (sep == std::string_view::npos && line.size() >= 2 && line.substr(line.size() - 2) == " :") sep = line.size() - 2;
  if (sep == std::string_view::npos) {
    node.key = smi::Trim(line);
    return node;
  }
  node.key = smi::Trim(line.substr(0, sep));
  node.value = sep + 3 <= line.size() ? smi::Trim(line.substr(sep + 3)) : "";
  node.has_value = true;
  return node;
}

core::Result<Tree> BuildTree(std::string_view text) {
  Tree tree;
  tree.Add(-1, Node{});
  std::vector<std::pair<int, int>> stack = {{-1, 0}};  // (indent, node)
  size_t pos = 0;
  int line_number = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string_view line = text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    pos = end == std::string_view::npos ? text.size() : end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (smi::Trim(line).empty() || line.find("=====") != std::string_view::npos) continue;
    int indent = Indent(line);
    while (stack.size() > 1 && stack.back().first >= indent) stack.pop_back();
    if (static_cast<int>(stack.size()) > kMaxDepth) {
      return core::Status::ParseError(
                 fmt::format("line {} is indented more than {} levels deep; nvidia-smi -q output never is", line_number, kMaxDepth))
          .WithKeys("error.capture.text_deep", {{"line", std::to_string(line_number)}, {"max", std::to_string(kMaxDepth)}});
    }
    int node = tree.Add(stack.back().second, SplitLine(line));
    stack.emplace_back(indent, node);
  }
  return tree;
}

// Each value's path below "GPU <bus id>" and the --query-gpu field it holds, preferred first.
struct TextField {
  std::vector<std::string_view> path;
  const char* field;
};
const std::vector<TextField>& GpuFields() {
  static const std::vector<TextField> kFields = {
      {{"Product Name"}, "name"},
      {{"GPU UUID"}, "uuid"},
      {{"Serial Number"}, "serial"},
      {{"VBIOS Version"}, "vbios_version"},
      {{"Persistence Mode"}, "persistence_mode"},
      {{"Driver Model", "Current"}, "driver_model.current"},
      {{"Display Active"}, "display_active"},
      {{"GPU Virtualization Mode", "Virtualization Mode"}, "virtualization_mode"},
      {{"MIG Mode", "Current"}, "mig.mode.current"},
      {{"MultiGPU Board"}, "multigpu_board"},
      {{"Compute Mode"}, "compute_mode"},
      {{"Performance State"}, "pstate"},
      {{"PCI", "Bus Id"}, "pci.bus_id"},
      {{"PCI", "Device Id"}, "pci.device_id"},
      {{"PCI", "GPU Link Info", "PCIe Generation", "Max"}, "pcie.link.gen.max"},
      {{"PCI", "GPU Link Info", "PCIe Generation", "Current"}, "pcie.link.gen.current"},
      {{"PCI", "GPU Link Info", "PCIe Generation", "Device Current"}, "pcie.link.gen.current"},
      {{"PCI", "GPU Link Info", "Link Width", "Max"}, "pcie.link.width.max"},
      {{"PCI", "GPU Link Info", "Link Width", "Current"}, "pcie.link.width.current"},
      {{"PCI", "Replays Since Reset"}, "pcie.replay_counter"},
      {{"PCI", "Tx Throughput"}, "pcie.tx_throughput"},
      {{"PCI", "Rx Throughput"}, "pcie.rx_throughput"},
      {{"Fan Speed"}, "fan.speed"},
      {{"FB Memory Usage", "Total"}, "memory.total"},
      {{"FB Memory Usage", "Reserved"}, "memory.reserved"},
      {{"FB Memory Usage", "Used"}, "memory.used"},
      {{"FB Memory Usage", "Free"}, "memory.free"},
      {{"BAR1 Memory Usage", "Total"}, "bar1.total"},
      {{"BAR1 Memory Usage", "Used"}, "bar1.used"},
      {{"Utilization", "GPU"}, "utilization.gpu"},
      {{"Utilization", "Gpu"}, "utilization.gpu"},
      {{"Utilization", "Memory"}, "utilization.memory"},
      {{"Utilization", "Encoder"}, "utilization.encoder"},
      {{"Utilization", "Decoder"}, "utilization.decoder"},
      {{"ECC Mode", "Current"}, "ecc.mode.current"},
      {{"ECC Errors", "Aggregate", "SRAM Threshold Exceeded"}, "ecc.errors.uncorrected.aggregate.sram.thresholdExceeded"},
      {{"Retired Pages", "Single Bit ECC"}, "retired_pages.sbe"},
      {{"Retired Pages", "Double Bit ECC"}, "retired_pages.dbe"},
      {{"Retired Pages", "Pending Page Blacklist"}, "retired_pages.pending"},
      {{"Retired Pages", "Pending"}, "retired_pages.pending"},
      {{"Remapped Rows", "Correctable Error"}, "remapped_rows.correctable"},
      {{"Remapped Rows", "Uncorrectable Error"}, "remapped_rows.uncorrectable"},
      {{"Remapped Rows", "Pending"}, "remapped_rows.pending"},
      {{"Remapped Rows", "Remapping Failure Occurred"}, "remapped_rows.failure"},
      {{"Temperature", "GPU Current Temp"}, "temperature.gpu"},
      {{"Temperature", "Memory Current Temp"}, "temperature.memory"},
      {{"Temperature", "GPU Slowdown Temp"}, "temperature.gpu.slowdown_threshold"},
      {{"Temperature", "GPU Shutdown Temp"}, "temperature.gpu.shutdown_threshold"},
      {{"Temperature", "GPU T.Limit Temp"}, "temperature.gpu.tlimit"},
      {{"Temperature", "GPU Slowdown T.Limit Temp"}, "temperature.gpu.slowdown_tlimit"},
      {{"Temperature", "GPU Shutdown T.Limit Temp"}, "temperature.gpu.shutdown_tlimit"},
      {{"GPU Power Readings", "Power Draw"}, "power.draw"},
      {{"GPU Power Readings", "Average Power Draw"}, "power.draw"},
      {{"GPU Power Readings", "Instantaneous Power Draw"}, "power.draw"},
      {{"Power Readings", "Power Draw"}, "power.draw"},
      {{"Power Readings", "Average Power Draw"}, "power.draw"},
      {{"Power Readings", "Instantaneous Power Draw"}, "power.draw"},
      {{"GPU Power Readings", "Current Power Limit"}, "power.limit"},
      {{"GPU Power Readings", "Enforced Power Limit"}, "power.limit"},
      {{"GPU Power Readings", "Power Limit"}, "power.limit"},
      {{"Power Readings", "Current Power Limit"}, "power.limit"},
      {{"Power Readings", "Enforced Power Limit"}, "power.limit"},
      {{"Power Readings", "Power Limit"}, "power.limit"},
      {{"GPU Power Readings", "Max Power Limit"}, "power.max_limit"},
      {{"Power Readings", "Max Power Limit"}, "power.max_limit"},
      {{"Clocks", "SM"}, "clocks.current.sm"},
      {{"Clocks", "Graphics"}, "clocks.current.graphics"},
      {{"Clocks", "Memory"}, "clocks.current.memory"},
      {{"Max Clocks", "SM"}, "clocks.max.sm"},
      {{"Max Clocks", "Memory"}, "clocks.max.memory"},
  };
  return kFields;
}

std::optional<double> Add(std::optional<double> total, std::optional<std::string> cell) {
  auto value = cell ? smi::Number(*cell) : std::nullopt;
  if (!value) return total;
  return total.value_or(0) + *value;
}

// The counts of an ECC block ("Volatile" / "Aggregate") in each layout nvidia-smi has printed:
// "Single Bit" / "Double Bit" sections with per-unit counts and a "Total" (old drivers), or
// flat "SRAM Correctable", "SRAM Uncorrectable" (or its Parity / SEC-DED split), "DRAM ...".
std::pair<std::optional<double>, std::optional<double>> EccBlock(const Tree& tree, int block) {
  if (block < 0) return {};
  auto old_total = [&](const char* name) -> std::optional<double> {
    int section = tree.Child(block, name);
    if (section < 0) return std::nullopt;
    if (auto total = tree.At(section, {"Total"}); total && smi::Number(*total)) return smi::Number(*total);
    std::optional<double> sum;
    for (int unit : tree.at(section).children) {
      if (tree.at(unit).has_value) sum = Add(sum, tree.at(unit).value);
    }
    return sum;
  };
  if (tree.Child(block, "Single Bit") >= 0 || tree.Child(block, "Double Bit") >= 0) return {old_total("Single Bit"), old_total("Double Bit")};
  std::optional<double> corrected, uncorrected;
  for (const char* key : {"SRAM Correctable", "DRAM Correctable", "Device Memory Correctable"}) corrected = Add(corrected, tree.At(block, {key}));
  for (const char* key : {"SRAM Uncorrectable", "SRAM Uncorrectable Parity", "SRAM Uncorrectable SEC-DED", "DRAM Uncorrectable",
                          "Device Memory Uncorrectable"}) {
    uncorrected = Add(uncorrected, tree.At(block, {key}));
  }
  return {corrected, uncorrected};
}

std::string CountText(std::optional<double> v) { return v ? fmt::format("{}", *v) : std::string(); }

void ParseReasons(const Tree& tree, int gpu, Snapshot* s, const FieldContext& context) {
  int reasons = tree.Child(gpu, "Clocks Event Reasons");
  if (reasons < 0) reasons = tree.Child(gpu, "Clocks Throttle Reasons");
  if (reasons < 0) return;
  struct Reason {
    std::vector<std::string_view> path;
    const char* bit;
  };
  const Reason kReasons[] = {{{"Idle"}, "gpu_idle"},
                             {{"Applications Clocks Setting"}, "applications_clocks_setting"},
                             {{"SW Power Cap"}, "sw_power_cap"},
                             {{"HW Slowdown"}, "hw_slowdown"},
                             {{"HW Slowdown", "HW Thermal Slowdown"}, "hw_thermal_slowdown"},
                             {{"HW Slowdown", "HW Power Brake Slowdown"}, "hw_power_brake_slowdown"},
                             {{"HW Thermal Slowdown"}, "hw_thermal_slowdown"},
                             {{"HW Power Brake Slowdown"}, "hw_power_brake_slowdown"},
                             {{"Sync Boost"}, "sync_boost"},
                             {{"SW Thermal Slowdown"}, "sw_thermal_slowdown"},
                             {{"Display Clock Setting"}, "display_clock_setting"}};
  for (const Reason& r : kReasons) {
    if (auto v = tree.At(reasons, r.path)) SetSnapshotField(s, std::string("clocks_event_reasons.") + r.bit, *v, context);
  }
}

void ParseProcesses(const Tree& tree, int processes, Snapshot* s, const FieldContext& context) {
  if (processes < 0) return;
  s->processes_known = true;
  if (tree.at(processes).has_value) return;  // "None" or "No running processes found"
  ProcessInfo* current = nullptr;
  std::optional<int> gi, ci;
  auto fill = [&](const Node& n) {
    if (current == nullptr) return;
    if (n.key == "Type") {
      current->type = smi::CleanText(n.value, "process type", context.where, context.diagnostics);
    } else if (n.key == "Name" || n.key == "Process Name") {
      current->name = smi::CleanText(n.value, "process name", context.where, context.diagnostics);
    } else if (n.key == "Used GPU Memory") {
      current->used_memory_bytes = smi::Checked(smi::Bytes(n.value), smi::Quantity::kBytes, "process used memory", n.value,
                                                context.where, context.diagnostics);
    }
  };
  for (int c : tree.at(processes).children) {
    const Node& n = tree.at(c);
    if (n.key == "GPU instance ID" || n.key == "GPU Instance ID") {
      gi = smi::Integer(n.value);
    } else if (n.key == "Compute instance ID" || n.key == "Compute Instance ID") {
      ci = smi::Integer(n.value);
    } else if (n.key == "Process ID") {
      ProcessInfo p;
      p.pid = smi::ToUint32(smi::Checked(smi::Number(n.value), smi::Quantity::kCount, "process id", n.value, context.where,
                                         context.diagnostics)).value_or(0);
      p.gpu_instance_id = gi;
      p.compute_instance_id = ci;
      s->processes.push_back(std::move(p));
      current = &s->processes.back();
      for (int detail : n.children) fill(tree.at(detail));  // nested layout
    } else {
      fill(n);  // flat layout: details are siblings of Process ID
    }
  }
}

void ParseMig(const Tree& tree, int gpu, Snapshot* s, const FieldContext& context) {
  for (int c : tree.at(gpu).children) {
    if (tree.at(c).key != "MIG Device") continue;
    MigInstance m;
    m.gpu_instance_id = smi::Integer(tree.At(c, {"GPU Instance ID"}).value_or(""));
    m.compute_instance_id = smi::Integer(tree.At(c, {"Compute Instance ID"}).value_or(""));
    m.sm_count = smi::Integer(tree.At(c, {"Device Attributes", "Shared", "Multiprocessor count"}).value_or(""));
    for (const char* section : {"Shared FB Memory Usage", "FB Memory Usage"}) {
      std::string total = tree.At(c, {section, "Total"}).value_or(""), used = tree.At(c, {section, "Used"}).value_or("");
      if (!m.memory_total_bytes) m.memory_total_bytes = smi::Checked(smi::Bytes(total), smi::Quantity::kBytes, "MIG memory total", total, context.where, context.diagnostics);
      if (!m.memory_used_bytes) m.memory_used_bytes = smi::Checked(smi::Bytes(used), smi::Quantity::kBytes, "MIG memory used", used, context.where, context.diagnostics);
    }
    s->mig_instances.push_back(m);
  }
}

// What every GPU section shares, read once: looking it up from the root for each GPU made a
// text with many GPU sections quadratic.
struct Header {
  std::string timestamp, driver_version, cuda_version;
};

Header ReadHeader(const Tree& tree, smi::Diagnostics* diagnostics) {
  Header h;
  h.timestamp = smi::CleanText(tree.At(0, {"Timestamp"}).value_or(""), "Timestamp", "", diagnostics);
  // R610 renamed the banner (KMD Version, CUDA UMD Version) and marks the old names
  // deprecated; the new names come first.
  for (const char* key : {"KMD Version", "Driver Version"}) {
    if (auto v = tree.At(0, {key}); v && !smi::IsAbsent(*v) && h.driver_version.empty()) h.driver_version = smi::CleanText(*v, key, "", diagnostics);
  }
  for (const char* key : {"CUDA UMD Version", "CUDA Version"}) {
    if (auto v = tree.At(0, {key}); v && !smi::IsAbsent(*v) && h.cuda_version.empty()) h.cuda_version = smi::CleanText(*v, key, "", diagnostics);
  }
  for (std::string* version : {&h.driver_version, &h.cuda_version}) *version = version->substr(0, version->find(' '));
  return h;
}

Snapshot ParseGpu(const Tree& tree, int gpu, const Header& header, smi::Diagnostics* diagnostics) {
  Snapshot s;
  s.source = "nvidia-smi-text";
  s.timestamp = header.timestamp;
  s.driver_version = header.driver_version;
  s.cuda_version = header.cuda_version;

  std::string bus = tree.at(gpu).key.size() > 4 ? tree.at(gpu).key.substr(4) : "";
  FieldContext context{"GPU " + smi::ValidUtf8(bus), diagnostics};
  for (const TextField& f : GpuFields()) {
    if (auto v = tree.At(gpu, f.path)) SetSnapshotField(&s, f.field, *v, context);
  }
  if (s.pci_bus_id.empty()) s.pci_bus_id = smi::CleanText(bus, "GPU section", "", diagnostics);

  if (int ecc = tree.Child(gpu, "ECC Errors"); ecc >= 0) {
    auto [volatile_corrected, volatile_uncorrected] = EccBlock(tree, tree.Child(ecc, "Volatile"));
    auto [aggregate_corrected, aggregate_uncorrected] = EccBlock(tree, tree.Child(ecc, "Aggregate"));
    SetSnapshotField(&s, "ecc.errors.corrected.volatile.total", CountText(volatile_corrected), context);
    SetSnapshotField(&s, "ecc.errors.uncorrected.volatile.total", CountText(volatile_uncorrected), context);
    SetSnapshotField(&s, "ecc.errors.corrected.aggregate.total", CountText(aggregate_corrected), context);
    SetSnapshotField(&s, "ecc.errors.uncorrected.aggregate.total", CountText(aggregate_uncorrected), context);
    for (const char* key : {"Channel Repair Pending", "TPC Repair Pending"}) {
      if (auto v = smi::Flag(tree.At(ecc, {key}).value_or(""))) s.repair_pending_other = s.repair_pending_other.value_or(false) || *v;
    }
  }
  ParseReasons(tree, gpu, &s, context);
  ParseMig(tree, gpu, &s, context);
  ParseProcesses(tree, tree.Child(gpu, "Processes"), &s, context);
  return s;
}

}  // namespace

core::Result<std::vector<Snapshot>> ParseSmiText(std::string_view text, smi::Diagnostics* diagnostics) {
  if (text.find("NVSMI LOG") == std::string_view::npos) {
    return core::Status::ParseError("not nvidia-smi -q output: the '==NVSMI LOG==' banner is missing").WithKeys("error.capture.text_banner", {});
  }
  auto tree = BuildTree(text);
  if (!tree.ok()) return tree.status();
  std::vector<Snapshot> out;
  Header header = ReadHeader(*tree, diagnostics);
  for (int child : tree->at(0).children) {
    const Node& n = tree->at(child);
    if (n.key.rfind("GPU ", 0) != 0 || n.has_value) continue;
    // A GPU section with nothing in it is a cut-off file; one with only some sections is
    // `nvidia-smi -q -d MEMORY` (or another -d filter) and is read for what it has.
    if (n.children.empty()) {
      return core::Status::ParseError("nvidia-smi -q output is truncated: the section of " + smi::ValidUtf8(n.key) + " is empty")
          .WithKeys("error.capture.text_truncated", {{"section", smi::ValidUtf8(n.key)}});
    }
    Snapshot s = ParseGpu(*tree, child, header, diagnostics);
    s.index = static_cast<int>(out.size());
    out.push_back(std::move(s));
  }
  if (out.empty()) {
    return core::Status::ParseError("nvidia-smi -q output lists no GPU section (is it complete?)").WithKeys("error.capture.text_no_gpu", {});
  }
  return out;
}

}  // namespace gpuprobe::telemetry
