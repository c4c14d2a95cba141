#include "cli/report_builder.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <ctime>

#include <fmt/format.h>

#include "cli/spec_data.h"
#include "core/file_io.h"
#include "core/units.h"
#include "core/version.h"
#include "model/advisor.h"
#include "model/roofline.h"
#include "report/svg_chart.h"

namespace gpuprobe::cli {
namespace {

using nlohmann::json;
using report::Scale;
using report::Series;

constexpr const char* kCpuColor = "#1f77b4";
constexpr const char* kGpuColor = "#d62728";
constexpr const char* kCopyColor = "#ff7f0e";
constexpr const char* kGreyColor = "#7f7f7f";

std::string Bytes(double v) { return core::FormatBytesBinary(v); }
std::string Rate(double v) { return core::FormatBytesPerSecond(v); }
std::string Flops(double v) { return core::FormatFlops(v); }
std::string Seconds(double v) { return core::FormatSeconds(v); }
/// Axis ticks for counts: 1k, 10k, 1M, 10B.
std::string Count(double v) {
  const char* suffix[] = {"", "k", "M", "B", "T"};
  int i = 0;
  while (v >= 1000 && i < 4) { v /= 1000; ++i; }
  return fmt::format("{:g}{}", v, suffix[i]);
}

double Get(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : NAN;
}

std::string SourceOf(const Figure& f) { return f.known() ? f.source : "unknown"; }

std::string GpuLabel(const MachineSummary& s) {
  if (s.gpu_name.empty()) return "GPU";
  return s.gpu_present ? s.gpu_name : s.gpu_name + " (spec)";
}

/// The CPU's theoretical FP32 peak from the bench document (cores x lanes x 2 x clock).
double CpuTheoreticalFp32(const ReportSources& src) {
  if (!src.bench.is_object() || !src.bench.contains("machine")) return NAN;
  const json& cpu = src.bench["machine"].value("cpu", json::object());
  return Get(cpu.value("theoretical_peak", json::object()), "fp32_flops");
}

report::HtmlChart Roofline(const ReportSources& src, const MachineSummary& s) {
  report::XyChart c;
  c.id = "roofline";
  c.title = "Roofline: attainable FLOP/s against arithmetic intensity";
  c.x = {"arithmetic intensity (FLOP per byte of memory traffic)", Scale::kLog, [](double v) { return fmt::format("{:g}", v); }};
  c.y = {"FLOP/s", Scale::kLog, Flops};
  auto roof = [&](const Figure& peak, const Figure& bw, const std::string& name, const char* color, Series::Style style) {
    model::Roofline r{peak.value.value_or(0), bw.value.value_or(0)};
    if (!r.known()) return;
    Series line{name, color, style, {}, {}, {}};
    for (double ai = 1.0 / 64; ai <= 4096; ai *= 2) {
      line.x.push_back(ai);
      line.y.push_back(r.Attainable(ai));
    }
    c.series.push_back(line);
    c.markers.push_back({r.RidgePoint(), fmt::format("ridge {:.3g}", r.RidgePoint())});
  };
  double theoretical = CpuTheoreticalFp32(src);
  if (theoretical > 0) {
    roof(Figure{theoretical, "model"}, s.cpu_bandwidth, "CPU roof (theoretical peak, measured triad)", kCpuColor, Series::Style::kLine);
  } else {
    roof(s.cpu_fp32, s.cpu_bandwidth, "CPU roof (measured peak and triad)", kCpuColor, Series::Style::kLine);
  }
  roof(s.gpu_fp32, s.gpu_bandwidth, GpuLabel(s) + " FP32 roof", kGpuColor,
       s.gpu_measured ? Series::Style::kLine : Series::Style::kDashedLine);
  // Measured kernels as points: intensity from their declared work.
  for (const char* backend : {"cpu", "cuda"}) {
    Series pts{std::string(backend) == "cpu" ? "CPU kernels (measured)" : "GPU kernels (measured)",
               std::string(backend) == "cpu" ? kCpuColor : kGpuColor, Series::Style::kPoints, {}, {}, {}};
    if (!src.bench.is_object() || !src.bench.contains("results")) continue;
    for (const auto& r : src.bench["results"]) {
      if (r.value("backend", "") != backend || !r.value("verified", false) || r.value("metric", "") != "flops") continue;
      const json& w = r["work"];
      double bytes = Get(w, "bytes_read") + Get(w, "bytes_written"), flops = Get(w, "flops"), value = Get(r, "value");
      if (!(bytes > 0) || !(flops > 0) || !(value > 0)) continue;
      pts.x.push_back(flops / bytes);
      pts.y.push_back(value);
      pts.point_labels.push_back(r.value("id", "").substr(r.value("id", "").find('.') + 1) + " " + r.value("case", ""));
    }
    // The streaming triad as a bandwidth-bound point: 2 FLOPs per element.
    for (const json* r : ResultsOf(src.bench, "memory.triad", backend)) {
      double bytes = Get((*r)["work"], "bytes_read") + Get((*r)["work"], "bytes_written"), flops = Get((*r)["work"], "flops");
      double seconds = Get(*r, "median_s");
      if (!(bytes > 0) || !(flops > 0) || !(seconds > 0) || !r->value("verified", false)) continue;
      pts.x.push_back(flops / bytes);
      pts.y.push_back(flops / seconds);
      pts.point_labels.push_back("triad " + r->value("case", ""));
      break;
    }
    if (!pts.x.empty()) c.series.push_back(pts);
  }
  return {"Roofline: why some kernels never reach the peak",
          "Below the ridge a kernel waits for memory, not arithmetic: more FLOP/s only come from doing more work per byte "
          "(blocking, fusing), and a GPU's advantage there is its bandwidth, not its FLOPs.",
          report::RenderXyChart(c),
          fmt::format("CPU: measured in this run. {}: {}.", GpuLabel(s),
                      s.gpu_measured ? "measured in this run" : "spec sheet (not measured here)")};
}

report::HtmlChart WorkingSet(const ReportSources& src, const MachineSummary& s) {
  report::XyChart c;
  c.id = "working-set";
  c.title = "Memory bandwidth against working-set size";
  c.x = {"working set", Scale::kLog, Bytes, true};
  c.y = {"bandwidth", Scale::kLog, Rate};
  for (const char* backend : {"cpu", "cuda"}) {
    bool cpu = std::string(backend) == "cpu";
    Series line{cpu ? "CPU, one core (measured)" : "GPU (measured)", cpu ? kCpuColor : kGpuColor, Series::Style::kLineAndPoints, {}, {}, {}};
    for (const json* r : ResultsOf(src.bench, "memory.sweep", backend)) {
      if (!r->value("verified", false)) continue;
      double bytes = Get(*r, "param");
      if (!(bytes > 0)) bytes = Get(*r, "size") * 8;  // older documents: elements of double
      line.x.push_back(bytes);
      line.y.push_back(Get(*r, "value"));
    }
    if (!line.x.empty()) c.series.push_back(line);
  }
  if (s.cpu_bandwidth.known() && !c.series.empty()) {
    double lo = c.series[0].x.front(), hi = c.series[0].x.back();
    c.series.push_back({"CPU, all cores, DRAM (measured triad)", kGreyColor, Series::Style::kDashedLine, {lo, hi},
                        {*s.cpu_bandwidth.value, *s.cpu_bandwidth.value}, {}});
  }
  if (!s.gpu_measured && s.gpu_bandwidth.known() && !c.series.empty()) {
    double lo = c.series[0].x.front(), hi = c.series[0].x.back();
    c.series.push_back({GpuLabel(s) + " HBM", kGpuColor, Series::Style::kDashedLine, {lo, hi},
                        {*s.gpu_bandwidth.value, *s.gpu_bandwidth.value}, {}});
  }
  json cpu = src.bench.is_object() && src.bench.contains("machine") ? src.bench["machine"].value("cpu", json::object()) : json::object();
  for (auto [key, label] : {std::pair{"l1d_bytes", "L1"}, {"l2_bytes", "L2"}, {"l3_total_bytes", "L3"}}) {
    double v = Get(cpu, key);
    if (v > 0) c.markers.push_back({v, label});
  }
  return {"Bandwidth against working-set size: the cache hierarchy",
          "Data that fits in a cache is read several times faster than data that lives in DRAM; a GPU's HBM is itself "
          "faster than the CPU's caches, which is why bandwidth-bound work moves to it.",
          report::RenderXyChart(c), "Single-core sweep measured in this run; dashed lines: all-core triad and the GPU's memory."};
}

report::HtmlChart TransferSize(const ReportSources& src, const MachineSummary& s) {
  report::XyChart c;
  c.id = "transfer-size";
  c.title = "Host to GPU bandwidth against transfer size";
  c.x = {"bytes per copy", Scale::kLog, Bytes, true};
  c.y = {"bandwidth", Scale::kLog, Rate};
  Series measured{"host to GPU, pinned (measured)", kCopyColor, Series::Style::kLineAndPoints, {}, {}, {}};
  for (const json* r : ResultsOf(src.bench, "transfer.h2d_pinned", "cuda")) {
    if (!r->value("verified", false)) continue;
    measured.x.push_back(Get(*r, "param") > 0 ? Get(*r, "param") : Get(*r, "size"));
    measured.y.push_back(Get(*r, "value"));
  }
  if (!measured.x.empty()) c.series.push_back(measured);
  if (s.gpu_link.known()) {
    Series model{"model: latency + size / link", kGreyColor, Series::Style::kDashedLine, {}, {}, {}};
    for (double b = 4096; b <= (1ull << 30); b *= 2) {
      model.x.push_back(b);
      model.y.push_back(b / (model::kCopyLatencySeconds + b / *s.gpu_link.value));
    }
    c.series.push_back(model);
  }
  if (s.cpu_bandwidth.known() && !c.series.empty()) {
    c.series.push_back({"CPU memory, all cores (measured triad)", kCpuColor, Series::Style::kDashedLine, {4096, double(1ull << 30)},
                        {*s.cpu_bandwidth.value, *s.cpu_bandwidth.value}, {}});
  }
  return {"Bandwidth against transfer size: the host link",
          fmt::format("Small copies are all latency (~{} each): send few large batches, not many small ones; even large "
                      "copies run at the link's speed, far below the GPU's own memory.",
                      Seconds(model::kCopyLatencySeconds)),
          report::RenderXyChart(c),
          measured.x.empty() ? fmt::format("Model only: no GPU copy was measured in this run; link {} ({}).",
                                           s.link_name.empty() ? "unknown" : s.link_name, SourceOf(s.gpu_link))
                             : "Measured in this run; dashed: the model."};
}

report::HtmlChart Ladder(const ReportSources& src, const MachineSummary& s) {
  report::BarChart b;
  b.id = "matmul-ladder";
  b.title = "Matmul ladder";
  b.format = Flops;
  b.scale = Scale::kLog;
  if (src.bench.is_object() && src.bench.contains("results")) {
    for (const auto& r : src.bench["results"]) {
      if (r.value("group", "") != "matmul" || !r.value("verified", false) || !(Get(r, "value") > 0)) continue;
      bool cpu = r.value("backend", "") == "cpu";
      std::string note;
      double theoretical = CpuTheoreticalFp32(src);
      double peak = cpu ? (theoretical > 0 ? theoretical : s.cpu_fp32.value.value_or(0)) : s.gpu_fp32.value.value_or(0);
      if (peak > 0) note = fmt::format("{:.0f}% of FP32 peak", 100 * Get(r, "value") / peak);
      b.bars.push_back({fmt::format("{} {} {}", cpu ? "CPU" : "GPU", r.value("id", "").substr(7), r.value("case", "")), Get(r, "value"),
                        cpu ? kCpuColor : kGpuColor, note});
    }
  }
  if (!s.gpu_measured) {
    if (s.gpu_fp32.known()) b.bars.push_back({GpuLabel(s) + " FP32 peak", *s.gpu_fp32.value, kGreyColor, "spec"});
    if (s.gpu_matmul.known() && s.gpu_matmul_name != "fp32") {
      b.bars.push_back({GpuLabel(s) + " " + s.gpu_matmul_name, *s.gpu_matmul.value, kGreyColor, "spec"});
    }
  }
  return {"The matmul ladder",
          "The same multiplication runs a hundred times faster once it reuses data from caches and registers; a tuned "
          "library is the top rung, and a GPU's tensor cores add orders of magnitude more.",
          report::RenderBarChart(b), "Bars: measured in this run (log scale); grey: spec sheet, not measured here."};
}

report::HtmlChart Crossover(const ReportSources& src, const std::optional<model::CrossoverCurve>& curve, const MachineSummary& s,
                            bool matmul) {
  report::XyChart c;
  c.id = matmul ? "crossover-matmul" : "crossover-vector";
  c.title = matmul ? "Matmul: CPU against GPU time by size" : "Vector triad: CPU against GPU time by size";
  c.x = {matmul ? "matrix order n" : "elements", Scale::kLog, Count};
  c.y = {"time per call", Scale::kLog, Seconds};
  std::string lesson, note;
  if (curve) {
    Series cpu{"CPU", kCpuColor, Series::Style::kLine, {}, {}, {}};
    Series resident{"GPU, data already there", kGpuColor, Series::Style::kLine, {}, {}, {}};
    Series copies{"GPU, with copies over the host link", kCopyColor, Series::Style::kDashedLine, {}, {}, {}};
    for (const auto& p : curve->points) {
      cpu.x.push_back(p.size);
      cpu.y.push_back(p.cpu_seconds);
      resident.x.push_back(p.size);
      resident.y.push_back(p.gpu_resident_seconds);
      copies.x.push_back(p.size);
      copies.y.push_back(p.gpu_transfer_seconds);
    }
    c.series = {cpu, resident, copies};
    for (auto& series : c.series) {
      if (series.x.empty()) continue;
      series.name += " (model)";
    }
    auto size_text = [&](double v) { return matmul ? fmt::format("n={:.0f}", v) : core::FormatCount(v) + " elements"; };
    if (curve->resident_size) c.markers.push_back({*curve->resident_size, "GPU wins (resident)"});
    if (curve->transfer_size) c.markers.push_back({*curve->transfer_size, "GPU wins (with copies)"});
    lesson = curve->transfer_size
                 ? fmt::format("Below {} the CPU is faster: the GPU's fixed cost and the copies dominate. Above it the GPU "
                               "wins, and by far more when the data stays on the GPU (from {}).",
                               size_text(*curve->transfer_size),
                               curve->resident_size ? size_text(*curve->resident_size) : std::string("never"))
                 : fmt::format("With copies the GPU never wins: {}. Kept on the GPU it wins from {}.", curve->why_never,
                               curve->resident_size ? size_text(*curve->resident_size) : std::string("never"));
    bool measured = matmul ? s.matmul_crossover_measured : s.triad_crossover_measured;
    note = fmt::format("Curves: the model from this run's CPU figures and the GPU's {} figures. Crossover sizes: {}.",
                       s.gpu_measured ? "measured" : "spec-sheet",
                       measured ? "measured (crossover.* timed on both sides)" : "from the model");
  } else {
    lesson = "Not enough figures to draw the crossover (run the memory, compute and matmul benchmarks).";
  }
  // Measured calls (crossover.*), as points over the model's lines.
  const std::string id = matmul ? "crossover.matmul" : "crossover.vector";
  Series cpu_points{"CPU (measured)", kCpuColor, Series::Style::kPoints, {}, {}, {}};
  Series resident_points{"GPU resident (measured)", kGpuColor, Series::Style::kPoints, {}, {}, {}};
  Series copies_points{"GPU with copies (measured)", kCopyColor, Series::Style::kPoints, {}, {}, {}};
  for (const char* backend : {"cpu", "cuda"}) {
    for (const json* r : ResultsOf(src.bench, id, backend)) {
      if (!r->value("verified", false)) continue;
      Series& target = std::string(backend) == "cpu" ? cpu_points : r->value("variant", "") == "copies" ? copies_points : resident_points;
      target.x.push_back(Get(*r, "size"));
      target.y.push_back(Get(*r, "value"));
    }
  }
  for (auto* points : {&cpu_points, &resident_points, &copies_points}) {
    if (!points->x.empty()) c.series.push_back(*points);
  }
  return {matmul ? "Crossover: where the GPU starts to win a matmul" : "Crossover: where the GPU starts to win a vector operation",
          lesson, report::RenderXyChart(c), note};
}

}  // namespace

core::Result<const model::GpuSpec*> ResolveGpuSpec(const ReportSources& sources, const std::string& compare_with) {
  auto db = EmbeddedSpecDatabase();
  if (!db.ok()) return db.status();
  if (sources.gpu.is_object() && sources.gpu.value("available", false) && sources.gpu.contains("devices") &&
      sources.gpu["devices"].is_array() && !sources.gpu["devices"].empty()) {
    const json& d = sources.gpu["devices"][0];
    std::string name = d.contains("spec_database_name") && d["spec_database_name"].is_string()
                           ? d["spec_database_name"].get<std::string>()
                           : d.value("name", "");
    auto found = (*db)->Find(name);
    return found.ok() ? *found : nullptr;  // a GPU the database lacks: measured figures only
  }
  if (compare_with.empty()) return static_cast<const model::GpuSpec*>(nullptr);
  auto found = (*db)->Find(compare_with);
  if (!found.ok()) return found.status().WithContext("--gpu");
  return *found;
}

ReportHeader MakeReportHeader(const ReportSources& sources) {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = 0;
  std::time_t now = std::time(nullptr);
  char when[64] = {};
  std::tm utc {};
  gmtime_r(&now, &utc);
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &utc);
  std::string origins;
  for (const auto& o : sources.origins) origins += (origins.empty() ? "" : ", ") + o;
  return {fmt::format("gpuprobe report: {}", host[0] ? host : "this machine"),
          fmt::format("gpuprobe {}, {}, from {}", core::kVersion, when, origins.empty() ? "nothing" : origins)};
}

core::Status WriteReportFile(const std::string& path, const std::string& html) {
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0) {
    auto existing = core::ReadTextFile(path, 64ull << 20);
    if (!existing.ok() || existing->find("<meta name=\"generator\" content=\"gpuprobe\">") == std::string::npos) {
      return core::Status::InvalidArgument(fmt::format("'{}' exists and is not a gpuprobe report: not replacing it", path),
                                           "choose another file with -o, or move that one away");
    }
  }
  return core::WriteFileAtomically(path, html);
}

report::HtmlReport BuildHtmlReport(const ReportSources& sources, const MachineSummary& summary,
                                   const std::vector<std::string>& verdict, const ReportHeader& header,
                                   const report::Texts& texts) {
  report::HtmlReport r;
  r.title = header.title;
  r.subtitle = header.subtitle;
  r.verdict = verdict;
  r.machine_header = {"", "CPU", "GPU"};
  for (auto& row : SideBySideRows(summary, texts)) r.machine.push_back({row});
  r.machine_notes.push_back(
      "measured: timed in this run and verified; spec: the vendor's data sheet; model: gpuprobe's formulas "
      "(crossovers: fixed cost + max(FLOPs / peak, bytes / bandwidth), copies at 80% of the link's encoded rate).");
  for (const auto& line : LiveStateLines(sources, texts)) r.machine_notes.push_back("Live state: " + line);
  if (!summary.gpu_present) {
    r.machine_notes.push_back("No GPU was used in this run: the GPU column shows " +
                              (summary.gpu_name.empty() ? std::string("nothing") : summary.gpu_name + "'s spec sheet") +
                              " for comparison, not a measurement.");
  }
  r.charts = {Roofline(sources, summary), WorkingSet(sources, summary), TransferSize(sources, summary),
              Ladder(sources, summary), Crossover(sources, summary.triad_crossover, summary, false),
              Crossover(sources, summary.matmul_crossover, summary, true)};
  for (const auto& p : Problems(sources)) r.findings.push_back({p.severity, p.title, p.evidence, p.fix});
  r.findings_empty = sources.inspect.is_null() && sources.doctor.is_null()
                         ? "No live state or doctor checks were part of this report."
                         : "No problem found: live state and doctor's checks are clean.";
  r.next = {"gpuprobe bench --full", "gpuprobe doctor", "gpuprobe inspect --watch", "gpuprobe advise --profile matmul",
            "gpuprobe plan --params 8B --gpu " + (summary.gpu_spec ? summary.gpu_spec->aliases.empty() ? summary.gpu_spec->name
                                                                                                       : summary.gpu_spec->aliases[0]
                                                                   : std::string("h200"))};
  return r;
}

}  // namespace gpuprobe::cli
