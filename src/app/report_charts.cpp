#include "app/report_charts.h"

#include <cmath>

#include <fmt/format.h>

#include "core/units.h"
#include "model/advisor.h"
#include "model/roofline.h"
#include "report/case_label.h"
#include "report/count_text.h"
#include "report/svg_chart.h"

namespace gpuprobe::app {
namespace {

using bench::BenchResult;
using report::Scale;
using report::Series;
using report::Tr;

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
  while (v >= 1000 && i < 4) {
    v /= 1000;
    ++i;
  }
  return fmt::format("{:g}{}", v, suffix[i]);
}

bool Usable(const BenchResult& r) { return r.ok() && r.verified && std::isfinite(r.value) && r.value > 0; }

std::string SourceOf(const Figure& f, const report::Texts& t) {
  return t.Get(f.known() ? "summary.source." + f.source : "report.link_unknown");
}

// A measured point's name in the reader's language: the benchmark's title and its case.
std::string ResultName(const BenchResult& r, const report::Texts& t) {
  std::string key = "bench.title." + r.id;
  return (t.Has(key) ? t.Get(key) : r.id) + " " + report::CaseLabelText(r.case_label, t);
}

std::string GpuLabel(const MachineSummary& s, const report::Texts& t) {
  if (s.gpu_name.empty()) return "GPU";
  return s.gpu_present ? s.gpu_name : Tr(t, "report.gpu_spec_label", fmt::arg("gpu", s.gpu_name));
}

std::vector<const BenchResult*> Results(const ReportSources& src, const std::string& id, const std::string& backend) {
  return src.bench ? src.bench->ResultsOf(id, backend) : std::vector<const BenchResult*>{};
}

/// The CPU's theoretical FP32 peak (cores x lanes x 2 x clock), from the bench run's CPU.
std::optional<double> CpuTheoreticalFp32(const ReportSources& src) {
  if (!src.bench) return std::nullopt;
  return model::CpuPeakFlops(src.bench->cpu, "fp32", src.bench->cpu.physical_cores);
}

report::HtmlChart Chart(const report::Texts& t, const std::string& area, std::string svg, std::string lesson,
                        std::string note) {
  return {t.Get("report." + area + ".heading"), std::move(lesson), std::move(svg), std::move(note)};
}

report::HtmlChart Roofline(const ReportSources& src, const MachineSummary& s, const report::Texts& t) {
  report::XyChart c;
  c.id = "roofline";
  c.title = t.Get("report.roofline.title");
  c.no_data = t.Get("report.no_data");
  c.x = {t.Get("report.roofline.x"), Scale::kLog, [](double v) { return fmt::format("{:g}", v); }};
  c.y = {t.Get("report.roofline.y"), Scale::kLog, Flops};
  auto roof = [&](const Figure& peak, const Figure& bw, const std::string& name, const char* color, Series::Style style) {
    model::Roofline r{peak.value.value_or(0), bw.value.value_or(0)};
    if (!r.known()) return;
    Series line{name, color, style, {}, {}, {}};
    for (double ai = 1.0 / 64; ai <= 4096; ai *= 2) {
      line.x.push_back(ai);
      line.y.push_back(r.Attainable(ai));
    }
    c.series.push_back(line);
    c.markers.push_back({r.RidgePoint(), Tr(t, "report.roofline.ridge", fmt::arg("value", fmt::format("{:.3g}", r.RidgePoint())))});
  };
  auto theoretical = CpuTheoreticalFp32(src);
  if (theoretical && *theoretical > 0) {
    roof(Figure{theoretical, "model"}, s.cpu_bandwidth, t.Get("report.roofline.cpu_theoretical"), kCpuColor, Series::Style::kLine);
  } else {
    roof(s.cpu_fp32, s.cpu_bandwidth, t.Get("report.roofline.cpu_measured"), kCpuColor, Series::Style::kLine);
  }
  roof(s.gpu_fp32, s.gpu_bandwidth, Tr(t, "report.roofline.gpu_roof", fmt::arg("gpu", GpuLabel(s, t))), kGpuColor,
       s.gpu_measured ? Series::Style::kLine : Series::Style::kDashedLine);
  // Measured kernels as points: intensity from their declared work.
  for (const char* backend : {"cpu", "cuda"}) {
    bool cpu = std::string(backend) == "cpu";
    Series pts{t.Get(cpu ? "report.roofline.cpu_points" : "report.roofline.gpu_points"), cpu ? kCpuColor : kGpuColor,
               Series::Style::kPoints, {}, {}, {}};
    if (!src.bench) continue;
    for (const auto& r : src.bench->results) {
      if (r.backend != backend || !Usable(r) || r.metric != bench::Metric::kFlops) continue;
      double bytes = r.work.Bytes();
      if (!(bytes > 0) || !(r.work.flops > 0)) continue;
      pts.x.push_back(r.work.flops / bytes);
      pts.y.push_back(r.value);
      pts.point_labels.push_back(ResultName(r, t));
    }
    // The streaming triad as a bandwidth-bound point: 2 FLOPs per element.
    for (const BenchResult* r : Results(src, "memory.triad", backend)) {
      double bytes = r->work.Bytes(), flops = r->work.flops, seconds = r->stats.median;
      if (!(bytes > 0) || !(flops > 0) || !(seconds > 0) || !Usable(*r)) continue;
      pts.x.push_back(flops / bytes);
      pts.y.push_back(flops / seconds);
      pts.point_labels.push_back(ResultName(*r, t));
      break;
    }
    if (!pts.x.empty()) c.series.push_back(pts);
  }
  return Chart(t, "roofline", report::RenderXyChart(c), t.Get("report.roofline.lesson"),
               Tr(t, "report.roofline.note", fmt::arg("gpu", GpuLabel(s, t)),
                  fmt::arg("how", t.Get(s.gpu_measured ? "report.how.measured" : "report.how.spec"))));
}

report::HtmlChart WorkingSet(const ReportSources& src, const MachineSummary& s, const report::Texts& t) {
  report::XyChart c;
  c.id = "working-set";
  c.title = t.Get("report.working_set.title");
  c.no_data = t.Get("report.no_data");
  c.x = {t.Get("report.working_set.x"), Scale::kLog, Bytes, true};
  c.y = {t.Get("report.working_set.y"), Scale::kLog, Rate};
  for (const char* backend : {"cpu", "cuda"}) {
    bool cpu = std::string(backend) == "cpu";
    Series line{t.Get(cpu ? "report.working_set.cpu" : "report.working_set.gpu"), cpu ? kCpuColor : kGpuColor,
                Series::Style::kLineAndPoints, {}, {}, {}};
    for (const BenchResult* r : Results(src, "memory.sweep", backend)) {
      if (!Usable(*r)) continue;
      double bytes = r->param;
      if (!(bytes > 0)) bytes = static_cast<double>(r->size) * 8;  // older documents: elements of double
      line.x.push_back(bytes);
      line.y.push_back(r->value);
    }
    if (!line.x.empty()) c.series.push_back(line);
  }
  if (s.cpu_bandwidth.known() && !c.series.empty()) {
    double lo = c.series[0].x.front(), hi = c.series[0].x.back();
    c.series.push_back({t.Get("report.working_set.cpu_dram"), kGreyColor, Series::Style::kDashedLine, {lo, hi},
                        {*s.cpu_bandwidth.value, *s.cpu_bandwidth.value}, {}});
  }
  if (!s.gpu_measured && s.gpu_bandwidth.known() && !c.series.empty()) {
    double lo = c.series[0].x.front(), hi = c.series[0].x.back();
    c.series.push_back({Tr(t, "report.working_set.gpu_memory", fmt::arg("gpu", GpuLabel(s, t))), kGpuColor,
                        Series::Style::kDashedLine, {lo, hi}, {*s.gpu_bandwidth.value, *s.gpu_bandwidth.value}, {}});
  }
  if (src.bench) {
    const model::CpuSpec& cpu = src.bench->cpu;
    for (auto [bytes, label] : {std::pair{cpu.l1d_bytes, "L1"}, {cpu.l2_bytes, "L2"}, {cpu.l3_total_bytes, "L3"}}) {
      if (bytes > 0) c.markers.push_back({static_cast<double>(bytes), label});
    }
  }
  return Chart(t, "working_set", report::RenderXyChart(c), t.Get("report.working_set.lesson"), t.Get("report.working_set.note"));
}

report::HtmlChart TransferSize(const ReportSources& src, const MachineSummary& s, const report::Texts& t) {
  report::XyChart c;
  c.id = "transfer-size";
  c.title = t.Get("report.transfer.title");
  c.no_data = t.Get("report.no_data");
  c.x = {t.Get("report.transfer.x"), Scale::kLog, Bytes, true};
  c.y = {t.Get("report.transfer.y"), Scale::kLog, Rate};
  Series measured{t.Get("report.transfer.measured"), kCopyColor, Series::Style::kLineAndPoints, {}, {}, {}};
  for (const BenchResult* r : Results(src, "transfer.h2d_pinned", "cuda")) {
    if (!Usable(*r)) continue;
    measured.x.push_back(r->param > 0 ? r->param : static_cast<double>(r->size));
    measured.y.push_back(r->value);
  }
  if (!measured.x.empty()) c.series.push_back(measured);
  if (s.gpu_link.known()) {
    Series line{t.Get("report.transfer.model"), kGreyColor, Series::Style::kDashedLine, {}, {}, {}};
    for (double b = 4096; b <= (1ull << 30); b *= 2) {
      line.x.push_back(b);
      line.y.push_back(b / (model::kCopyLatencySeconds + b / *s.gpu_link.value));
    }
    c.series.push_back(line);
  }
  if (s.cpu_bandwidth.known() && !c.series.empty()) {
    c.series.push_back({t.Get("report.transfer.cpu"), kCpuColor, Series::Style::kDashedLine, {4096, double(1ull << 30)},
                        {*s.cpu_bandwidth.value, *s.cpu_bandwidth.value}, {}});
  }
  std::string note = measured.x.empty()
                         ? Tr(t, "report.transfer.note_model",
                              fmt::arg("link", s.link_name.empty() ? t.Get("report.link_unknown") : s.link_name),
                              fmt::arg("source", SourceOf(s.gpu_link, t)))
                         : t.Get("report.transfer.note_measured");
  return Chart(t, "transfer", report::RenderXyChart(c),
               Tr(t, "report.transfer.lesson", fmt::arg("latency", Seconds(model::kCopyLatencySeconds))), note);
}

report::HtmlChart Ladder(const ReportSources& src, const MachineSummary& s, const report::Texts& t) {
  report::BarChart b;
  b.id = "matmul-ladder";
  b.title = t.Get("report.ladder.title");
  b.no_data = t.Get("report.no_data");
  b.format = Flops;
  b.scale = Scale::kLog;
  if (src.bench) {
    auto theoretical = CpuTheoreticalFp32(src);
    for (const auto& r : src.bench->results) {
      if (r.group != "matmul" || !Usable(r)) continue;
      bool cpu = r.backend == "cpu";
      double peak = cpu ? theoretical.value_or(s.cpu_fp32.value.value_or(0)) : s.gpu_fp32.value.value_or(0);
      std::string note;
      if (peak > 0) note = Tr(t, "report.ladder.of_peak", fmt::arg("percent", fmt::format("{:.0f}", 100 * r.value / peak)));
      b.bars.push_back({fmt::format("{} {}", cpu ? "CPU" : "GPU", ResultName(r, t)), r.value,
                        cpu ? kCpuColor : kGpuColor, note});
    }
  }
  if (!s.gpu_measured) {
    if (s.gpu_fp32.known()) {
      b.bars.push_back({Tr(t, "report.ladder.gpu_peak", fmt::arg("gpu", GpuLabel(s, t))), *s.gpu_fp32.value, kGreyColor,
                        t.Get("summary.source.spec")});
    }
    if (s.gpu_tensor.known()) {
      b.bars.push_back({GpuLabel(s, t) + " " + t.Get("summary.matmul.tensor_bf16"), *s.gpu_tensor.value, kGreyColor,
                        t.Get("summary.source.spec")});
    }
  }
  return Chart(t, "ladder", report::RenderBarChart(b), t.Get("report.ladder.lesson"), t.Get("report.ladder.note"));
}

std::string NeverText(const model::CrossoverCurve& curve, const report::Texts& t) {
  switch (curve.why_never) {
    case model::NeverReason::kCopiesCostMore:
      return Tr(t, "report.crossover.never.copies", fmt::arg("link", Rate(curve.link_bandwidth)));
    case model::NeverReason::kFixedCostNotPaid:
      return Tr(t, "report.crossover.never.fixed", fmt::arg("size", Count(curve.max_size)));
    case model::NeverReason::kNoMeasuredWin:
      return t.Get("report.crossover.why_never_measured");
    case model::NeverReason::kNone:
      break;
  }
  return "-";
}

report::HtmlChart Crossover(const ReportSources& src, const std::optional<model::CrossoverCurve>& curve, const MachineSummary& s,
                            bool matmul, const report::Texts& t) {
  report::XyChart c;
  c.id = matmul ? "crossover-matmul" : "crossover-vector";
  c.title = t.Get(matmul ? "report.crossover.title_matmul" : "report.crossover.title_vector");
  c.no_data = t.Get("report.no_data");
  c.x = {t.Get(matmul ? "report.crossover.x_matmul" : "report.crossover.x_vector"), Scale::kLog, Count};
  c.y = {t.Get("report.crossover.y"), Scale::kLog, Seconds};
  std::string lesson, note;
  if (curve) {
    Series cpu{t.Get("report.crossover.cpu"), kCpuColor, Series::Style::kLine, {}, {}, {}};
    Series resident{t.Get("report.crossover.resident"), kGpuColor, Series::Style::kLine, {}, {}, {}};
    Series copies{t.Get("report.crossover.copies"), kCopyColor, Series::Style::kDashedLine, {}, {}, {}};
    for (const auto& p : curve->points) {
      cpu.x.push_back(p.size);
      cpu.y.push_back(p.cpu_seconds);
      resident.x.push_back(p.size);
      resident.y.push_back(p.gpu_resident_seconds);
      copies.x.push_back(p.size);
      copies.y.push_back(p.gpu_transfer_seconds);
    }
    c.series = {cpu, resident, copies};
    auto size_text = [&](const std::optional<double>& v) {
      if (!v) return t.Get("report.crossover.never");
      return matmul ? fmt::format("n={:.0f}", *v)
                    : Tr(t, "report.crossover.size_elements", fmt::arg("size", report::FormatCountFor(t.language(), *v)));
    };
    if (curve->resident_size) c.markers.push_back({*curve->resident_size, t.Get("report.crossover.wins_resident")});
    if (curve->transfer_size) c.markers.push_back({*curve->transfer_size, t.Get("report.crossover.wins_copies")});
    lesson = curve->transfer_size
                 ? Tr(t, "report.crossover.lesson_wins", fmt::arg("size", size_text(curve->transfer_size)),
                      fmt::arg("resident", size_text(curve->resident_size)))
                 : Tr(t, "report.crossover.lesson_never", fmt::arg("why", NeverText(*curve, t)),
                      fmt::arg("resident", size_text(curve->resident_size)));
    bool measured = matmul ? s.matmul_crossover_measured : s.triad_crossover_measured;
    note = Tr(t, "report.crossover.note",
              fmt::arg("gpu_source", t.Get(s.gpu_measured ? "report.crossover.gpu_source_measured" : "report.crossover.gpu_source_spec")),
              fmt::arg("cross_source", t.Get(measured ? "report.crossover.cross_measured" : "report.crossover.cross_model")));
  } else {
    lesson = t.Get("report.crossover.no_figures");
  }
  // Measured calls (crossover.*), as points over the model's lines.
  const std::string id = matmul ? "crossover.matmul" : "crossover.vector";
  Series cpu_points{t.Get("report.crossover.cpu_points"), kCpuColor, Series::Style::kPoints, {}, {}, {}};
  Series resident_points{t.Get("report.crossover.resident_points"), kGpuColor, Series::Style::kPoints, {}, {}, {}};
  Series copies_points{t.Get("report.crossover.copies_points"), kCopyColor, Series::Style::kPoints, {}, {}, {}};
  for (const char* backend : {"cpu", "cuda"}) {
    for (const BenchResult* r : Results(src, id, backend)) {
      if (!Usable(*r)) continue;
      Series& target = std::string(backend) == "cpu" ? cpu_points : r->variant == "copies" ? copies_points : resident_points;
      target.x.push_back(static_cast<double>(r->size));
      target.y.push_back(r->value);
    }
  }
  for (auto* points : {&cpu_points, &resident_points, &copies_points}) {
    if (!points->x.empty()) c.series.push_back(*points);
  }
  return {t.Get(matmul ? "report.crossover.heading_matmul" : "report.crossover.heading_vector"), lesson,
          report::RenderXyChart(c), note};
}

}  // namespace

std::vector<report::HtmlChart> ReportCharts(const ReportSources& sources, const MachineSummary& summary,
                                            const report::Texts& texts) {
  return {Roofline(sources, summary, texts),
          WorkingSet(sources, summary, texts),
          TransferSize(sources, summary, texts),
          Ladder(sources, summary, texts),
          Crossover(sources, summary.triad_crossover, summary, false, texts),
          Crossover(sources, summary.matmul_crossover, summary, true, texts)};
}

}  // namespace gpuprobe::app
