#include "cli/bench_view.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "bench/normal_ranges.h"
#include "cli/command.h"
#include "core/units.h"
#include "report/case_label.h"
#include "report/json_document.h"
#include "report/status_text.h"
#include "report/table.h"

namespace gpuprobe::cli {
namespace {

using bench::BenchResult;
using bench::Metric;
using nlohmann::json;

const BenchResult* FindCase(const std::vector<BenchResult>& all, const std::string& id, const std::string& backend,
                            const std::string& label) {
  for (const auto& r : all) {
    if (r.id == id && r.backend == backend && (label.empty() || r.case_label == label) && r.ok()) return &r;
  }
  return nullptr;
}

std::string Percent(std::optional<double> fraction) {
  return fraction ? fmt::format("{:.0f}%", *fraction * 100) : "-";
}

// An English sentence, or its text when the run recorded a key (live runs do; saved files not).
std::string Sentence(const std::string& english, const core::TextRef& text, const report::Texts& t) {
  return text.empty() ? english : report::FormatWithArgs(t, text.key, text.args);
}

}  // namespace

std::string FormatMetricValue(Metric metric, double value) {
  switch (metric) {
    case Metric::kBandwidth: return core::FormatBytesPerSecond(value);
    case Metric::kFlops: return core::FormatFlops(value);
    case Metric::kOps: {
      std::string s = core::FormatFlops(value);
      return s.substr(0, s.size() - std::string("FLOP/s").size()) + "op/s";
    }
    case Metric::kLatency: return core::FormatSeconds(value);
  }
  return "?";
}

std::string Takeaway(const BenchResult& r, const std::vector<BenchResult>& all, const report::Texts& t, double clock_hz) {
  if (r.skipped) return Tr(t, "bench.skipped", fmt::arg("reason", Sentence(r.skip_reason, r.skip_reason_text, t)));
  if (!r.error.empty()) return Tr(t, "bench.failed", fmt::arg("error", r.error));
  if (!r.verified) return Tr(t, "bench.wrong", fmt::arg("detail", r.verification_detail));
  std::string key = "takeaway." + r.id;
  // A GPU row of an id shared with the CPU has its own text where the CPU's would mislead.
  if (r.backend != "cpu" && t.Has(key + "." + r.backend)) key += "." + r.backend;
  // Extra facts some takeaways quote: speed-up over the naive rung, over one thread, etc.
  double ratio = 0;
  if (r.group == "matmul") {
    const BenchResult* naive = FindCase(all, r.backend == "cuda" ? "matmul.gpu_naive" : "matmul.naive", r.backend, "");
    if (naive && naive->value > 0) ratio = r.value / naive->value;
  } else if (r.id == "parallel.amdahl") {
    const BenchResult* one = FindCase(all, "parallel.amdahl", r.backend, "1 thread");
    if (one && one->value > 0) ratio = r.value / one->value;
  } else if (r.id == "branch.unpredictable") {
    const BenchResult* easy = FindCase(all, "branch.predictable", r.backend, "");
    if (easy && r.value > 0) ratio = easy->value / r.value;
  } else if (r.id == "divergence.serial_thread" && r.backend == "cuda") {
    const BenchResult* cpu = FindCase(all, r.id, "cpu", "");
    if (cpu && r.value > 0) ratio = cpu->value / r.value;
  } else if (r.id == "access.strided" || r.id == "access.random" || r.id == "access.misaligned") {
    const BenchResult* seq = FindCase(all, "access.sequential", r.backend, "");
    if (seq && r.value > 0) ratio = seq->value / r.value;
  } else if (r.id.rfind("memory.", 0) == 0 && r.case_label == "all threads") {
    const BenchResult* one = FindCase(all, r.id, r.backend, "1 thread");
    if (one && one->value > 0) ratio = r.value / one->value;
  } else if (r.id == "latency.chase") {
    ratio = r.value * (r.clock_hz > 0 ? r.clock_hz : clock_hz);
  }
  // Sweeps: the first against the last case, in one line.
  if (r.id == "memory.sweep" || r.id == "latency.chase") {
    const BenchResult* first = nullptr;
    const BenchResult* last = nullptr;
    for (const auto& x : all) {
      if (x.id != r.id || x.backend != r.backend || !x.ok()) continue;
      if (!first) first = &x;
      last = &x;
    }
    if (first && last && first != last && first->value > 0 && last->value > 0) {
      double span = r.metric == Metric::kLatency ? last->value / first->value : first->value / last->value;
      return Tr(t, key + ".summary", fmt::arg("small", report::CaseLabelText(first->case_label, t)),
                fmt::arg("large", report::CaseLabelText(last->case_label, t)),
                fmt::arg("small_value", FormatMetricValue(r.metric, first->value)),
                fmt::arg("large_value", FormatMetricValue(r.metric, last->value)), fmt::arg("ratio", fmt::format("{:.0f}", span)));
    }
  }
  // A text that quotes a comparison this run does not have (no model figure, the naive rung
  // not run) would print "-" or "0.0x": say the figure plainly instead.
  const std::string text = t.Get(key);
  if ((text.find("{ratio}") != std::string::npos && ratio <= 0) ||
      (text.find("{efficiency}") != std::string::npos && !r.efficiency)) {
    return Tr(t, "bench.takeaway.plain", fmt::arg("title", t.Has("bench.title." + r.id) ? t.Get("bench.title." + r.id) : r.id),
              fmt::arg("value", FormatMetricValue(r.metric, r.value)), fmt::arg("case", report::CaseLabelText(r.case_label, t)));
  }
  return Tr(t, key, fmt::arg("value", FormatMetricValue(r.metric, r.value)),
            fmt::arg("predicted", r.predicted ? FormatMetricValue(r.metric, *r.predicted) : "-"),
            fmt::arg("efficiency", Percent(r.efficiency)), fmt::arg("ratio", fmt::format("{:.1f}", ratio)),
            fmt::arg("case", report::CaseLabelText(r.case_label, t)));
}

json BenchToJson(const bench::BenchDocument& document, const report::Texts& t) {
  return bench::BenchDocumentToJson(document, [&](const BenchResult& r) {
    return Takeaway(r, document.results, t, document.cpu.measured_clock_hz);
  });
}

std::string BenchToCsv(const bench::BenchDocument& report) {
  std::string out = "id,backend,case,size,threads,metric,value,unit,predicted,efficiency,verified,median_s,best_s,p10_s,p90_s,noisy\n";
  for (const auto& r : report.results) {
    if (!r.ok()) continue;
    out += fmt::format("{},{},\"{}\",{},{},{},{:.6g},{},{},{},{},{:.6g},{:.6g},{:.6g},{:.6g},{}\n", r.id, r.backend,
                       r.case_label, r.size, r.threads, bench::MetricName(r.metric), r.value, bench::MetricUnit(r.metric),
                       r.predicted ? fmt::format("{:.6g}", *r.predicted) : "", r.efficiency ? fmt::format("{:.4f}", *r.efficiency) : "",
                       r.verified ? "true" : "false", r.stats.median, r.stats.best, r.stats.p10, r.stats.p90,
                       r.stats.noisy ? "true" : "false");
  }
  return out;
}

std::string RenderCpuFacts(const model::CpuSpec& cpu, const report::Texts& t) {
  model::VectorPipes pipes = model::FmaPipes(cpu);
  report::TextTable table;
  table.AddRow({t.Get("bench.cpu.model"), cpu.model_name.empty() ? t.Get("common.unknown") : cpu.model_name});
  table.AddRow({t.Get("bench.cpu.cores"), Tr(t, "bench.cpu.cores_value", fmt::arg("cores", cpu.physical_cores),
                                             fmt::arg("threads", cpu.logical_cpus), fmt::arg("sockets", cpu.sockets),
                                             fmt::arg("numa", cpu.numa_nodes))});
  table.AddRow({t.Get("bench.cpu.caches"),
                Tr(t, "bench.cpu.caches_value", fmt::arg("l1", core::FormatBytesBinary(static_cast<double>(cpu.l1d_bytes))),
                   fmt::arg("l2", core::FormatBytesBinary(static_cast<double>(cpu.l2_bytes))),
                   fmt::arg("l3", core::FormatBytesBinary(static_cast<double>(cpu.l3_bytes))),
                   fmt::arg("l3_total", core::FormatBytesBinary(static_cast<double>(cpu.l3_total_bytes))))});
  table.AddRow({t.Get("bench.cpu.simd"), Tr(t, "bench.cpu.simd_value", fmt::arg("isa", pipes.isa), fmt::arg("pipes", pipes.fma_pipes),
                                            fmt::arg("width", pipes.width_bits),
                                            fmt::arg("rule", pipes.rule.empty() ? pipes.basis : t.Get("bench.fma_rule." + pipes.rule)))});
  table.AddRow({t.Get("bench.cpu.clock"),
                Tr(t, "bench.cpu.clock_value",
                   fmt::arg("max", cpu.max_clock_hz > 0 ? fmt::format("{:.0f} MHz", cpu.max_clock_hz / 1e6) : t.Get("common.unknown")),
                   fmt::arg("load", cpu.measured_clock_hz > 0 ? fmt::format("{:.0f} MHz", cpu.measured_clock_hz / 1e6) : t.Get("common.unknown")))});
  for (const char* dtype : {"fp64", "fp32"}) {
    model::CpuPeak peak = model::CpuPeakOf(cpu, dtype, cpu.physical_cores);
    std::string value = !peak.flops ? t.Get("common.unknown")
                                    : Tr(t, "bench.cpu.peak_value", fmt::arg("value", core::FormatFlops(*peak.flops)),
                                         fmt::arg("cores", peak.cores), fmt::arg("pipes", peak.pipes.fma_pipes),
                                         fmt::arg("lanes", fmt::format("{:g}", peak.lanes)),
                                         fmt::arg("mhz", fmt::format("{:.0f}", peak.clock_hz / 1e6)),
                                         fmt::arg("clock_basis", t.Get(peak.clock_measured ? "bench.cpu.clock_basis.measured"
                                                                                           : "bench.cpu.clock_basis.spec")));
    table.AddRow({Tr(t, "bench.cpu.peak", fmt::arg("dtype", dtype)), value});
  }
  std::string dram_basis = Sentence(cpu.dram_basis, cpu.dram_basis_text, t);
  table.AddRow({t.Get("bench.cpu.dram"), cpu.dram_bandwidth_bytes_per_s
                                             ? Tr(t, "bench.cpu.dram_value", fmt::arg("bandwidth", core::FormatBytesPerSecond(*cpu.dram_bandwidth_bytes_per_s)),
                                                  fmt::arg("basis", dram_basis))
                                             : dram_basis});
  return table.Render(2);
}

std::string RenderBench(const bench::BenchDocument& report, const report::Texts& t) {
  std::string out = t.Get("bench.title") + "\n\n" + t.Get("bench.cpu") + "\n" + RenderCpuFacts(report.cpu, t);
  for (const auto& line : report.gpus) out += "  " + line + "\n";
  if (!report.gpu_absent_reason.empty()) out += "  " + Tr(t, "bench.no_gpu", fmt::arg("reason", report.gpu_absent_reason)) + "\n";
  out += "\n";
  // Group by claim, in the order results came.
  std::vector<std::string> claims;
  for (const auto& r : report.results) {
    if (std::find(claims.begin(), claims.end(), r.claim) == claims.end()) claims.push_back(r.claim);
  }
  for (const auto& claim : claims) {
    // The heading in the reader's language: the claim text of the group's first benchmark.
    std::string heading = claim;
    for (const auto& r : report.results) {
      if (r.claim == claim && t.Has("bench.claim." + r.id)) {
        heading = t.Get("bench.claim." + r.id);
        break;
      }
    }
    out += "== " + heading + "\n";
    report::TextTable table({t.Get("bench.col.benchmark"), t.Get("bench.col.case"), t.Get("bench.col.backend"),
                             t.Get("bench.col.measured"), t.Get("bench.col.predicted"), t.Get("bench.col.efficiency"),
                             t.Get("bench.col.check")});
    table.SetAlign(3, report::Align::kRight);
    table.SetAlign(4, report::Align::kRight);
    table.SetAlign(5, report::Align::kRight);
    std::vector<std::string> takeaways;
    std::vector<std::string> flagged;
    std::vector<std::string> ids_done;
    std::vector<const bench::NormalRange*> ranges_shown;
    std::vector<std::string> low_reasons, normal_lines;
    for (const auto& r : report.results) {
      if (r.claim != claim) continue;
      std::string check = r.skipped ? t.Get("bench.check.skipped") : !r.error.empty() ? t.Get("bench.check.error")
                          : r.verified ? t.Get("bench.check.ok") : t.Get("bench.check.wrong");
      if (r.ok() && r.stats.noisy) check += " " + t.Get("bench.check.noisy");
      if (r.ok() && r.throttled) check += " " + t.Get("bench.check.throttled");
      std::string efficiency = Percent(r.efficiency);
      // Beside the efficiency, what real systems reach (bench/normal_ranges.h).
      const bench::NormalRange* range = bench::FindNormalRange(r);
      const bench::EfficiencyVerdict verdict = bench::JudgeEfficiency(r, range);
      if (verdict == bench::EfficiencyVerdict::kNormal || verdict == bench::EfficiencyVerdict::kLow) {
        efficiency += " " + t.Get(std::string("bench.normal.verdict.") + bench::EfficiencyVerdictName(verdict));
        if (std::find(ranges_shown.begin(), ranges_shown.end(), range) == ranges_shown.end()) {
          ranges_shown.push_back(range);
          std::string line = Tr(t, "bench.normal.range", fmt::arg("ids", r.id), fmt::arg("low", fmt::format("{:.0f}%", range->low * 100)),
                                fmt::arg("high", fmt::format("{:.0f}%", range->high * 100)));
          normal_lines.push_back(line);
        }
        if (verdict == bench::EfficiencyVerdict::kLow &&
            std::find(low_reasons.begin(), low_reasons.end(), range->low_reason) == low_reasons.end()) {
          low_reasons.push_back(range->low_reason);
          normal_lines.push_back(t.Get("bench.normal.low_reason." + range->low_reason));
        }
      }
      bench::EfficiencyFlag flag = bench::FlagEfficiency(r);
      if (flag != bench::EfficiencyFlag::kNone) {
        efficiency += " (" + t.Get(std::string("bench.flag.") + bench::EfficiencyFlagName(flag)) + ")";
        flagged.push_back(Tr(t, std::string("bench.flag.line.") + bench::EfficiencyFlagName(flag), fmt::arg("id", r.id),
                             fmt::arg("case", report::CaseLabelText(r.case_label, t)),
                             fmt::arg("efficiency", efficiency.substr(0, efficiency.find(' '))),
                             fmt::arg("basis", Sentence(r.prediction_basis, r.prediction_basis_text, t))));
      }
      table.AddRow({r.id, report::CaseLabelText(r.case_label, t), r.backend, r.ok() ? FormatMetricValue(r.metric, r.value) : "-",
                    r.predicted ? FormatMetricValue(r.metric, *r.predicted) : "-", efficiency, check});
    }
    // One takeaway per benchmark: its first case, or its last for the thread-scaling one.
    for (const auto& r : report.results) {
      if (r.claim != claim || std::find(ids_done.begin(), ids_done.end(), r.id) != ids_done.end()) continue;
      const BenchResult* pick = &r;
      if (r.id == "parallel.amdahl") {
        for (const auto& x : report.results) {
          if (x.id == r.id && x.backend == r.backend) pick = &x;
        }
      }
      ids_done.push_back(r.id);
      takeaways.push_back(Takeaway(*pick, report.results, t, report.cpu.measured_clock_hz));
    }
    out += table.Render(2);
    for (const auto& takeaway : takeaways) out += "  -> " + takeaway + "\n";
    for (const auto& line : normal_lines) out += "  .. " + line + "\n";
    for (const auto& line : flagged) out += "  !! " + line + "\n";
    out += "\n";
  }
  int verified = 0, total = 0, skipped = 0;
  for (const auto& r : report.results) {
    if (r.skipped) { ++skipped; continue; }
    ++total;
    if (r.ok() && r.verified) ++verified;
  }
  out += Tr(t, "bench.summary", fmt::arg("verified", verified), fmt::arg("total", total), fmt::arg("skipped", skipped),
            fmt::arg("seconds", fmt::format("{:.1f}", report.wall_seconds))) + "\n";
  out += t.Get("bench.legend") + "\n";
  return out;
}

}  // namespace gpuprobe::cli
