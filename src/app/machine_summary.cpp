#include "app/machine_summary.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "app/gpu_absence.h"
#include "core/units.h"
#include "model/advisor.h"
#include "model/spec_derivation.h"
#include "report/case_label.h"
#include "report/count_text.h"

namespace gpuprobe::app {
namespace {

using bench::BenchDocument;
using bench::BenchResult;
using nlohmann::json;
using report::Tr;

std::optional<double> Number(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nullopt;
  double v = j[key].get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

std::string String(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

bool Bool(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_boolean() && j[key].get<bool>();
}

bool Usable(const BenchResult& r) { return r.ok() && r.verified && std::isfinite(r.value) && r.value > 0; }

Figure FromResult(const BenchResult& r) { return Figure{r.value, "measured", r.stats.noisy}; }

/// The measured figure of `id` on `backend` (cases starting with `prefix`) by the bench
/// document's one rule (BenchDocument::BestVerified): the best verified value.
Figure Measured(const std::optional<BenchDocument>& bench, const std::string& id, const std::string& backend,
                const std::string& prefix = "") {
  const BenchResult* r = bench ? bench->BestVerified(id, backend, prefix) : nullptr;
  return r ? FromResult(*r) : Figure{};
}

Figure FromSpec(std::optional<double> v, const char* source = "spec") {
  return v && *v > 0 ? Figure{v, source} : Figure{};
}

Figure FromMatmul(const MatmulFigure& f) { return f.known() ? Figure{f.flops, f.source, f.noisy} : Figure{}; }

// Speed-ups by the one rounding rule (app/matmul_comparison.h).
std::string Ratio(const Figure& a, const Figure& b) {
  if (!a.known() || !b.known() || *b.value <= 0) return "?";
  return FormatSpeedup(*a.value / *b.value);
}

// Element counts as the reader's language writes them ("1.05 M", "105 万").
std::string Size(double elements, const report::Texts& t) { return report::FormatCountFor(t.language(), elements); }

std::string CrossText(const std::optional<model::CrossoverCurve>& c, bool matmul, bool measured, const report::Texts& t) {
  if (!c) return "-";
  auto fmt_size = [&](double s) { return matmul ? fmt::format("n={:.0f}", s) : Tr(t, "summary.cross.elements", fmt::arg("size", Size(s, t))); };
  // At the smallest size tried the GPU may already win: say "up to" rather than a false edge.
  auto edge = [&](const std::optional<double>& size) {
    if (!size) return t.Get("summary.cross.never");
    if (!c->points.empty() && *size <= c->points.front().size) return Tr(t, "summary.cross.at_most", fmt::arg("size", fmt_size(*size)));
    return fmt_size(*size);
  };
  std::string resident = edge(c->resident_size);
  std::string copies = edge(c->transfer_size);
  return Tr(t, "summary.cross.value", fmt::arg("resident", resident), fmt::arg("copies", copies)) + " (" +
         t.Get(measured ? "summary.source.measured" : "summary.source.model") + ")";
}

/// The smallest measured size at which the GPU call (resident, or with copies) took less time
/// than the CPU call, from crossover.vector / crossover.matmul. Empty optionals when the GPU
/// never won; `measured` false when the run has no such pairs.
struct Crossing {
  bool measured = false;
  std::optional<double> resident, copies;
};

Crossing MeasuredCrossing(const std::optional<BenchDocument>& bench, const std::string& id) {
  Crossing c;
  if (!bench) return c;
  std::map<double, double> cpu, resident, copies;
  for (const BenchResult* r : bench->ResultsOf(id, "cpu")) {
    if (Usable(*r)) cpu[static_cast<double>(r->size)] = r->value;
  }
  for (const BenchResult* r : bench->ResultsOf(id, "cuda")) {
    if (!Usable(*r)) continue;
    auto& side = r->variant == "copies" ? copies : resident;
    side[static_cast<double>(r->size)] = r->value;
  }
  for (const auto& [size, cpu_seconds] : cpu) {
    auto r = resident.find(size), k = copies.find(size);
    if (r != resident.end() || k != copies.end()) c.measured = true;
    if (!c.resident && r != resident.end() && r->second < cpu_seconds) c.resident = size;
    if (!c.copies && k != copies.end() && k->second < cpu_seconds) c.copies = size;
  }
  return c;
}

void ApplyMeasured(const Crossing& m, model::CrossoverKernel kernel, std::optional<model::CrossoverCurve>* curve, bool* flag) {
  if (!m.measured) return;
  if (!*curve) {
    *curve = model::CrossoverCurve{};
    (*curve)->kernel = kernel;
  }
  (*curve)->resident_size = m.resident;
  (*curve)->transfer_size = m.copies;
  if (!m.copies) (*curve)->why_never = model::NeverReason::kNoMeasuredWin;
  *flag = true;
}

}  // namespace

MachineSummary Summarize(const ReportSources& src, const model::GpuSpec* spec, const std::optional<MachineLoad>& load) {
  MachineSummary s;
  s.live_state_read = src.inspect.is_object();
  if (load) {
    s.cpu_busy = load->busy();
    s.load_1min = load->load_1min;
    s.logical_cpus = load->logical_cpus;
  }
  const std::optional<BenchDocument>& bench = src.bench;
  // The bench run's CPU facts, else the tour's identity (a run without the bench).
  if (bench) {
    s.cpu_name = bench->cpu.model_name;
    s.cpu_cores = bench->cpu.physical_cores;
    s.cpu_memory_bytes = static_cast<double>(bench->cpu.memory_total_bytes);
  }
  if (s.cpu_name.empty()) s.cpu_name = String(src.cpu, "model");
  if (s.cpu_cores <= 0) s.cpu_cores = static_cast<int>(Number(src.cpu, "physical_cores").value_or(0));
  if (s.cpu_memory_bytes <= 0) s.cpu_memory_bytes = Number(src.cpu, "memory_bytes").value_or(0);

  // The GPU: present when the tour or the bench run found one.
  if (Bool(src.gpu, "available") && src.gpu.contains("devices") && src.gpu["devices"].is_array() &&
      !src.gpu["devices"].empty()) {
    const json& d = src.gpu["devices"][0];
    s.gpu_present = true;
    s.gpu_name = String(d, "name");
    s.gpu_memory_bytes = Number(d, "memory_bytes").value_or(0);
  } else {
    s.gpu_absent_reason = String(src.gpu, "reason");
    s.gpu_absent_id = GpuAbsenceIdOf(src.gpu);
  }
  s.gpu_spec = spec;
  if (spec != nullptr) {
    if (s.gpu_name.empty()) s.gpu_name = spec->name;
    // The model's one figure (a driver's total where the database has one; vendors' GPU "GB" are GiB).
    if (s.gpu_memory_bytes == 0) s.gpu_memory_bytes = model::MemoryTotalBytes(*spec);
    s.link_name = spec->host_interface;
  }

  // CPU: everything measured.
  s.cpu_bandwidth = Measured(bench, "memory.triad", "cpu", "all threads");
  s.cpu_fp32 = Measured(bench, "compute.fma_fp32", "cpu", "all cores");
  // The matmul comparison: one definition for every verb (app/matmul_comparison.h).
  const MatmulComparison matmul = CompareMatmul(bench ? &*bench : nullptr, bench ? &bench->cpu : nullptr, spec);
  s.matmul = matmul;
  s.cpu_matmul = FromMatmul(matmul.cpu);
  s.cpu_matmul_name = matmul.cpu.name;
  s.cpu_bandwidth_one = Measured(bench, "memory.triad", "cpu", "1 thread");
  s.cpu_fp32_one = Measured(bench, "compute.fma_fp32", "cpu", "1 core");
  // The pool's own round trip (the OpenMP anchor case has the variant "openmp").
  if (bench) {
    for (const BenchResult* r : bench->ResultsOf("parallel.fork_join", "cpu")) {
      if (r->variant.empty() && Usable(*r)) {
        s.cpu_fixed = FromResult(*r);
        break;
      }
    }
    model::CpuPeak peak = model::CpuPeakOf(bench->cpu, "fp32", bench->cpu.physical_cores);
    if (peak.flops) {
      s.cpu_fp32_peak = Figure{peak.flops, "model"};
      s.cpu_peak_clock_basis = peak.clock_measured ? "measured" : "spec";
    }
  }

  // GPU: measured where the run has GPU results, else the spec sheet and the model.
  s.gpu_bandwidth = Measured(bench, "memory.triad", "cuda");
  s.gpu_fp32 = Measured(bench, "compute.fma_fp32", "cuda");
  s.gpu_matmul = FromMatmul(matmul.gpu_fp32);
  s.gpu_matmul_name = matmul.gpu_fp32.name;
  if (matmul.gpu_fp32.source == "spec") s.gpu_matmul_name_key = "summary.matmul.fp32";
  s.gpu_tensor = FromMatmul(matmul.gpu_tensor);
  s.gpu_tensor_name = matmul.gpu_tensor.name;
  s.gpu_link = Measured(bench, "transfer.h2d_pinned", "cuda");
  s.gpu_fixed = Measured(bench, "launch.round_trip", "cuda");
  s.gpu_measured = s.gpu_bandwidth.known() || s.gpu_fp32.known() || (s.gpu_matmul.known() && s.gpu_matmul.source == "measured");
  if (spec != nullptr) {
    if (!s.gpu_bandwidth.known()) {
      auto bw = spec->memory_bandwidth_vendor_gb_per_s.value;
      s.gpu_bandwidth = FromSpec(bw ? std::optional<double>(*bw * 1e9) : model::DeriveMemoryBandwidth(*spec).derived);
    }
    if (!s.gpu_fp32.known()) {
      auto tf = spec->fp32_vector_tflops.value;
      s.gpu_fp32 = FromSpec(tf ? std::optional<double>(*tf * 1e12) : model::DeriveFp32Peak(*spec).derived);
    }
    if (!s.gpu_link.known()) {
      auto link = model::DerivePcieBandwidth(*spec);
      if (link) s.gpu_link = FromSpec(*link * model::kPcieEfficiency, "model");
    }
  }
  if (!s.gpu_fixed.known()) s.gpu_fixed = Figure{model::kLaunchRoundTripSeconds, "model"};

  // Crossovers from these figures: fp32 on both sides, so the matmul uses the GPU's FP32 rate.
  if (s.cpu_bandwidth.known() && s.cpu_fp32.known() && s.gpu_bandwidth.known() && s.gpu_fp32.known() && s.gpu_link.known()) {
    double cpu_fixed = s.cpu_fixed.value.value_or(0);
    double all_flops = s.cpu_matmul.known() && s.cpu_matmul.source == "measured" ? *s.cpu_matmul.value : *s.cpu_fp32.value;
    // One thread: its measured rates where the run has them; else the all-core rates split
    // over the cores (an assumption that only matters for tiny jobs, and errs for the GPU).
    double cores = std::max(1, s.cpu_cores);
    double one_flops = s.cpu_fp32_one.known() ? all_flops * *s.cpu_fp32_one.value / *s.cpu_fp32.value : all_flops / cores;
    double one_bandwidth = s.cpu_bandwidth_one.known() ? *s.cpu_bandwidth_one.value : *s.cpu_bandwidth.value / cores;
    model::CpuRates cpu_rates{{one_flops, one_bandwidth, 0}, {all_flops, *s.cpu_bandwidth.value, cpu_fixed}};
    model::ProcessorRates gpu_rates{*s.gpu_fp32.value, *s.gpu_bandwidth.value, *s.gpu_fixed.value};
    model::LinkRates link{*s.gpu_link.value, model::kCopyLatencySeconds};
    auto triad = model::FindCrossover(model::CrossoverKernel::kVectorTriad, cpu_rates, gpu_rates, link, 1e3, 1e10);
    if (triad.ok()) s.triad_crossover = *triad;
    auto mm = model::FindCrossover(model::CrossoverKernel::kMatmul, cpu_rates, gpu_rates, link, 8, 32768);
    if (mm.ok()) s.matmul_crossover = *mm;
    // The terms at the crossover size itself (the curve's points are a grid around it).
    for (auto [curve, at] : {std::pair{&s.triad_crossover, &s.triad_at_crossover}, std::pair{&s.matmul_crossover, &s.matmul_at_crossover}}) {
      if (*curve && (*curve)->transfer_size) *at = model::TimeAt((*curve)->kernel, *(*curve)->transfer_size, cpu_rates, gpu_rates, link);
    }
  }
  ApplyMeasured(MeasuredCrossing(bench, "crossover.vector"), model::CrossoverKernel::kVectorTriad, &s.triad_crossover,
                &s.triad_crossover_measured);
  ApplyMeasured(MeasuredCrossing(bench, "crossover.matmul"), model::CrossoverKernel::kMatmul, &s.matmul_crossover,
                &s.matmul_crossover_measured);
  return s;
}

std::string FigureValue(const Figure& f, const std::string& kind) {
  if (!f.known()) return "-";
  return kind == "bandwidth" ? core::FormatBytesPerSecond(*f.value)
         : kind == "flops"   ? core::FormatFlops(*f.value)
         : kind == "seconds" ? core::FormatSeconds(*f.value)
                             : core::FormatBytesBinary(*f.value);
}

std::string FigureText(const Figure& f, const std::string& kind, const report::Texts& t) {
  if (!f.known()) return "-";
  return fmt::format("{} ({})", FigureValue(f, kind), t.Get("summary.source." + f.source + (f.noisy && f.source == "measured" ? "_noisy" : "")));
}

namespace {

// Beside a CPU figure measured on a busy machine: " (busy: load 3.1 on 2 CPUs)".
std::string BusyNote(const MachineSummary& s, const report::Texts& t) {
  if (!s.cpu_busy || !s.cpu_matmul.known()) return "";
  return Tr(t, "summary.busy", fmt::arg("load", fmt::format("{:.1f}", s.load_1min)), fmt::arg("cpus", s.logical_cpus));
}

// "blocked n=1024" with its case label in the reader's language; a spec-sheet name by its key.
std::string MatmulName(const std::string& name, const std::string& key, const report::Texts& t) {
  if (!key.empty()) return t.Get(key);
  size_t space = name.find(' ');
  if (space == std::string::npos) return name;
  return Tr(t, "summary.bench_case", fmt::arg("bench", name.substr(0, space)), fmt::arg("case", report::CaseLabelText(name.substr(space + 1), t)));
}

}  // namespace

std::vector<std::vector<std::string>> SideBySideRows(const MachineSummary& s, const report::Texts& t) {
  std::vector<std::vector<std::string>> rows;
  std::string cpu = s.cpu_name.empty() ? t.Get("common.unknown") : s.cpu_name;
  if (s.cpu_cores > 0) cpu += Tr(t, "summary.cores", fmt::arg("cores", s.cpu_cores));
  std::string gpu = s.gpu_name.empty() ? "-" : s.gpu_name;
  if (!s.gpu_present && !s.gpu_name.empty()) gpu = Tr(t, "summary.gpu_reference", fmt::arg("gpu", s.gpu_name));
  rows.push_back({t.Get("summary.row.processor"), cpu, gpu});
  rows.push_back({t.Get("summary.row.bandwidth"), FigureText(s.cpu_bandwidth, "bandwidth", t) + BusyNote(s, t), FigureText(s.gpu_bandwidth, "bandwidth", t)});
  rows.push_back({t.Get("summary.row.fp32"), FigureText(s.cpu_fp32, "flops", t) + BusyNote(s, t), FigureText(s.gpu_fp32, "flops", t)});
  auto mm = [&](const Figure& f, const std::string& name) {
    return f.known() && !name.empty() ? FigureText(f, "flops", t) + t.Get("summary.list_separator") + name : FigureText(f, "flops", t);
  };
  rows.push_back({t.Get("summary.row.matmul"), mm(s.cpu_matmul, MatmulName(s.cpu_matmul_name, "", t)) + BusyNote(s, t),
                  mm(s.gpu_matmul, MatmulName(s.gpu_matmul_name, s.gpu_matmul_name_key, t))});
  if (s.gpu_tensor.known()) {
    rows.push_back({t.Get("summary.row.matmul_tensor"), "-",
                    mm(s.gpu_tensor, s.gpu_tensor_name.empty() ? t.Get("summary.matmul.tensor_bf16") : MatmulName(s.gpu_tensor_name, "", t))});
  }
  rows.push_back({t.Get("summary.row.memory"), s.cpu_memory_bytes > 0 ? core::FormatBytesBinary(s.cpu_memory_bytes) : "-",
                  s.gpu_memory_bytes > 0 ? core::FormatBytesBinary(s.gpu_memory_bytes) : "-"});
  std::string link = FigureText(s.gpu_link, "bandwidth", t);
  if (s.gpu_link.known() && !s.link_name.empty()) link += t.Get("summary.list_separator") + s.link_name;
  rows.push_back({t.Get("summary.row.link"), "-", link});
  rows.push_back({t.Get("summary.row.fixed"), FigureText(s.cpu_fixed, "seconds", t), FigureText(s.gpu_fixed, "seconds", t)});
  rows.push_back({t.Get("summary.row.cross_triad"), t.Get("summary.cross.cpu_side"), CrossText(s.triad_crossover, false, s.triad_crossover_measured, t)});
  rows.push_back({t.Get("summary.row.cross_matmul"), t.Get("summary.cross.cpu_side"), CrossText(s.matmul_crossover, true, s.matmul_crossover_measured, t)});
  return rows;
}

namespace {

// " Its bf16 tensor cores: 22170x (spec).": what tensor cores add, apart from fp32 vs fp32.
std::string TensorText(const MachineSummary& s, const report::Texts& t) {
  if (!s.gpu_tensor.known() || !s.cpu_matmul.known()) return "";
  const char* between = t.language() == report::Language::kZh ? "" : " ";
  return between + Tr(t, "verdict.tensor", fmt::arg("mm", Ratio(s.gpu_tensor, s.cpu_matmul)),
                      fmt::arg("source", t.Get("summary.source." + s.gpu_tensor.source)));
}

std::string BusySentence(const MachineSummary& s, const report::Texts& t) {
  if (!s.cpu_busy) return "";
  const char* between = t.language() == report::Language::kZh ? "" : " ";
  return between + Tr(t, "verdict.busy", fmt::arg("load", fmt::format("{:.1f}", s.load_1min)), fmt::arg("cpus", s.logical_cpus));
}

}  // namespace

std::vector<std::string> Verdict(const MachineSummary& s, int problems, const report::Texts& t) {
  std::vector<std::string> lines;
  std::string cpu = s.cpu_name.empty() ? t.Get("common.unknown") : s.cpu_name;
  std::string bw = Ratio(s.gpu_bandwidth, s.cpu_bandwidth), mm = Ratio(s.gpu_matmul, s.cpu_matmul);
  auto triad_copies = [&]() {
    if (!s.triad_crossover) return std::string("-");
    return s.triad_crossover->transfer_size
               ? Tr(t, "verdict.above", fmt::arg("size", Size(*s.triad_crossover->transfer_size, t)))
               : t.Get("verdict.never");
  };
  std::string reason = s.gpu_absent_reason.empty() ? t.Get("common.unknown") : s.gpu_absent_reason;
  if (!s.gpu_absent_id.empty()) reason = Tr(t, GpuAbsenceReasonKey(s.gpu_absent_id), fmt::arg("detail", s.gpu_absent_reason));
  if (!s.cpu_bandwidth.known()) {
    // Nothing measured (--no-bench, or a report from state and doctor only): no ratios from guesses.
    lines.push_back(s.gpu_present ? Tr(t, "verdict.gpu.what_unmeasured", fmt::arg("cpu", cpu), fmt::arg("gpu", s.gpu_name))
                                  : Tr(t, "verdict.cpu.what_unmeasured", fmt::arg("cpu", cpu), fmt::arg("reason", reason)));
    lines.push_back(t.Get("verdict.unmeasured"));
    // "No problem" says what was looked at: without the live GPU state, doctor only.
    lines.push_back(problems > 0 ? Tr(t, "verdict.problems", fmt::arg("count", problems))
                                 : t.Get(s.live_state_read ? "verdict.clean" : "verdict.clean_doctor_only"));
    return lines;
  }
  if (s.gpu_present) {
    lines.push_back(Tr(t, "verdict.gpu.what", fmt::arg("cpu", cpu), fmt::arg("gpu", s.gpu_name), fmt::arg("bw", bw), fmt::arg("mm", mm),
                       fmt::arg("source", t.Get(s.gpu_measured ? "summary.source.measured" : "summary.source.spec")),
                       fmt::arg("cpu_source", t.Get("summary.source." + s.cpu_matmul.source))) +
                    TensorText(s, t) + BusySentence(s, t));
    std::string n = s.matmul_crossover && s.matmul_crossover->transfer_size
                        ? fmt::format("n={:.0f}", *s.matmul_crossover->transfer_size) : "-";
    lines.push_back(Tr(t, "verdict.gpu.good", fmt::arg("n", n)));
  } else {
    lines.push_back(Tr(t, "verdict.cpu.what", fmt::arg("cpu", cpu), fmt::arg("reason", reason),
                       fmt::arg("bw", FigureValue(s.cpu_bandwidth, "bandwidth")), fmt::arg("mm", FigureValue(s.cpu_matmul, "flops")),
                       fmt::arg("mm_source", t.Get("summary.source." + (s.cpu_matmul.known() ? s.cpu_matmul.source : std::string("model"))))));
    lines.push_back(Tr(t, "verdict.cpu.good", fmt::arg("gpu", s.gpu_name.empty() ? "GPU" : s.gpu_name), fmt::arg("bw", bw),
                       fmt::arg("mm", mm), fmt::arg("cpu_source", t.Get("summary.source." + (s.cpu_matmul.known() ? s.cpu_matmul.source : std::string("model"))))) +
                    TensorText(s, t) + BusySentence(s, t));
  }
  if (problems > 0) {
    lines.push_back(Tr(t, "verdict.problems", fmt::arg("count", problems)));
  } else {
    lines.push_back(Tr(t, "verdict.watch", fmt::arg("copies", triad_copies()),
                       fmt::arg("gpu_fixed", FigureValue(s.gpu_fixed, "seconds")),
                       fmt::arg("cpu_fixed", FigureValue(s.cpu_fixed, "seconds"))));
  }
  return lines;
}

namespace {

std::optional<std::string> CrossoverWhy(const std::optional<model::CrossoverCurve>& curve,
                                        const std::optional<model::CrossoverPoint>& at_crossover, bool matmul, bool measured,
                                        const report::Texts& t) {
  if (!curve || measured || curve->points.empty()) return std::nullopt;
  // The terms at the crossover size, or at the largest size when the GPU never wins with copies.
  const model::CrossoverPoint* at = curve->transfer_size ? (at_crossover ? &*at_crossover : nullptr) : &curve->points.back();
  if (at == nullptr) return std::nullopt;
  const auto seconds = [&](double v) { return report::FormatSecondsFor(t.language(), v); };
  const std::string size = matmul ? fmt::format("n={:.0f}", at->size) : Tr(t, "summary.cross.elements", fmt::arg("size", Size(at->size, t)));
  return Tr(t, curve->transfer_size ? "summary.why.at" : "summary.why.never", fmt::arg("what", t.Get(matmul ? "summary.why.matmul" : "summary.why.vector")),
            fmt::arg("size", size), fmt::arg("launch", seconds(at->gpu_launch_seconds)), fmt::arg("copy", seconds(at->gpu_copy_seconds)),
            fmt::arg("compute", seconds(at->gpu_compute_seconds)), fmt::arg("gpu", seconds(at->gpu_transfer_seconds)),
            fmt::arg("cpu", seconds(at->cpu_seconds)), fmt::arg("threads", t.Get(at->cpu_one_thread ? "summary.why.one_thread" : "summary.why.all_threads")));
}

}  // namespace

std::vector<std::string> CrossoverWhyLines(const MachineSummary& s, const report::Texts& t) {
  std::vector<std::string> lines;
  if (auto why = CrossoverWhy(s.triad_crossover, s.triad_at_crossover, false, s.triad_crossover_measured, t)) lines.push_back(*why);
  if (auto why = CrossoverWhy(s.matmul_crossover, s.matmul_at_crossover, true, s.matmul_crossover_measured, t)) lines.push_back(*why);
  return lines;
}

std::vector<std::string> LiveStateLines(const ReportSources& src, const report::Texts& t) {
  std::vector<std::string> lines;
  if (!src.inspect.is_object() || !src.inspect.contains("gpus") || !src.inspect["gpus"].is_array()) return lines;
  for (const auto& g : src.inspect["gpus"]) {
    std::vector<std::string> parts;
    if (auto v = Number(g, "utilization_gpu_percent")) parts.push_back(Tr(t, "live.busy", fmt::arg("value", fmt::format("{:.0f}", *v))));
    auto used = Number(g, "memory_used_bytes"), total = Number(g, "memory_total_bytes");
    if (used && total) {
      parts.push_back(Tr(t, "live.memory", fmt::arg("used", core::FormatBytesBinary(*used)), fmt::arg("total", core::FormatBytesBinary(*total))));
    }
    if (auto v = Number(g, "temperature_celsius")) parts.push_back(fmt::format("{:.0f} °C", *v));
    auto draw = Number(g, "power_draw_watts"), limit = Number(g, "power_limit_watts");
    if (draw && limit) {
      parts.push_back(Tr(t, "live.power", fmt::arg("draw", fmt::format("{:.0f}", *draw)), fmt::arg("limit", fmt::format("{:.0f}", *limit))));
    }
    if (auto v = Number(g, "sm_clock_mhz")) parts.push_back(Tr(t, "live.clock", fmt::arg("value", fmt::format("{:.0f}", *v))));
    std::string line = fmt::format("GPU {:.0f} {}", Number(g, "index").value_or(0), String(g, "name"));
    for (size_t i = 0; i < parts.size(); ++i) line += (i == 0 ? ": " : ", ") + parts[i];
    lines.push_back(line);
  }
  return lines;
}

std::vector<Problem> Problems(const ReportSources& src) {
  std::vector<Problem> out;
  if (src.inspect.is_object() && src.inspect.contains("findings") && src.inspect["findings"].is_array()) {
    for (const auto& f : src.inspect["findings"]) {
      std::string severity = String(f, "severity");
      if (severity == "info") continue;
      out.push_back({severity, String(f, "explanation").empty() ? String(f, "id") : String(f, "explanation"), String(f, "evidence"),
                     String(f, "next_step")});
    }
  }
  if (src.doctor.is_object() && src.doctor.contains("checks") && src.doctor["checks"].is_array()) {
    for (const auto& c : src.doctor["checks"]) {
      std::string status = String(c, "status");
      if (status != "fail" && status != "warn") continue;
      out.push_back({status, String(c, "title"), String(c, "evidence"), String(c, "fix")});
    }
  }
  return out;
}

}  // namespace gpuprobe::app
