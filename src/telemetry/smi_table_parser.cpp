#include "telemetry/smi_table_parser.h"

#include <map>

#include <fmt/format.h>

#include "telemetry/snapshot_fields.h"

namespace gpuprobe::telemetry {
namespace {

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string_view line = text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    pos = end == std::string_view::npos ? text.size() : end + 1;
  }
  return lines;
}

// The cells between '|' of a box line ("| a | b |" -> {" a ", " b "}).
std::vector<std::string_view> Cells(std::string_view line) {
  std::vector<std::string_view> cells;
  size_t first = line.find('|');
  if (first == std::string_view::npos) return cells;
  size_t pos = first + 1;
  while (pos < line.size()) {
    size_t next = line.find('|', pos);
    if (next == std::string_view::npos) break;
    cells.push_back(line.substr(pos, next - pos));
    pos = next + 1;
  }
  return cells;
}

// The [begin, end) offsets of the words of a cell.
std::vector<std::pair<size_t, size_t>> WordSpans(std::string_view cell) {
  std::vector<std::pair<size_t, size_t>> spans;
  size_t pos = 0;
  while (pos < cell.size()) {
    while (pos < cell.size() && cell[pos] == ' ') ++pos;
    size_t end = cell.find(' ', pos);
    if (end == std::string_view::npos) end = cell.size();
    if (end > pos) spans.emplace_back(pos, end);
    pos = end;
  }
  return spans;
}

std::vector<std::string> Words(std::string_view cell) {
  std::vector<std::string> words;
  for (auto [begin, end] : WordSpans(cell)) words.emplace_back(cell.substr(begin, end - begin));
  return words;
}

bool IsRule(std::string_view line) {
  std::string trimmed = smi::Trim(line);
  return !trimmed.empty() && (trimmed.front() == '+' || trimmed.rfind("|=", 0) == 0 || trimmed.rfind("|-", 0) == 0);
}

// "Driver Version: 440.82" anywhere in the banner line.
std::string BannerValue(std::string_view line, std::string_view key) {
  size_t at = line.find(key);
  if (at == std::string_view::npos) return "";
  std::vector<std::string> words = Words(line.substr(at + key.size()));
  return words.empty() ? "" : words.front();
}

std::string ComputeMode(const std::vector<std::string>& words, size_t from) {
  std::string mode;
  for (size_t i = from; i < words.size(); ++i) mode += (mode.empty() ? "" : " ") + words[i];
  if (mode == "E. Process") return "Exclusive_Process";
  if (mode == "E. Thread") return "Exclusive_Thread";
  return mode;
}

// One GPU box: its first line (index, name, persistence or driver model | bus id, display |
// ECC), second line (fan, temperature, P-state, power | memory | utilisation, compute mode)
// and, from R450 on, a third line with the MIG mode.
void ReadGpuBox(const std::vector<std::vector<std::string_view>>& rows, bool driver_model_column, Snapshot* s,
                smi::Diagnostics* diagnostics) {
  const auto& first = rows[0];
  std::vector<std::string> head = Words(first[0]);
  std::vector<std::string> bus = Words(first[1]);
  FieldContext context{"GPU " + (bus.empty() ? std::string("?") : smi::ValidUtf8(bus[0])), diagnostics};
  if (!head.empty()) SetSnapshotField(s, "index", head[0], context);
  if (head.size() >= 3) {
    std::string name;
    for (size_t i = 1; i + 1 < head.size(); ++i) name += (name.empty() ? "" : " ") + head[i];
    SetSnapshotField(s, "name", name, context);
    SetSnapshotField(s, driver_model_column ? "driver_model.current" : "persistence_mode", head.back(), context);
  }
  if (!bus.empty()) SetSnapshotField(s, "pci.bus_id", bus[0], context);
  if (bus.size() >= 2) SetSnapshotField(s, "display_active", bus[1], context);
  if (first.size() >= 3) SetSnapshotField(s, "ecc.errors.uncorrected.volatile.total", smi::Trim(first[2]), context);
  if (rows.size() >= 2 && rows[1].size() >= 3) {
    std::vector<std::string> state = Words(rows[1][0]);
    // "38%   68C    P2    73W / 250W"; a fan that cannot be read prints "ERR!" glued to the
    // temperature on some drivers ("|ERR!   38C ..."), still its own word.
    if (state.size() >= 3) {
      SetSnapshotField(s, "fan.speed", state[0], context);
      SetSnapshotField(s, "temperature.gpu", state[1], context);
      SetSnapshotField(s, "pstate", state[2], context);
    }
    if (state.size() >= 6 && state[4] == "/") {
      SetSnapshotField(s, "power.draw", state[3], context);
      SetSnapshotField(s, "power.limit", state[5], context);
    }
    std::vector<std::string> memory = Words(rows[1][1]);
    if (memory.size() >= 3 && memory[1] == "/") {
      SetSnapshotField(s, "memory.used", memory[0], context);
      SetSnapshotField(s, "memory.total", memory[2], context);
    }
    std::vector<std::string> util = Words(rows[1][2]);
    if (!util.empty()) SetSnapshotField(s, "utilization.gpu", util[0], context);
    if (util.size() >= 2) SetSnapshotField(s, "compute_mode", ComputeMode(util, 1), context);
  }
  if (rows.size() >= 3 && rows[2].size() >= 3) SetSnapshotField(s, "mig.mode.current", smi::Trim(rows[2][2]), context);
}

// A process row: "GPU [GI CI] PID Type Process-name... Memory".
void ReadProcessRow(std::string_view cell, bool instance_columns, const std::map<int, Snapshot*>& by_index, smi::Diagnostics* diagnostics) {
  std::vector<std::string> words = Words(cell);
  size_t fixed = instance_columns ? 5 : 3;  // words before the name
  if (words.size() < fixed + 1) return;
  auto index = smi::Integer(words[0]);
  auto found = index ? by_index.find(*index) : by_index.end();
  if (found == by_index.end()) return;
  Snapshot* gpu = found->second;
  FieldContext context{"GPU " + gpu->pci_bus_id, diagnostics};
  ProcessInfo p;
  if (instance_columns) {
    p.gpu_instance_id = smi::Integer(words[1]);
    p.compute_instance_id = smi::Integer(words[2]);
  }
  const std::string& pid = words[fixed - 2];
  p.pid = smi::ToUint32(smi::Checked(smi::Number(pid), smi::Quantity::kCount, "process id", pid, context.where, diagnostics)).value_or(0);
  p.type = smi::CleanText(words[fixed - 1], "process type", context.where, diagnostics);
  const std::string& memory = words.back();
  p.used_memory_bytes = smi::Checked(smi::Bytes(memory), smi::Quantity::kBytes, "process memory", memory, context.where, diagnostics);
  // The name keeps its inner spaces ("...m Files\NZXT CAM\NZXT CAM.exe"): the text between
  // the type and the memory column.
  auto spans = WordSpans(cell);
  size_t from = spans[fixed - 1].second, to = spans.back().first;
  if (to > from) p.name = smi::CleanText(cell.substr(from, to - from), "process name", context.where, diagnostics);
  gpu->processes.push_back(std::move(p));
}

}  // namespace

bool LooksLikeSmiTable(std::string_view text) {
  std::string_view head = text.substr(0, std::min<size_t>(text.size(), 4096));
  size_t banner = head.find("NVIDIA-SMI ");
  return banner != std::string_view::npos && head.rfind('|', banner) != std::string_view::npos && head.find("+--") != std::string_view::npos;
}

core::Result<std::vector<Snapshot>> ParseSmiTable(std::string_view text, smi::Diagnostics* diagnostics) {
  std::vector<std::string_view> lines = Lines(text);
  std::string timestamp, driver, cuda;
  bool driver_model_column = false;
  size_t i = 0;
  for (; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    std::string trimmed = smi::Trim(line);
    if (timestamp.empty() && !trimmed.empty() && trimmed.front() != '+' && trimmed.front() != '|') timestamp = trimmed;
    if (line.find("NVIDIA-SMI ") != std::string_view::npos) {
      driver = BannerValue(line, "KMD Version:");
      if (driver.empty()) driver = BannerValue(line, "Driver Version:");
      cuda = BannerValue(line, "CUDA UMD Version:");
      if (cuda.empty()) cuda = BannerValue(line, "CUDA Version:");
    }
    if (line.find("Driver-Model") != std::string_view::npos || line.find("TCC/WDDM") != std::string_view::npos) driver_model_column = true;
    if (trimmed.rfind("|=", 0) == 0) break;  // end of the column headings
  }
  std::vector<Snapshot> gpus;
  std::vector<std::vector<std::string_view>> rows;
  auto flush = [&] {
    if (rows.empty()) return;
    Snapshot s;
    s.source = "nvidia-smi-table";
    s.timestamp = smi::ValidUtf8(timestamp);
    s.driver_version = smi::ValidUtf8(driver);
    s.cuda_version = smi::ValidUtf8(cuda);
    ReadGpuBox(rows, driver_model_column, &s, diagnostics);
    if (!s.index) s.index = static_cast<int>(gpus.size());
    gpus.push_back(std::move(s));
    rows.clear();
  };
  for (++i; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (smi::Trim(line).empty()) break;  // the GPU boxes end at the first blank line
    if (IsRule(line)) {
      flush();
      continue;
    }
    std::vector<std::string_view> cells = Cells(line);
    if (cells.size() >= 3) rows.push_back(cells);
  }
  flush();
  if (gpus.empty()) return core::Status::ParseError("nvidia-smi table: no GPU box could be read").WithKeys("error.capture.table_no_gpu", {});

  // The Processes box; its absence (a table cut short) leaves the processes unknown.
  for (; i < lines.size(); ++i) {
    if (lines[i].find("Processes:") == std::string_view::npos) continue;
    std::map<int, Snapshot*> by_index;
    for (auto& g : gpus) {
      g.processes_known = true;
      if (g.index) by_index.emplace(*g.index, &g);
    }
    bool instance_columns = false;
    for (++i; i < lines.size(); ++i) {
      std::string_view line = lines[i];
      std::string trimmed = smi::Trim(line);
      if (trimmed.rfind("|=", 0) == 0) break;
      if (line.find(" GI ") != std::string_view::npos) instance_columns = true;
    }
    for (++i; i < lines.size(); ++i) {
      std::string_view line = lines[i];
      if (IsRule(line) || smi::Trim(line).empty()) break;
      std::vector<std::string_view> cells = Cells(line);
      if (cells.size() != 1 || line.find("No running processes found") != std::string_view::npos) continue;
      ReadProcessRow(cells[0], instance_columns, by_index, diagnostics);
    }
    break;
  }
  return gpus;
}

}  // namespace gpuprobe::telemetry
