// `gpuprobe inspect`: every GPU's state with one-line meanings, and the findings. Live through
// NVML, or from a saved capture (--from). --watch redraws like `watch -n 1 nvidia-smi`.
#include <unistd.h>

#include <chrono>
#include <deque>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/command.h"
#include "summary/live_state.h"
#include "core/file_io.h"
#include "core/units.h"
#include "report/json_document.h"
#include "report/table.h"
#include "telemetry/capture_reader.h"
#include "telemetry/findings.h"
#include "telemetry/nvml_library.h"
#include "telemetry/nvml_source.h"
#include "telemetry/smi_csv.h"
#include "telemetry/snapshot_json.h"

namespace gpuprobe::cli {
namespace {

using telemetry::Finding;
using telemetry::Snapshot;

constexpr const char* kFooter = R"(Examples:
  gpuprobe inspect                                 every GPU now, with findings
  gpuprobe inspect --from nvidia-smi-q.xml         a saved 'nvidia-smi -q -x' (also -q text, --query-gpu CSV, gpuprobe JSON)
  nvidia-smi -q | gpuprobe inspect --from -        from standard input
  gpuprobe inspect --watch 2                       redraw every 2 s with sparklines (Ctrl-C to stop)
  gpuprobe inspect --watch --count 5 --json        five samples for a script
  gpuprobe inspect --query-gpu=name,memory.used,utilization.gpu --format=csv,noheader
  gpuprobe inspect --query-gpu=help                the fields --query-gpu knows

Exit status: 0 nothing wrong; 1 a finding of severity warn or fail; 2 bad input; 3 no GPU state can be read here.)";

constexpr std::uint64_t kMaxCaptureBytes = 64ull << 20;

struct InspectOptions {
  std::string from, query_gpu, format = "csv";
  double watch = -1;       ///< seconds; < 0 = not watching
  std::string watch_text;  ///< --watch's optional value as given
  CLI::Option* watch_option = nullptr;
  int count = 0;
};

struct Reading {
  std::string source_label;
  std::vector<telemetry::CaptureSet> sets;
  std::vector<std::string> warnings;
};

core::Result<Reading> ReadState(const InspectOptions& o) {
  Reading reading;
  if (!o.from.empty()) {
    auto text = core::ReadTextFile(o.from, kMaxCaptureBytes);
    if (!text.ok()) return text.status();
    auto capture = telemetry::ReadCapture(*text);
    if (!capture.ok()) return capture.status().WithContext(o.from == "-" ? "standard input" : o.from);
    reading.source_label = fmt::format("{} ({})", o.from == "-" ? "standard input" : o.from, telemetry::CaptureFormatName(capture->format));
    reading.sets = std::move(capture->sets);
    reading.warnings = std::move(capture->warnings);
    return reading;
  }
  auto nvml = telemetry::NvmlLibrary::Load();
  if (!nvml.ok()) return nvml.status();
  GPUPROBE_RETURN_IF_ERROR((*nvml)->Init());
  auto gpus = telemetry::ReadNvmlSnapshots(**nvml);
  if (!gpus.ok()) return gpus.status();
  if (gpus->empty()) return core::Status::NotFound("NVML works but reports no GPU", "check CUDA/NVIDIA device visibility in this container");
  reading.source_label = "NVML (" + (*nvml)->loaded_from() + ")";
  reading.sets.push_back({"", std::move(gpus.value())});
  return reading;
}

std::string Opt(const std::optional<double>& v, const char* format_spec, const std::string& none) {
  return v ? fmt::format(fmt::runtime(format_spec), *v) : none;
}

std::string ReasonText(std::uint64_t bits) {
  using namespace telemetry::clock_event;
  std::vector<std::string> names;
  if (bits & kGpuIdle) names.push_back("idle");
  if (bits & kApplicationsClocks) names.push_back("app clocks");
  if (bits & kSwPowerCap) names.push_back("SW power cap");
  if (bits & kHwSlowdown) names.push_back("HW slowdown");
  if (bits & kHwThermal) names.push_back("HW thermal");
  if (bits & kHwPowerBrake) names.push_back("HW power brake");
  if (bits & kSwThermal) names.push_back("SW thermal");
  if (bits & kSyncBoost) names.push_back("sync boost");
  if (bits & kDisplayClock) names.push_back("display clock");
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

std::string RenderGpu(const Snapshot& s, const report::Texts& t) {
  const std::string na = "n/a";
  report::TextTable table;
  table.AddSection(fmt::format("GPU {}: {}  {}", s.index.value_or(0), s.name, s.pci_bus_id));
  auto row = [&](const char* key, std::string value, const char* meaning_key) {
    table.AddRow({t.Get(key), value, meaning_key ? t.Get(meaning_key) : ""});
  };
  row("inspect.row.identity", fmt::format("{}{}", s.architecture.empty() ? "" : s.architecture + ", ", s.uuid.empty() ? na : s.uuid), nullptr);
  if (!s.driver_version.empty()) {
    row("inspect.row.driver", fmt::format("{}{}", s.driver_version, s.cuda_version.empty() ? "" : ", CUDA " + s.cuda_version + " max"), nullptr);
  }
  if (s.memory_total_bytes) {
    row("inspect.row.memory",
        fmt::format("{} used / {}{}", s.memory_used_bytes ? core::FormatBytesBinary(*s.memory_used_bytes) : na,
                    core::FormatBytesBinary(*s.memory_total_bytes),
                    s.memory_reserved_bytes ? fmt::format(" ({} reserved)", core::FormatBytesBinary(*s.memory_reserved_bytes)) : ""),
        "inspect.row.memory.meaning");
  }
  row("inspect.row.utilization",
      fmt::format("GPU {}  memory {}", Opt(s.utilization_gpu_percent, "{:.0f}%", na), Opt(s.utilization_memory_percent, "{:.0f}%", na)),
      "inspect.row.utilization.meaning");
  if (s.power_draw_watts || s.power_limit_watts) {
    row("inspect.row.power", fmt::format("{} / {}", Opt(s.power_draw_watts, "{:.0f} W", na), Opt(s.power_limit_watts, "{:.0f} W", na)),
        "inspect.row.power.meaning");
  }
  if (s.temperature_celsius) {
    row("inspect.row.temperature",
        fmt::format("{:.0f} C{}", *s.temperature_celsius,
                    s.temperature_slowdown_celsius ? fmt::format(" (slowdown at {:.0f} C)", *s.temperature_slowdown_celsius) : ""),
        nullptr);
  }
  if (s.sm_clock_mhz) {
    row("inspect.row.clocks",
        fmt::format("SM {} / {}  memory {} / {}", Opt(s.sm_clock_mhz, "{:.0f}", na), Opt(s.sm_clock_max_mhz, "{:.0f} MHz", na),
                    Opt(s.memory_clock_mhz, "{:.0f}", na), Opt(s.memory_clock_max_mhz, "{:.0f} MHz", na)),
        "inspect.row.clocks.meaning");
  }
  if (s.clock_event_reasons) row("inspect.row.throttle", ReasonText(*s.clock_event_reasons), "inspect.row.throttle.meaning");
  if (s.pcie_generation_current) {
    row("inspect.row.pcie",
        fmt::format("Gen{} x{} / Gen{} x{}", *s.pcie_generation_current, s.pcie_width_current.value_or(0),
                    s.pcie_generation_max.value_or(0), s.pcie_width_max.value_or(0)),
        "inspect.row.pcie.meaning");
  }
  if (s.ecc_enabled) {
    row("inspect.row.ecc",
        *s.ecc_enabled ? fmt::format("on, {} / {}", Opt(s.ecc_corrected_volatile, "{:.0f}", na), Opt(s.ecc_uncorrected_volatile, "{:.0f}", na))
                       : std::string("off"),
        "inspect.row.ecc.meaning");
  }
  std::vector<std::string> modes;
  if (s.performance_state.size()) modes.push_back(s.performance_state);
  if (s.persistence_mode) modes.push_back(*s.persistence_mode ? "persistence on" : "persistence off");
  if (s.mig_enabled) modes.push_back(*s.mig_enabled ? fmt::format("MIG on ({} instances)", s.mig_instances.size()) : "MIG off");
  if (!s.compute_mode.empty()) modes.push_back("compute " + s.compute_mode);
  std::string joined;
  for (const auto& m : modes) joined += (joined.empty() ? "" : ", ") + m;
  if (!joined.empty()) row("inspect.row.modes", joined, nullptr);
  if (s.processes_known) {
    if (s.processes.empty()) row("inspect.row.processes", t.Get("inspect.none"), nullptr);
    bool first = true;
    for (const auto& p : s.processes) {
      table.AddRow({first ? t.Get("inspect.row.processes") : "",
                    fmt::format("{} {}", p.pid, p.name.empty() ? "?" : p.name),
                    p.used_memory_bytes ? core::FormatBytesBinary(*p.used_memory_bytes) : "n/a"});
      first = false;
    }
  }
  return table.Render(2);
}

std::string RenderFindings(const std::vector<Finding>& findings, const report::Texts& t) {
  std::string out = t.Get("inspect.findings") + "\n";
  if (findings.empty()) return out + "  " + t.Get("inspect.no_findings") + "\n";
  for (const auto& f : findings) {
    out += fmt::format("  [{}] GPU {} {}: {}\n", telemetry::SeverityName(f.severity), f.gpu, f.id, f.evidence);
    out += "      " + t.Get("finding." + f.id + ".explain") + "\n";
    out += "      -> " + t.Get("finding." + f.id + ".next") + "\n";
  }
  return out;
}

nlohmann::json FindingsJson(const std::vector<Finding>& findings, const report::Texts& t) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : findings) {
    out.push_back({{"id", f.id}, {"severity", telemetry::SeverityName(f.severity)}, {"gpu", f.gpu}, {"evidence", f.evidence},
                   {"explanation", t.Get("finding." + f.id + ".explain")}, {"next_step", t.Get("finding." + f.id + ".next")}});
  }
  return out;
}

std::string Sparkline(const std::deque<double>& values, double max) {
  static const char* kBars[] = {"\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
                                "\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88"};
  std::string out;
  for (double v : values) {
    int level = max > 0 ? static_cast<int>(v / max * 7.999) : 0;
    out += kBars[std::clamp(level, 0, 7)];
  }
  return out;
}

core::Result<core::ExitCode> RunWatch(VerbContext& ctx, const InspectOptions& o) {
  if (!o.from.empty()) return core::Status::InvalidArgument("--watch reads live state; it cannot be combined with --from");
  if (o.watch < 0.1 || o.watch > 3600) return core::Status::InvalidArgument("--watch needs an interval between 0.1 and 3600 seconds");
  if (o.count < 0) return core::Status::InvalidArgument("--count must be positive");
  bool terminal = isatty(STDOUT_FILENO) != 0 && !ctx.options.json;
  std::vector<std::deque<double>> util, memory, power;
  core::ExitCode worst = core::ExitCode::kOk;
  for (int sample = 0; o.count == 0 || sample < o.count; ++sample) {
    auto reading = ReadState(o);
    if (!reading.ok()) return reading.status();  // a GPU that vanished mid-run ends the watch with its reason
    const auto& gpus = reading->sets.front().gpus;
    auto findings = telemetry::EvaluateFindings(gpus);
    if (telemetry::WorstSeverity(findings) != telemetry::Severity::kInfo) worst = core::ExitCode::kProblemsFound;
    if (ctx.options.json) {
      nlohmann::json doc = report::MakeDocument("inspect");
      doc["sample"] = sample;
      doc["source"] = reading->source_label;
      doc["gpus"] = nlohmann::json::array();
      for (const auto& g : gpus) doc["gpus"].push_back(telemetry::SnapshotToJson(g));
      doc["findings"] = FindingsJson(findings, ctx.texts);
      ctx.out << doc.dump() << "\n";  // one document per line (JSON Lines) for scripts
    } else {
      util.resize(gpus.size());
      memory.resize(gpus.size());
      power.resize(gpus.size());
      std::string frame = terminal ? "\x1b[H\x1b[2J" : "";
      frame += fmt::format("gpuprobe inspect --watch {:g}  (sample {}, Ctrl-C to stop)\n\n", o.watch, sample + 1);
      for (size_t i = 0; i < gpus.size(); ++i) {
        const auto& g = gpus[i];
        auto push = [](std::deque<double>& q, double v) {
          q.push_back(v);
          if (q.size() > 40) q.pop_front();
        };
        push(util[i], g.utilization_gpu_percent.value_or(0));
        push(memory[i], g.memory_used_bytes.value_or(0));
        push(power[i], g.power_draw_watts.value_or(0));
        frame += RenderGpu(g, ctx.texts);
        frame += fmt::format("    util  {}\n    mem   {}\n    power {}\n\n", Sparkline(util[i], 100),
                             Sparkline(memory[i], g.memory_total_bytes.value_or(1)), Sparkline(power[i], g.power_limit_watts.value_or(1)));
      }
      frame += RenderFindings(findings, ctx.texts);
      ctx.out << frame;
    }
    ctx.out.flush();
    if (o.count != 0 && sample + 1 >= o.count) break;
    std::this_thread::sleep_for(std::chrono::duration<double>(o.watch));
  }
  return worst;
}

nlohmann::json InspectDocument(const Reading& reading, const report::Texts& texts, std::vector<Finding>* findings_all) {
  nlohmann::json doc = report::MakeDocument("inspect");
  doc["source"] = reading.source_label;
  doc["warnings"] = reading.warnings;
  doc["gpus"] = nlohmann::json::array();
  doc["states"] = nlohmann::json::array();
  for (const auto& set : reading.sets) {
    auto findings = telemetry::EvaluateFindings(set.gpus);
    findings_all->insert(findings_all->end(), findings.begin(), findings.end());
    nlohmann::json state = {{"state", set.state}, {"findings", FindingsJson(findings, texts)}};
    for (const auto& g : set.gpus) doc["gpus"].push_back(telemetry::SnapshotToJson(g));
    doc["states"].push_back(state);
  }
  doc["findings"] = FindingsJson(*findings_all, texts);
  return doc;
}

core::Result<core::ExitCode> RunInspect(VerbContext& ctx, const InspectOptions& o) {
  if (o.query_gpu == "help") {
    for (const auto& f : telemetry::QueryGpuFields()) ctx.out << f << "\n";
    return core::ExitCode::kOk;
  }
  if (o.watch >= 0) return RunWatch(ctx, o);
  if (o.count != 0) return core::Status::InvalidArgument("--count goes with --watch");
  auto reading = ReadState(o);
  if (!reading.ok()) return reading.status();

  std::vector<Snapshot> all;
  for (const auto& set : reading->sets) all.insert(all.end(), set.gpus.begin(), set.gpus.end());
  if (!o.query_gpu.empty()) {
    auto format = telemetry::ParseCsvFormat(o.format);
    if (!format.ok()) return format.status();
    auto csv = telemetry::FormatQueryGpu(all, o.query_gpu, *format);
    if (!csv.ok()) return csv.status();
    ctx.out << *csv;
    return core::ExitCode::kOk;
  }
  std::vector<Finding> findings_all;
  if (ctx.options.json) {
    nlohmann::json doc = InspectDocument(*reading, ctx.texts, &findings_all);
    ctx.out << report::RenderJson(doc);
  } else {
    std::string out = ctx.texts.Get("inspect.title") + "\n" + Tr(ctx.texts, "inspect.source", fmt::arg("source", reading->source_label)) + "\n";
    for (const auto& w : reading->warnings) out += "  warning: " + w + "\n";
    for (const auto& set : reading->sets) {
      out += "\n";
      if (!set.state.empty()) out += Tr(ctx.texts, "inspect.state", fmt::arg("state", set.state)) + "\n";
      for (const auto& g : set.gpus) out += RenderGpu(g, ctx.texts);
      auto findings = telemetry::EvaluateFindings(set.gpus);
      findings_all.insert(findings_all.end(), findings.begin(), findings.end());
      out += "\n" + RenderFindings(findings, ctx.texts);
    }
    ctx.out << out;
  }
  return telemetry::WorstSeverity(findings_all) == telemetry::Severity::kInfo ? core::ExitCode::kOk : core::ExitCode::kProblemsFound;
}

}  // namespace

core::Result<nlohmann::json> LiveInspectDocument(const report::Texts& texts) {
  auto reading = ReadState(InspectOptions{});
  if (!reading.ok()) return reading.status();
  std::vector<Finding> findings;
  return InspectDocument(*reading, texts, &findings);
}

VerbRunner SetupInspectVerb(CLI::App* command) {
  auto o = std::make_shared<InspectOptions>();
  command->footer(kFooter);
  command->add_option("--from", o->from, "read a saved capture instead of live state ('-' = standard input)");
  o->watch_option = command->add_option("--watch", o->watch_text, "redraw every SECONDS (default 1) with sparklines")->expected(0, 1);
  command->add_option("--count", o->count, "with --watch: stop after N samples");
  command->add_option("--query-gpu", o->query_gpu, "print these nvidia-smi fields as CSV (help lists them)");
  command->add_option("--format", o->format, "csv[,noheader][,nounits] for --query-gpu (default csv)");
  return [o](VerbContext& ctx) -> core::Result<core::ExitCode> {
    if (o->watch_option->count() > 0) {
      if (o->watch_text.empty()) {
        o->watch = 1;
      } else {
        auto seconds = core::ParseCount(o->watch_text);
        if (!seconds.ok()) return seconds.status().WithContext("--watch");
        o->watch = *seconds;
      }
    }
    return RunInspect(ctx, *o);
  };
}

}  // namespace gpuprobe::cli
