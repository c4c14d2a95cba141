// `gpuprobe inspect`: every GPU's state with one-line meanings, and the findings. Live through
// NVML, or from a saved capture (--from). --watch redraws like `watch -n 1 nvidia-smi`. The
// reading and the document are app/inspect_state.h's; the views are inspect_view.cpp (a GPU)
// and report/finding_view.h (the findings).
#include "cli/cmd_inspect.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <deque>
#include <optional>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/chrono.h>
#include <fmt/format.h>

#include "app/inspect_state.h"
#include "cli/command.h"
#include "cli/inspect_interconnect.h"
#include "cli/inspect_view.h"
#include "core/clock.h"
#include "core/file_io.h"
#include "core/terminal_text.h"
#include "core/units.h"
#include "report/finding_view.h"
#include "report/json_document.h"
#include "report/status_text.h"
#include "telemetry/findings.h"
#include "telemetry/smi_csv.h"

namespace gpuprobe::cli {
namespace {

using telemetry::Snapshot;

struct InspectOptions {
  std::string from, query_gpu, format = "csv";
  double watch = -1;       ///< seconds; < 0 = not watching
  std::string watch_text;  ///< --watch's optional value as given
  CLI::Option* watch_option = nullptr;
  int count = 0;
  bool topology = false;  ///< --topology: the live topology through NVML
};

// Where the state came from, in the reader's words: the file and its format, or NVML.
std::string SourceText(const app::GpuReading& r, const report::Texts& t) {
  if (r.from.empty()) return r.source_label;
  std::string format;
  switch (r.format) {
    case telemetry::CaptureFormat::kXml: format = "xml"; break;
    case telemetry::CaptureFormat::kText: format = "text"; break;
    case telemetry::CaptureFormat::kTable: format = "table"; break;
    case telemetry::CaptureFormat::kCsv: format = "csv"; break;
    case telemetry::CaptureFormat::kJson: format = "json"; break;
    case telemetry::CaptureFormat::kSectioned: format = "sectioned"; break;
    case telemetry::CaptureFormat::kUnknown: format = "unknown"; break;
  }
  return Tr(t, "inspect.source.file", fmt::arg("file", r.from == "-" ? t.Get("inspect.source.stdin") : r.from),
            fmt::arg("format", t.Get("inspect.format." + format)));
}

// "captured: Fri Jul  3 22:10:45 2026, 12 days ago (...)": the capture's date and age.
std::string CapturedLine(const app::CaptureDate& d, const report::Texts& t) {
  std::string age;
  if (d.ahead_of_clock) {
    age = t.Get("inspect.captured.ahead");
  } else if (!d.age_days) {
    age = t.Get("inspect.captured.age_unknown");
  } else if (*d.age_days == 0) {
    age = t.Get("inspect.captured.age_today");
  } else if (*d.age_days == 1) {
    age = t.Get("inspect.captured.age_one_day");
  } else {
    age = Tr(t, "inspect.captured.age_days", fmt::arg("days", *d.age_days));
  }
  // English readers see the timestamp as nvidia-smi printed it; Chinese readers the same
  // moment as numbers (no English day and month names), or the text quoted as data.
  std::string when = d.timestamp;
  if (t.language() == report::Language::kZh) {
    when = d.epoch_s ? fmt::format("{:%Y-%m-%d %H:%M:%S}", fmt::gmtime(static_cast<std::time_t>(*d.epoch_s)))
                     : report::QuotedValue(d.timestamp, t);
  }
  return Tr(t, "inspect.captured", fmt::arg("timestamp", when), fmt::arg("age", age));
}

// Invalid UTF-8 never reaches here (parsers replace it), but a dump must not throw whatever
// a future source lets through.
std::string Dump(const nlohmann::json& doc) { return doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

std::string Sparkline(const std::deque<double>& values, double max) {
  static const char* kBars[] = {"\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
                                "\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88"};
  std::string out;
  for (double v : values) {
    // Clamped as a double first: converting NaN or an out-of-range double to int is undefined.
    double level = max > 0 && std::isfinite(v) ? std::clamp(v / max * 7.999, 0.0, 7.0) : 0.0;
    out += kBars[static_cast<int>(level)];
  }
  return out;
}

// Each warning in the reader's language where it has a text key, else as written.
void PrintWarnings(VerbContext& ctx, const app::GpuReading& reading) {
  for (size_t i = 0; i < reading.warnings.size(); ++i) {
    bool keyed = i < reading.warning_texts.size() && !reading.warning_texts[i].empty();
    std::string text = keyed ? report::FormatWithArgs(ctx.texts, reading.warning_texts[i].key, reading.warning_texts[i].args) : reading.warnings[i];
    if (keyed && !reading.warning_prefix.empty()) {
      text = (reading.warning_prefix == "-" ? ctx.texts.Get("inspect.source.stdin") : reading.warning_prefix) + ": " + text;
    }
    ctx.err << Tr(ctx.texts, "inspect.warning", fmt::arg("text", text)) << "\n";
  }
}

core::Result<core::ExitCode> RunWatch(VerbContext& ctx, const InspectOptions& o) {
  if (!o.from.empty()) {
    return core::Status::InvalidArgument("--watch reads live state; it cannot be combined with --from").WithKeys("error.inspect.watch_from", {});
  }
  if (o.watch < 0.1 || o.watch > 3600) {
    return core::Status::InvalidArgument("--watch needs an interval between 0.1 and 3600 seconds").WithKeys("error.inspect.watch_interval", {});
  }
  if (o.count < 0) return core::Status::InvalidArgument("--count must be positive").WithKeys("error.inspect.count_positive", {});
  bool terminal = isatty(STDOUT_FILENO) != 0 && !ctx.options.json;
  std::vector<std::deque<double>> util, memory, power;
  core::ExitCode worst = core::ExitCode::kOk;
  int width = TerminalWidth();
  for (int sample = 0; o.count == 0 || sample < o.count; ++sample) {
    auto reading = app::ReadGpuState(o.from);
    if (!reading.ok()) return reading.status();  // a GPU that vanished mid-run ends the watch with its reason
    if (sample == 0) PrintWarnings(ctx, *reading);
    const auto& gpus = reading->sets.front().gpus;
    auto assessment = telemetry::Assess(gpus);
    if (telemetry::WorstSeverity(assessment.findings) != telemetry::Severity::kInfo) worst = core::ExitCode::kProblemsFound;
    if (ctx.options.json) {
      nlohmann::json doc = report::MakeDocument("inspect");
      doc["sample"] = sample;
      doc["source"] = reading->source_label;
      doc["warnings"] = reading->warnings;
      doc["gpus"] = app::GpusJson(gpus);
      doc["verdict"] = report::HealthVerdictJson(telemetry::JudgeHealth(assessment.findings, static_cast<int>(gpus.size())), ctx.texts, false);
      doc["findings"] = report::FindingsJson(assessment.findings, ctx.texts);
      doc["not_judged"] = report::NotJudgedJson(assessment.not_judged);
      ctx.out << Dump(doc) << "\n";  // one document per line (JSON Lines) for scripts
    } else {
      util.resize(gpus.size());
      memory.resize(gpus.size());
      power.resize(gpus.size());
      if (terminal) core::WriteTerminalControl(ctx.out, "\x1b[H\x1b[2J");  // home, clear screen
      std::string frame = Tr(ctx.texts, "inspect.watch.title", fmt::arg("interval", fmt::format("{:g}", o.watch)), fmt::arg("sample", sample + 1)) + "\n";
      frame += report::RenderHealthVerdict(telemetry::JudgeHealth(assessment.findings, static_cast<int>(gpus.size())), ctx.texts, false) + "\n\n";
      for (size_t i = 0; i < gpus.size(); ++i) {
        const auto& g = gpus[i];
        auto push = [](std::deque<double>& q, double v) {
          q.push_back(v);
          if (q.size() > 40) q.pop_front();
        };
        push(util[i], g.utilization_gpu_percent.value_or(0));
        push(memory[i], g.memory_used_bytes.value_or(0));
        push(power[i], g.power_draw_watts.value_or(0));
        frame += RenderGpu(g, app::SpecOf(g), ctx.texts, width);
        frame += fmt::format("    util  {}\n    mem   {}\n    power {}\n\n", Sparkline(util[i], 100),
                             Sparkline(memory[i], g.memory_total_bytes.value_or(1)), Sparkline(power[i], g.power_limit_watts.value_or(1)));
      }
      frame += report::RenderAssessment(assessment, ctx.texts);
      ctx.out << frame;
    }
    ctx.out.flush();
    if (o.count != 0 && sample + 1 >= o.count) break;
    std::this_thread::sleep_for(std::chrono::duration<double>(o.watch));
  }
  return worst;
}

core::Result<core::ExitCode> RunInspect(VerbContext& ctx, const InspectOptions& o) {
  if (o.query_gpu == "help") {
    for (const auto& f : telemetry::QueryGpuFields()) ctx.out << f << "\n";
    return core::ExitCode::kOk;
  }
  if (o.topology) {
    if (!o.from.empty() || o.watch >= 0 || !o.query_gpu.empty()) {
      return core::Status::InvalidArgument("--topology reads the live topology; a saved 'nvidia-smi topo -m' is read with --from alone")
          .WithKeys("error.inspect.topology_alone", {});
    }
    return RunLiveTopology(ctx);
  }
  if (o.watch >= 0) return RunWatch(ctx, o);
  if (o.count != 0) return core::Status::InvalidArgument("--count goes with --watch").WithKeys("error.inspect.count_needs_watch", {});
  std::optional<std::string> text;
  if (!o.from.empty()) {
    auto read = core::ReadTextFile(o.from, app::kMaxCaptureBytes);
    if (!read.ok()) return read.status();
    text = std::move(read.value());
    if (o.query_gpu.empty()) {
      auto shown = RunInterconnectInspect(ctx, o.from == "-" ? ctx.texts.Get("inspect.source.stdin") : o.from, *text);
      if (shown) return std::move(*shown);
    }
  }
  auto reading = app::ReadGpuState(o.from, text ? &*text : nullptr);
  if (!reading.ok()) return reading.status();
  PrintWarnings(ctx, *reading);
  std::int64_t now_s = 0;  // the reference for a capture's age; live state has none
  if (!o.from.empty()) {
    auto now = core::NowEpochSeconds();
    if (!now.ok()) return now.status();
    now_s = *now;
  }
  const std::optional<app::CaptureDate> date = app::CaptureDateOf(*reading, now_s);

  if (!o.query_gpu.empty()) {
    std::vector<Snapshot> all;
    for (const auto& set : reading->sets) all.insert(all.end(), set.gpus.begin(), set.gpus.end());
    auto format = telemetry::ParseCsvFormat(o.format);
    if (!format.ok()) return format.status();
    auto csv = telemetry::FormatQueryGpu(all, o.query_gpu, *format);
    if (!csv.ok()) return csv.status();
    ctx.out << *csv;
    return core::ExitCode::kOk;
  }
  std::vector<telemetry::Finding> findings_all;
  if (ctx.options.json) {
    ctx.out << report::RenderJson(app::InspectDocument(*reading, ctx.texts, now_s, &findings_all));
  } else {
    int width = TerminalWidth();
    std::string out = ctx.texts.Get("inspect.title") + "\n" + Tr(ctx.texts, "inspect.source", fmt::arg("source", SourceText(*reading, ctx.texts))) + "\n";
    if (date) out += CapturedLine(*date, ctx.texts) + "\n";
    // The verdict comes first, so it is judged before anything is drawn.
    std::vector<telemetry::Assessment> assessments;
    for (const auto& set : reading->sets) {
      assessments.push_back(app::AssessReading(set.gpus, date));
      findings_all.insert(findings_all.end(), assessments.back().findings.begin(), assessments.back().findings.end());
    }
    out += report::RenderHealthVerdict(telemetry::JudgeHealth(findings_all, app::DistinctGpus(*reading)), ctx.texts, date.has_value()) + "\n";
    for (size_t i = 0; i < reading->sets.size(); ++i) {
      const auto& set = reading->sets[i];
      out += "\n";
      if (!set.state.empty()) out += Tr(ctx.texts, "inspect.state", fmt::arg("state", CaptureValueText("state", set.state, ctx.texts))) + "\n";
      for (const auto& g : set.gpus) out += RenderGpu(g, app::SpecOf(g), ctx.texts, width) + "\n";
      out += "\n" + report::RenderAssessment(assessments[i], ctx.texts);
    }
    ctx.out << out;
  }
  return telemetry::WorstSeverity(findings_all) == telemetry::Severity::kInfo ? core::ExitCode::kOk : core::ExitCode::kProblemsFound;
}

}  // namespace

VerbRunner SetupInspectVerb(CLI::App* command) {
  auto o = std::make_shared<InspectOptions>();
  command->add_option("--from", o->from, "read a saved capture instead of live state ('-' = standard input)");
  o->watch_option = command->add_option("--watch", o->watch_text, "redraw every SECONDS (default 1) with sparklines")->expected(0, 1);
  command->add_option("--count", o->count, "with --watch: stop after N samples");
  command->add_option("--query-gpu", o->query_gpu, "print these nvidia-smi fields as CSV (help lists them)");
  command->add_flag("--topology", o->topology, "the live GPU topology through NVML, as 'nvidia-smi topo -m' shows it");
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
