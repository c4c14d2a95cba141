// `gpuprobe advise`: is a GPU worth it for this workload, and which one?
#include <algorithm>
#include <cmath>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench/bench_document.h"
#include "bench/pipeline.h"
#include "bench/registry.h"
#include "cli/command.h"
#include "core/json_input.h"
#include "summary/spec_data.h"
#include "core/file_io.h"
#include "core/units.h"
#include "model/advisor.h"
#include "model/cpu_spec.h"
#include "report/json_document.h"
#include "report/table.h"

namespace gpuprobe::cli {
namespace {

constexpr const char* kFooter = R"(Profiles (--size sets the problem size):
  vector        y = a*x + b over N fp32 elements (default 1e8)
  matmul        C = A*B, n x n fp32 (default 2048)
  image-filter  a k x k filter over N RGB pixels (default 3840x2160, --kernel 5)
  llm-decode    one token of a model with --size parameters in bf16 (default 7B)
Or describe the workload per call: --flops --bytes --transfer-bytes --parallel-fraction
--branchy low|high --calls-per-second.

The CPU side uses --cpu-results (a saved 'gpuprobe bench --json') when given, --cpu-flops and
--cpu-bandwidth when given, and otherwise this machine's theoretical figures.

Examples:
  gpuprobe advise --profile vector --size 1e8
  gpuprobe advise --profile matmul --size 2048
  gpuprobe advise --profile llm-decode --size 7B --json
  gpuprobe advise --flops 2e5 --bytes 1e5 --transfer-bytes 2e4 --parallel-fraction 0.3 --branchy high --calls-per-second 2000
  gpuprobe bench --json > cpu.json && gpuprobe advise --profile vector --cpu-results cpu.json)";

struct AdviseOptions {
  std::string profile, size, branchy = "low", cpu_results, dtype;
  double flops = -1, bytes = -1, transfer_bytes = -1, parallel_fraction = -1, calls_per_second = 0;
  int kernel = 5;
  double cpu_flops = 0, cpu_bandwidth = 0;
  int top = 5;
};

core::Result<model::Workload> BuildWorkload(const AdviseOptions& o) {
  model::Workload w;
  bool explicit_work = o.flops >= 0 || o.bytes >= 0;
  if (o.profile.empty() && !explicit_work) {
    return core::Status::InvalidArgument("describe the workload: --profile vector|matmul|image-filter|llm-decode, or --flops and --bytes",
                                         "gpuprobe advise --profile matmul --size 2048");
  }
  double size = 0;
  if (!o.size.empty()) {
    auto parsed = core::ParseCount(o.size);
    if (!parsed.ok()) return parsed.status().WithContext("--size");
    size = *parsed;
  }
  if (o.profile == "vector") {
    double n = size > 0 ? size : 1e8;
    if (n > 1e13) return core::Status::InvalidArgument("--size is absurd for a vector (limit 1e13 elements)");
    w.name = fmt::format("vector y = a*x + b, {:.3g} fp32 elements", n);
    w.flops = 2 * n;
    w.bytes = 8 * n;           // read x, write y
    w.transfer_bytes = 8 * n;  // x to the GPU, y back
  } else if (o.profile == "matmul") {
    double n = size > 0 ? size : 2048;
    if (n > 1e6) return core::Status::InvalidArgument("--size is absurd for a matrix (limit 1e6)");
    w.name = fmt::format("matmul {:.0f} x {:.0f}, fp32", n, n);
    w.flops = 2 * n * n * n;
    w.bytes = 3 * 4 * n * n;   // ideal reuse: read A and B once, write C once
    w.transfer_bytes = 3 * 4 * n * n;
    w.flops_growth = 3;
    w.bytes_growth = 2;
  } else if (o.profile == "image-filter") {
    double pixels = size > 0 ? size : 3840.0 * 2160.0;
    if (pixels > 1e12) return core::Status::InvalidArgument("--size is absurd for an image (limit 1e12 pixels)");
    if (o.kernel < 1 || o.kernel > 101) return core::Status::InvalidArgument("--kernel must be between 1 and 101");
    double k2 = static_cast<double>(o.kernel) * o.kernel;
    w.name = fmt::format("{}x{} filter over {:.3g} RGB pixels (8-bit)", o.kernel, o.kernel, pixels);
    w.flops = 2 * k2 * pixels * 3;
    w.bytes = 2 * 3 * pixels;
    w.transfer_bytes = 2 * 3 * pixels;
  } else if (o.profile == "llm-decode") {
    double params = size > 0 ? size : 7e9;
    if (params > 1e15) return core::Status::InvalidArgument("--size is absurd for a model (limit 1e15 parameters)");
    w.name = fmt::format("decode one token of a {} model in bf16 (weights stay on the GPU)", core::FormatCount(params));
    w.dtype = "bf16";
    w.flops = 2 * params;
    w.bytes = 2 * params;  // every weight read once per token
    w.transfer_bytes = 1e3;  // token ids and logits sampling: tiny
  } else if (!o.profile.empty()) {
    return core::Status::InvalidArgument("unknown profile '" + o.profile + "' (use vector, matmul, image-filter or llm-decode)");
  } else {
    w.name = "described by flags";
    w.flops = std::max(0.0, o.flops);
    w.bytes = std::max(0.0, o.bytes);
    w.transfer_bytes = std::max(0.0, o.transfer_bytes);
  }
  if (!o.profile.empty() && explicit_work) {
    if (o.flops >= 0) w.flops = o.flops;
    if (o.bytes >= 0) w.bytes = o.bytes;
  }
  if (o.transfer_bytes >= 0) w.transfer_bytes = o.transfer_bytes;
  if (o.parallel_fraction >= 0) w.parallel_fraction = o.parallel_fraction;
  if (o.branchy != "low" && o.branchy != "high") return core::Status::InvalidArgument("--branchy must be low or high");
  w.branchy = o.branchy == "high";
  w.calls_per_second = o.calls_per_second;
  if (!o.dtype.empty()) {
    if (o.dtype != "fp64" && o.dtype != "fp32" && o.dtype != "bf16" && o.dtype != "fp16") {
      return core::Status::InvalidArgument("--dtype must be fp64, fp32, bf16 or fp16");
    }
    w.dtype = o.dtype;
  }
  GPUPROBE_RETURN_IF_ERROR(model::ValidateWorkload(w));
  return w;
}

// The best verified CPU value among the results whose id starts with `prefix` (optionally
// of one case).
double BestResult(const bench::BenchDocument& doc, const std::string& prefix, const std::string& case_label) {
  double best = 0;
  for (const auto& r : doc.results) {
    if (r.backend != "cpu" || !r.ok() || !r.verified || r.id.rfind(prefix, 0) != 0) continue;
    if (!case_label.empty() && r.case_label != case_label) continue;
    best = std::max(best, r.value);
  }
  return best;
}

// The CPU's streaming bandwidth and FMA rate on all cores, measured now with short cases.
core::Result<model::CpuCapability> MeasureCpuNow(const std::string& fma_id) {
  bench::BenchmarkRegistry registry;
  bench::RegisterCpuBenchmarks(&registry);
  bench::PipelineRequest request;
  request.patterns = {"memory.triad", fma_id};
  request.backend = "cpu";
  request.clock_probe_seconds = 0.1;
  request.settings.runner.max_seconds = 0.15;
  request.settings.runner.min_seconds = 0.05;
  std::unique_ptr<bench::BenchHost> host = bench::MachineHost();
  auto doc = bench::RunPipeline(registry, *host, request);
  if (!doc.ok()) return doc.status();
  model::CpuCapability cpu;
  cpu.bandwidth = BestResult(*doc, "memory.triad", "all threads");
  cpu.flops = BestResult(*doc, fma_id, "all cores");
  cpu.basis = fmt::format("measured now: triad {}, FMA {} (all cores)", core::FormatBytesPerSecond(cpu.bandwidth),
                          core::FormatFlops(cpu.flops));
  return cpu;
}

core::Result<model::CpuCapability> CpuFigures(const AdviseOptions& o, const model::Workload& w) {
  model::CpuCapability cpu;
  if (!o.cpu_results.empty()) {
    auto text = core::ReadTextFile(o.cpu_results, 64 << 20);
    if (!text.ok()) return text.status();
    auto json = core::ParseJsonInput(*text, o.cpu_results);
    if (!json.ok()) return json.status();
    auto doc = bench::BenchDocumentFromJson(*json, o.cpu_results);
    if (!doc.ok()) return doc.status();
    cpu.bandwidth = BestResult(*doc, "memory.triad", "all threads");
    bool gemm_like = w.flops_growth > w.bytes_growth;
    cpu.flops = gemm_like ? BestResult(*doc, "matmul.", "") : 0;
    if (cpu.flops <= 0) cpu.flops = BestResult(*doc, w.dtype == "fp64" ? "compute.fma_fp64" : "compute.fma_fp32", "all cores");
    if (cpu.bandwidth <= 0 || cpu.flops <= 0) {
      return core::Status::InvalidArgument(fmt::format(
          "{}: needs verified memory.triad (all threads) and compute.fma_fp32 (all cores) results", o.cpu_results),
          "run 'gpuprobe bench memory compute matmul --json > FILE'");
    }
    cpu.basis = fmt::format("measured in {}: triad {}, {} {}", o.cpu_results, core::FormatBytesPerSecond(cpu.bandwidth),
                            gemm_like ? "best matmul" : "FMA peak", core::FormatFlops(cpu.flops));
  } else if (o.cpu_flops <= 0 || o.cpu_bandwidth <= 0) {
    // No saved run: measure the two figures now (about a second, through the one bench
    // pipeline), rather than predict the CPU from a DRAM speed that often cannot be read.
    auto measured = MeasureCpuNow(w.dtype == "fp64" ? "compute.fma_fp64" : "compute.fma_fp32");
    if (!measured.ok()) return measured.status();
    cpu = *measured;
  }
  if (o.cpu_flops > 0) cpu.flops = o.cpu_flops;
  if (o.cpu_bandwidth > 0) cpu.bandwidth = o.cpu_bandwidth;
  if (o.cpu_flops > 0 || o.cpu_bandwidth > 0) {
    cpu.basis = fmt::format("given: {} and {}", core::FormatFlops(cpu.flops), core::FormatBytesPerSecond(cpu.bandwidth));
  }
  if (cpu.flops <= 0 || cpu.bandwidth <= 0) {
    return core::Status::Unavailable("the CPU's figures could not be determined", "give --cpu-flops and --cpu-bandwidth");
  }
  return cpu;
}

core::Result<core::ExitCode> RunAdvise(VerbContext& ctx, const AdviseOptions& o) {
  if (o.top < 1 || o.top > 100) return core::Status::InvalidArgument("--top must be between 1 and 100");
  if (o.cpu_flops < 0 || o.cpu_bandwidth < 0 || !std::isfinite(o.cpu_flops) || !std::isfinite(o.cpu_bandwidth)) {
    return core::Status::InvalidArgument("--cpu-flops and --cpu-bandwidth must be positive");
  }
  auto workload = BuildWorkload(o);
  if (!workload.ok()) return workload.status();
  auto cpu = CpuFigures(o, *workload);
  if (!cpu.ok()) return cpu.status();
  auto db = summary::EmbeddedSpecDatabase();
  if (!db.ok()) return db.status();
  auto advice = model::Advise(*workload, *cpu, (*db)->gpus());
  if (!advice.ok()) return advice.status();
  const auto& t = ctx.texts;
  const auto& a = *advice;

  if (ctx.options.json) {
    auto doc = report::MakeDocument("advise");
    const auto& w = *workload;
    doc["workload"] = {{"name", w.name}, {"dtype", w.dtype}, {"flops", w.flops}, {"bytes", w.bytes},
                       {"transfer_bytes", w.transfer_bytes}, {"parallel_fraction", w.parallel_fraction},
                       {"branchy", w.branchy}, {"calls_per_second", w.calls_per_second},
                       {"arithmetic_intensity_flops_per_byte", w.bytes > 0 ? nlohmann::json(w.flops / w.bytes) : nlohmann::json(nullptr)}};
    doc["cpu"] = {{"flops", cpu->flops}, {"bandwidth_bytes_per_s", cpu->bandwidth}, {"basis", cpu->basis},
                  {"seconds", a.cpu_seconds}, {"bandwidth_bound", a.cpu_bandwidth_bound}};
    doc["amdahl_cap"] = a.amdahl_cap;
    doc["gpus"] = nlohmann::json::array();
    for (const auto& e : a.gpus) {
      doc["gpus"].push_back({{"gpu", e.gpu->name}, {"compute_seconds", e.compute_seconds}, {"transfer_seconds", e.transfer_seconds},
                             {"launch_seconds", e.launch_seconds}, {"total_seconds", e.total_seconds},
                             {"resident_seconds", e.resident_seconds}, {"speedup", e.speedup},
                             {"resident_speedup", e.resident_speedup}, {"bandwidth_bound", e.bandwidth_bound}, {"link", e.link}});
    }
    doc["criteria"] = nlohmann::json::array();
    for (const auto& c : a.criteria) doc["criteria"].push_back({{"id", c.id}, {"score", c.score}, {"reason", c.reason}});
    doc["verdict"] = {{"id", model::VerdictName(a.verdict)}, {"gpu", a.pick ? nlohmann::json(a.pick->name) : nlohmann::json(nullptr)},
                      {"reason", a.reason}};
    ctx.out << report::RenderJson(doc);
    return core::ExitCode::kOk;
  }

  std::string out;
  out += Tr(t, "advise.workload", fmt::arg("name", workload->name)) + "\n";
  out += "  " + Tr(t, "advise.work", fmt::arg("flops", core::FormatCount(workload->flops)),
                   fmt::arg("bytes", core::FormatBytesDecimal(workload->bytes)),
                   fmt::arg("transfer", core::FormatBytesDecimal(workload->transfer_bytes))) + "\n";
  out += "  " + Tr(t, "advise.cpu", fmt::arg("time", core::FormatSeconds(a.cpu_seconds)),
                   fmt::arg("bound", a.cpu_bandwidth_bound ? t.Get("advise.bound.bandwidth") : t.Get("advise.bound.compute")),
                   fmt::arg("basis", cpu->basis)) + "\n\n";
  report::TextTable table({t.Get("advise.col.gpu"), t.Get("advise.col.compute"), t.Get("advise.col.transfer"),
                           t.Get("advise.col.launch"), t.Get("advise.col.total"), t.Get("advise.col.resident"),
                           t.Get("advise.col.vs_cpu")});
  for (size_t c = 1; c <= 6; ++c) table.SetAlign(c, report::Align::kRight);
  int shown = 0;
  for (const auto& e : a.gpus) {
    if (shown++ >= o.top) break;
    table.AddRow({e.gpu->name, core::FormatSeconds(e.compute_seconds), core::FormatSeconds(e.transfer_seconds),
                  core::FormatSeconds(e.launch_seconds), core::FormatSeconds(e.total_seconds),
                  core::FormatSeconds(e.resident_seconds), fmt::format("x{:.2f} / x{:.2f}", e.speedup, e.resident_speedup)});
  }
  out += table.Render(2);
  out += "  " + t.Get("advise.table_note") + "\n";
  if (workload->parallel_fraction < 1) {
    out += "  " + Tr(t, "advise.amdahl", fmt::arg("cap", fmt::format("{:.1f}", a.amdahl_cap)),
                     fmt::arg("p", fmt::format("{:.0f}", workload->parallel_fraction * 100))) + "\n";
  }
  out += "\n" + t.Get("advise.criteria") + "\n";
  for (const auto& c : a.criteria) {
    out += fmt::format("  {:+d}  {}: {}\n", c.score, t.Get("advise.criterion." + c.id), c.reason);
  }
  out += "\n" + Tr(t, "advise.verdict." + model::VerdictName(a.verdict), fmt::arg("gpu", a.pick ? a.pick->name : "")) + "\n";
  out += "  " + a.reason + "\n";
  ctx.out << out;
  return core::ExitCode::kOk;
}

}  // namespace

VerbRunner SetupAdviseVerb(CLI::App* command) {
  auto o = std::make_shared<AdviseOptions>();
  command->footer(kFooter);
  command->add_option("--profile", o->profile, "vector | matmul | image-filter | llm-decode");
  command->add_option("--size", o->size, "problem size of the profile: elements, matrix order, pixels or parameters (7B)");
  command->add_option("--kernel", o->kernel, "filter width for image-filter (default 5)");
  command->add_option("--flops", o->flops, "floating-point operations per call");
  command->add_option("--bytes", o->bytes, "bytes read and written in memory per call");
  command->add_option("--transfer-bytes", o->transfer_bytes, "bytes crossing to and from the GPU per call when data does not stay there");
  command->add_option("--parallel-fraction", o->parallel_fraction, "the part that can run in parallel, 0..1 (default 1)");
  command->add_option("--branchy", o->branchy, "data-dependent branching: low (default) or high");
  command->add_option("--calls-per-second", o->calls_per_second, "requests per second for a service (default: one batch job)");
  command->add_option("--dtype", o->dtype, "arithmetic type: fp64, fp32, bf16, fp16");
  command->add_option("--cpu-results", o->cpu_results, "a saved 'gpuprobe bench --json' to use measured CPU figures");
  command->add_option("--cpu-flops", o->cpu_flops, "the CPU's FLOP/s (overrides)");
  command->add_option("--cpu-bandwidth", o->cpu_bandwidth, "the CPU's memory bandwidth in bytes/s (overrides)");
  command->add_option("--top", o->top, "GPUs to show (default 5)");
  return [o](VerbContext& ctx) { return RunAdvise(ctx, *o); };
}

}  // namespace gpuprobe::cli
