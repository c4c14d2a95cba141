#include "cli/inspect_view.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>

#include <fmt/format.h>

#include "cli/command.h"
#include "core/strings.h"
#include "core/units.h"
#include "report/table.h"

namespace gpuprobe::cli {
namespace {

using telemetry::Snapshot;

std::string Opt(const std::optional<double>& v, const char* format_spec, const std::string& none) {
  return v ? fmt::format(fmt::runtime(format_spec), *v) : none;
}

std::string ReasonText(std::uint64_t bits, const report::Texts& t) {
  using namespace telemetry::clock_event;
  static const std::pair<std::uint64_t, const char*> kKeys[] = {
      {kGpuIdle, "inspect.reason.idle"},           {kApplicationsClocks, "inspect.reason.app_clocks"},
      {kSwPowerCap, "inspect.reason.sw_power_cap"}, {kHwSlowdown, "inspect.reason.hw_slowdown"},
      {kHwThermal, "inspect.reason.hw_thermal"},    {kHwPowerBrake, "inspect.reason.hw_power_brake"},
      {kSwThermal, "inspect.reason.sw_thermal"},    {kSyncBoost, "inspect.reason.sync_boost"},
      {kDisplayClock, "inspect.reason.display_clock"}};
  std::string out;
  for (const auto& [bit, key] : kKeys) {
    if (bits & bit) out += (out.empty() ? "" : t.Get("inspect.list_separator")) + t.Get(key);
  }
  return out.empty() ? t.Get("inspect.none") : out;
}

using core::Join;

// "Gen1 x16 of Gen4 x16"; every part that was not reported is left out (never "Gen0 x0").
std::string PcieText(const Snapshot& s, const report::Texts& t) {
  std::string now = Join({s.pcie_generation_current ? fmt::format("Gen{}", *s.pcie_generation_current) : "",
                          s.pcie_width_current ? fmt::format("x{}", *s.pcie_width_current) : ""}, " ");
  std::string max = Join({s.pcie_generation_max ? fmt::format("Gen{}", *s.pcie_generation_max) : "",
                          s.pcie_width_max ? fmt::format("x{}", *s.pcie_width_max) : ""}, " ");
  now.erase(0, now.find_first_not_of(' '));
  max.erase(0, max.find_first_not_of(' '));
  std::string out = now.empty() ? t.Get("inspect.not_reported") : now;
  if (!max.empty()) out += Tr(t, "inspect.pcie.of_max", fmt::arg("max", max));
  if (s.pcie_replay_count) out += Tr(t, "inspect.pcie.replays", fmt::arg("count", fmt::format("{:.0f}", *s.pcie_replay_count)));
  return out;
}

std::string TemperatureText(const Snapshot& s, const report::Texts& t) {
  std::string out = s.temperature_celsius ? fmt::format("{:.0f} C", *s.temperature_celsius) : t.Get("inspect.not_reported");
  if (s.temperature_slowdown_celsius) {
    out += Tr(t, "inspect.temperature.slowdown", fmt::arg("threshold", fmt::format("{:.0f}", *s.temperature_slowdown_celsius)));
  } else if (s.temperature_margin_celsius) {
    out += Tr(t, "inspect.temperature.tlimit", fmt::arg("tlimit", fmt::format("{:.0f}", *s.temperature_margin_celsius)),
              fmt::arg("slowdown_tlimit", Opt(s.temperature_slowdown_tlimit_celsius, "{:.0f}", "?")));
  }
  return out;
}

std::string SpecText(const model::DeviceMatch& m, const report::Texts& t) {
  std::string id = m.pci_device_id.empty() ? t.Get("inspect.not_reported") : m.pci_device_id;
  if (m.spec == nullptr) return Tr(t, "inspect.spec.none", fmt::arg("id", id));
  return Tr(t, m.by == "pci_device_id" ? "inspect.spec.by_pci" : "inspect.spec.by_name", fmt::arg("name", QuotedValue(m.spec->name, t)), fmt::arg("id", id));
}

std::string ModesText(const Snapshot& s, const report::Texts& t) {
  std::vector<std::string> modes;
  if (!s.performance_state.empty()) modes.push_back(s.performance_state);
  if (s.persistence_mode) modes.push_back(t.Get(*s.persistence_mode ? "inspect.mode.persistence_on" : "inspect.mode.persistence_off"));
  if (!s.driver_model.empty()) modes.push_back(Tr(t, "inspect.mode.driver_model", fmt::arg("model", CaptureValueText("driver_model", s.driver_model, t))));
  if (s.display_active && *s.display_active) modes.push_back(t.Get("inspect.mode.display_active"));
  if (!s.virtualization_mode.empty() && s.virtualization_mode != "None") {
    modes.push_back(Tr(t, "inspect.mode.virtualization", fmt::arg("mode", CaptureValueText("virtualization", s.virtualization_mode, t))));
  }
  if (s.mig_enabled) {
    modes.push_back(*s.mig_enabled ? Tr(t, "inspect.mode.mig_on", fmt::arg("count", s.mig_instances.size())) : t.Get("inspect.mode.mig_off"));
  }
  if (!s.compute_mode.empty()) modes.push_back(Tr(t, "inspect.mode.compute", fmt::arg("mode", CaptureValueText("compute_mode", s.compute_mode, t))));
  return Join(modes, t.Get("inspect.list_separator").c_str());
}

std::string ProcessTable(const Snapshot& s, const report::Texts& t, int width) {
  report::TextTable table({t.Get("inspect.process.pid"), t.Get("inspect.process.type"), t.Get("inspect.process.memory"),
                           t.Get("inspect.process.name")});
  table.SetAlign(0, report::Align::kRight);
  table.SetAlign(2, report::Align::kRight);
  std::vector<std::array<std::string, 3>> fixed;
  int used = 0;
  for (const auto& p : s.processes) {
    fixed.push_back({std::to_string(p.pid), p.type.empty() ? "?" : p.type,
                     p.used_memory_bytes ? core::FormatBytesBinary(*p.used_memory_bytes) : t.Get("inspect.process.memory_na")});
  }
  std::array<int, 3> widths = {report::DisplayWidth(t.Get("inspect.process.pid")), report::DisplayWidth(t.Get("inspect.process.type")),
                               report::DisplayWidth(t.Get("inspect.process.memory"))};
  for (const auto& row : fixed) {
    for (size_t c = 0; c < 3; ++c) widths[c] = std::max(widths[c], report::DisplayWidth(row[c]));
  }
  used = 4 + widths[0] + widths[1] + widths[2] + 3 * 2;
  int name_width = std::max(16, width - used - report::DisplayWidth(QuotedValue("", t)));
  for (size_t i = 0; i < s.processes.size(); ++i) {
    const std::string& name = s.processes[i].name;
    table.AddRow({fixed[i][0], fixed[i][1], fixed[i][2], name.empty() ? "?" : QuotedValue(ElideMiddle(name, name_width), t)});
  }
  return table.Render(4);
}

}  // namespace

std::string CaptureValueText(const char* kind, const std::string& value, const report::Texts& t) {
  std::string key = std::string("inspect.") + kind + ".";
  for (char c : value) {
    unsigned char u = static_cast<unsigned char>(c);
    key += std::isalnum(u) && u < 0x80 ? static_cast<char>(std::tolower(u)) : '_';
  }
  return t.Has(key) ? t.Get(key) : QuotedValue(value, t);
}

nlohmann::json SpecMatchJson(const model::DeviceMatch& m) {
  return {{"matched", m.spec ? nlohmann::json(m.spec->name) : nlohmann::json(nullptr)},
          {"by", m.by.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.by)},
          {"pci_device_id", m.pci_device_id.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.pci_device_id)}};
}

std::string ElideMiddle(std::string_view text, int width) {
  if (report::DisplayWidth(text) <= width) return std::string(text);
  if (width < 5) width = 5;
  // Split on code points so a multi-byte character is never cut.
  std::vector<std::string_view> points;
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
    length = std::min(length, text.size() - i);
    points.push_back(text.substr(i, length));
    i += length;
  }
  // Keep the end (the file name) whole where it fits, the start for context.
  int budget = width - 3;
  size_t slash = text.find_last_of("/\\");
  int tail_want = slash == std::string_view::npos ? budget / 2 : report::DisplayWidth(text.substr(slash));
  int tail_budget = std::min(budget - std::min(budget / 3, 8), std::max(budget / 2, tail_want));
  std::string tail;
  int tail_width = 0;
  for (size_t k = points.size(); k-- > 0;) {
    int w = report::DisplayWidth(points[k]);
    if (tail_width + w > tail_budget) break;
    tail.insert(0, points[k]);
    tail_width += w;
  }
  std::string head;
  int head_width = 0;
  for (const auto& p : points) {
    int w = report::DisplayWidth(p);
    if (head_width + w > budget - tail_width) break;
    head += p;
    head_width += w;
  }
  return head + "..." + tail;
}

int TerminalWidth() {
  if (const char* columns = std::getenv("COLUMNS")) {
    int value = std::atoi(columns);
    if (value >= 20 && value <= 1000) return value;
  }
  struct winsize size = {};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col >= 20) return size.ws_col;
  return 100;
}

std::string RenderGpu(const Snapshot& s, const model::DeviceMatch& spec, const report::Texts& t, int width) {
  const std::string na = t.Get("inspect.not_reported");
  report::TextTable table;
  table.AddSection(fmt::format("GPU {}: {}  {}", s.index.value_or(0), s.name.empty() ? t.Get("inspect.unnamed") : QuotedValue(s.name, t), s.pci_bus_id));
  auto row = [&](const char* key, std::string value, const char* meaning_key) {
    table.AddRow({t.Get(key), std::move(value), meaning_key ? t.Get(meaning_key) : ""});
  };
  row("inspect.row.identity", fmt::format("{}{}", s.architecture.empty() ? "" : QuotedValue(s.architecture, t) + ", ", s.uuid.empty() ? na : s.uuid), nullptr);
  row("inspect.row.spec", SpecText(spec, t), nullptr);
  if (!s.driver_version.empty()) {
    row("inspect.row.driver",
        s.driver_version + (s.cuda_version.empty() ? "" : Tr(t, "inspect.driver.cuda_max", fmt::arg("cuda", s.cuda_version))), nullptr);
  }
  if (s.memory_total_bytes || s.memory_used_bytes) {
    row("inspect.row.memory",
        fmt::format("{} / {}{}", s.memory_used_bytes ? core::FormatBytesBinary(*s.memory_used_bytes) : na,
                    s.memory_total_bytes ? core::FormatBytesBinary(*s.memory_total_bytes) : na,
                    s.memory_reserved_bytes ? Tr(t, "inspect.memory.reserved", fmt::arg("reserved", core::FormatBytesBinary(*s.memory_reserved_bytes))) : ""),
        "inspect.row.memory.meaning");
  }
  std::string util = Tr(t, "inspect.utilization.value", fmt::arg("gpu", Opt(s.utilization_gpu_percent, "{:.0f}%", na)),
                        fmt::arg("memory", Opt(s.utilization_memory_percent, "{:.0f}%", na)));
  if (s.utilization_encoder_percent || s.utilization_decoder_percent) {
    util += Tr(t, "inspect.utilization.video", fmt::arg("encoder", Opt(s.utilization_encoder_percent, "{:.0f}%", na)),
               fmt::arg("decoder", Opt(s.utilization_decoder_percent, "{:.0f}%", na)));
  }
  row("inspect.row.utilization", util, "inspect.row.utilization.meaning");
  if (s.power_draw_watts || s.power_limit_watts) {
    row("inspect.row.power", fmt::format("{} / {}", Opt(s.power_draw_watts, "{:.0f} W", na), Opt(s.power_limit_watts, "{:.0f} W", na)),
        "inspect.row.power.meaning");
  }
  if (s.temperature_celsius || s.temperature_margin_celsius) row("inspect.row.temperature", TemperatureText(s, t), "inspect.row.temperature.meaning");
  if (s.sm_clock_mhz) {
    row("inspect.row.clocks",
        Tr(t, "inspect.clocks.value", fmt::arg("sm", Opt(s.sm_clock_mhz, "{:.0f}", na)), fmt::arg("sm_max", Opt(s.sm_clock_max_mhz, "{:.0f} MHz", na)),
           fmt::arg("memory", Opt(s.memory_clock_mhz, "{:.0f}", na)), fmt::arg("memory_max", Opt(s.memory_clock_max_mhz, "{:.0f} MHz", na))),
        "inspect.row.clocks.meaning");
  }
  if (s.clock_event_reasons) row("inspect.row.throttle", ReasonText(*s.clock_event_reasons, t), "inspect.row.throttle.meaning");
  if (s.pcie_generation_current || s.pcie_width_current || s.pcie_generation_max || s.pcie_width_max) {
    row("inspect.row.pcie", PcieText(s, t), "inspect.row.pcie.meaning");
  }
  if (s.ecc_enabled || s.ecc_uncorrected_volatile) {
    std::string ecc = s.ecc_enabled ? t.Get(*s.ecc_enabled ? "inspect.on" : "inspect.off") : na;
    if (s.ecc_corrected_volatile || s.ecc_uncorrected_volatile) {
      ecc += fmt::format(", {} / {}", Opt(s.ecc_corrected_volatile, "{:.0f}", na), Opt(s.ecc_uncorrected_volatile, "{:.0f}", na));
    }
    row("inspect.row.ecc", ecc, "inspect.row.ecc.meaning");
  }
  std::string modes = ModesText(s, t);
  if (!modes.empty()) row("inspect.row.modes", modes, nullptr);
  std::string out = table.Render(2);
  if (s.processes_known) {
    if (s.processes.empty()) {
      out += "    " + report::Heading(t, t.Get("inspect.row.processes")) + t.Get("inspect.none") + "\n";
    } else {
      out += "    " + report::Heading(t, t.Get("inspect.row.processes")) + "\n" + ProcessTable(s, t, width);
    }
  }
  return out;
}

}  // namespace gpuprobe::cli
