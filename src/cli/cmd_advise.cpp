// `gpuprobe advise`: is a GPU worth it for this workload, and which one?
#include "cli/cmd_advise.h"

#include <algorithm>
#include <cmath>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench/bench_document.h"
#include "bench/pipeline.h"
#include "bench/registry.h"
#include "app/advise_candidates.h"
#include "app/matmul_comparison.h"
#include "cli/advise_view.h"
#include "cli/command.h"
#include "cli/gpu_choice_note.h"
#include "cli/price_json.h"
#include "core/file_io.h"
#include "core/json_input.h"
#include "core/units.h"
#include "knowledge/embedded_knowledge.h"
#include "model/advisor.h"
#include "model/cpu_spec.h"
#include "model/quantity.h"
#include "report/json_document.h"

namespace gpuprobe::cli {
namespace {


struct AdviseOptions {
  std::string profile, size, branchy = "low", cpu_results, dtype;
  std::optional<double> flops, bytes, transfer_bytes, parallel_fraction;
  double calls_per_second = 0;
  int kernel = 5;
  double cpu_flops = 0, cpu_bandwidth = 0;
  int top = 5;
  std::vector<std::string> prices;
  std::vector<std::string> gpus;  ///< --gpu: compare these GPUs only
};

core::Result<model::Workload> BuildWorkload(const AdviseOptions& o) {
  using model::Quantity;
  model::Workload w;
  // Negative values are refused by the same validators as every other verb's (model/quantity.h).
  if (o.flops) GPUPROBE_RETURN_IF_ERROR(model::CheckQuantity(Quantity::kFlops, *o.flops, "--flops"));
  if (o.bytes) GPUPROBE_RETURN_IF_ERROR(model::CheckQuantity(Quantity::kBytes, *o.bytes, "--bytes"));
  if (o.transfer_bytes) GPUPROBE_RETURN_IF_ERROR(model::CheckQuantity(Quantity::kBytes, *o.transfer_bytes, "--transfer-bytes"));
  if (o.parallel_fraction) {
    GPUPROBE_RETURN_IF_ERROR(model::CheckQuantity(Quantity::kFraction, *o.parallel_fraction, "--parallel-fraction"));
  }
  GPUPROBE_RETURN_IF_ERROR(model::CheckQuantity(Quantity::kCallsPerSecond, o.calls_per_second, "--calls-per-second"));
  bool explicit_work = o.flops || o.bytes;
  if (o.profile.empty() && !explicit_work) {
    return core::Status::InvalidArgument("describe the workload: --profile vector|matmul|image-filter|llm-decode, or --flops and --bytes",
                                         "gpuprobe advise --profile matmul --size 2048")
                                             .WithKeys("error.advise.workload", {}, "error.advise.workload.hint");
  }
  double size = 0;
  if (!o.size.empty()) {
    auto parsed = core::ParseCount(o.size);
    if (!parsed.ok()) return parsed.status().WithContext("--size");
    size = *parsed;
  }
  if (o.profile == "vector") {
    double n = size > 0 ? size : 1e8;
    GPUPROBE_RETURN_IF_ERROR(model::CheckQuantity(Quantity::kElements, n, "--size"));
    w.name = model::Say("advise.workload.vector").Num("n", n);
    w.flops = 2 * n;
    w.bytes = 8 * n;           // read x, write y
    w.transfer_bytes = 8 * n;  // x to the GPU, y back
  } else if (o.profile == "matmul") {
    double n = size > 0 ? size : 2048;
    GPUPROBE_RETURN_IF_ERROR(model::CheckQuantity(Quantity::kMatrixOrder, n, "--size"));
    w.name = model::Say("advise.workload.matmul").Int("n", n);
    w.flops = 2 * n * n * n;
    w.bytes = 3 * 4 * n * n;   // ideal reuse: read A and B once, write C once
    w.transfer_bytes = 3 * 4 * n * n;
    w.flops_growth = 3;
    w.bytes_growth = 2;
  } else if (o.profile == "image-filter") {
    double pixels = size > 0 ? size : 3840.0 * 2160.0;
    GPUPROBE_RETURN_IF_ERROR(model::CheckQuantity(Quantity::kPixels, pixels, "--size"));
    GPUPROBE_RETURN_IF_ERROR(model::CheckQuantity(Quantity::kFilterWidth, o.kernel, "--kernel"));
    double k2 = static_cast<double>(o.kernel) * o.kernel;
    w.name = model::Say("advise.workload.image_filter").Int("k", o.kernel).Num("pixels", pixels);
    w.flops = 2 * k2 * pixels * 3;
    w.bytes = 2 * 3 * pixels;
    w.transfer_bytes = 2 * 3 * pixels;
  } else if (o.profile == "llm-decode") {
    double params = size > 0 ? size : 7e9;
    GPUPROBE_RETURN_IF_ERROR(model::CheckQuantity(Quantity::kParams, params, "--size"));
    w.name = model::Say("advise.workload.llm_decode").Params("params", params);
    w.dtype = "bf16";
    w.flops = 2 * params;
    w.bytes = 2 * params;  // every weight read once per token
    w.transfer_bytes = 1e3;  // token ids and logits sampling: tiny
    w.model_params = params;
  } else if (!o.profile.empty()) {
    return core::Status::InvalidArgument("unknown profile '" + o.profile + "' (use vector, matmul, image-filter or llm-decode)")
        .WithKeys("error.advise.profile", {{"value", o.profile}});
  } else {
    w.name = model::Say("advise.workload.flags");
    w.flops = o.flops.value_or(0);
    w.bytes = o.bytes.value_or(0);
    w.transfer_bytes = o.transfer_bytes.value_or(0);
  }
  if (o.flops) w.flops = *o.flops;
  if (o.bytes) w.bytes = *o.bytes;
  if (o.transfer_bytes) w.transfer_bytes = *o.transfer_bytes;
  if (o.parallel_fraction) w.parallel_fraction = *o.parallel_fraction;
  if (o.branchy != "low" && o.branchy != "high") return core::Status::InvalidArgument("--branchy must be low or high")
      .WithKeys("error.advise.branchy", {});
  w.branchy = o.branchy == "high";
  w.calls_per_second = o.calls_per_second;
  if (!o.dtype.empty()) {
    if (o.dtype != "fp64" && o.dtype != "fp32" && o.dtype != "bf16" && o.dtype != "fp16") {
      return core::Status::InvalidArgument("--dtype must be fp64, fp32, bf16 or fp16").WithKeys("error.advise.dtype", {});
    }
    w.dtype = o.dtype;
  }
  GPUPROBE_RETURN_IF_ERROR(model::ValidateWorkload(w));
  return w;
}

// The CPU's figure by the bench document's one rule (BenchDocument::BestVerified); 0 when none.
double CpuFigure(const bench::BenchDocument& doc, const std::string& id, const std::string& case_prefix) {
  const bench::BenchResult* r = doc.BestVerified(id, "cpu", case_prefix);
  return r ? r->value : 0;
}

// A matmul's CPU figure by the one definition every verb uses (app/matmul_comparison.h): the
// best fp32 matmul measured in `doc`, else the model's fp32 FMA peak of its CPU; "measured"
// or "model" is said in the basis.
model::Phrase MatmulBasis(const app::MatmulFigure& f) {
  return f.source == "measured" ? model::Say("advise.cpu_basis.matmul_measured").Text("name", f.name)
                                : model::Say("advise.cpu_basis.matmul_model");
}

// The machine's load, said beside CPU figures measured on a busy machine.
void NoteLoad(model::CpuCapability* cpu, int logical_cpus) {
  auto load = app::ReadMachineLoad(logical_cpus);
  if (load && load->busy()) {
    cpu->basis = model::Say("advise.cpu_basis.busy").Sub("basis", cpu->basis).Text("load", fmt::format("{:.1f}", load->load_1min))
                     .Int("cpus", load->logical_cpus);
  }
}

// The CPU's streaming bandwidth and arithmetic rate on all cores, measured now with short
// cases: the FMA rate, or for a matmul-like workload the best fp32 matmul (the same figure the
// tour and report compare the GPU with).
core::Result<model::CpuCapability> MeasureCpuNow(const std::string& fma_id, bool gemm_like, std::optional<app::MatmulFigure>* matmul) {
  std::unique_ptr<bench::BenchHost> host = bench::MachineHost();
  std::vector<std::string> ids = {"memory.triad", fma_id};
  if (gemm_like) ids = {"memory.triad", "matmul.openblas_sgemm"};  // without OpenBLAS: the model's figure, said so
  auto doc = bench::MeasureCpuFigures(*host, ids);
  if (!doc.ok()) return doc.status();
  model::CpuCapability cpu;
  cpu.bandwidth = CpuFigure(*doc, "memory.triad", "all threads");
  if (gemm_like) {
    app::MatmulFigure mm = app::CompareMatmul(&*doc, &doc->cpu, nullptr).cpu;
    cpu.flops = mm.flops.value_or(0);
    *matmul = mm;
    cpu.basis = model::Say("advise.cpu_basis.now_matmul").Rate("triad", cpu.bandwidth).Flops("flops", cpu.flops).Sub("how", MatmulBasis(mm));
  } else {
    cpu.flops = CpuFigure(*doc, fma_id, "all cores");
    cpu.basis = model::Say("advise.cpu_basis.now").Rate("triad", cpu.bandwidth).Flops("fma", cpu.flops);
  }
  NoteLoad(&cpu, doc->cpu.logical_cpus);
  return cpu;
}

// The CPU's figures; `matmul` gets the matmul comparison's CPU figure where it is the one used.
core::Result<model::CpuCapability> CpuFigures(const AdviseOptions& o, const model::Workload& w, std::optional<app::MatmulFigure>* matmul) {
  model::CpuCapability cpu;
  if (!o.cpu_results.empty()) {
    auto text = core::ReadTextFile(o.cpu_results, 64 << 20);
    if (!text.ok()) return text.status();
    auto json = core::ParseJsonInput(*text, o.cpu_results);
    if (!json.ok()) return json.status();
    auto doc = bench::BenchDocumentFromJson(*json, o.cpu_results);
    if (!doc.ok()) return doc.status();
    cpu.bandwidth = CpuFigure(*doc, "memory.triad", "all threads");
    const bool gemm_like = w.flops_growth > w.bytes_growth;
    app::MatmulFigure mm;
    if (gemm_like && w.dtype != "fp64") {
      mm = app::CompareMatmul(&*doc, &doc->cpu, nullptr).cpu;
      cpu.flops = mm.flops.value_or(0);
      if (mm.known()) *matmul = mm;
    } else {
      cpu.flops = CpuFigure(*doc, w.dtype == "fp64" ? "compute.fma_fp64" : "compute.fma_fp32", "all cores");
    }
    if (cpu.bandwidth <= 0 || cpu.flops <= 0) {
      return core::Status::InvalidArgument(fmt::format(
          "{}: needs verified memory.triad (all threads) and compute.fma_fp32 (all cores) results", o.cpu_results),
          "run 'gpuprobe bench memory compute matmul --json > FILE'")
              .WithKeys("error.advise.cpu_results", {{"file", o.cpu_results}}, "error.advise.cpu_results.hint");
    }
    if (mm.known()) {
      cpu.basis = model::Say("advise.cpu_basis.file_matmul").Text("file", o.cpu_results).Rate("triad", cpu.bandwidth)
                      .Flops("flops", cpu.flops).Sub("how", MatmulBasis(mm));
    } else {
      cpu.basis = model::Say("advise.cpu_basis.file").Text("file", o.cpu_results).Rate("triad", cpu.bandwidth)
                      .Key("what", "advise.cpu_basis.fma").Flops("flops", cpu.flops);
    }
  } else if (o.cpu_flops <= 0 || o.cpu_bandwidth <= 0) {
    // No saved run: measure the two figures now (about a second, through the one bench
    // pipeline), rather than predict the CPU from a DRAM speed that often cannot be read.
    const bool gemm_like = w.flops_growth > w.bytes_growth && w.dtype != "fp64";
    auto measured = MeasureCpuNow(w.dtype == "fp64" ? "compute.fma_fp64" : "compute.fma_fp32", gemm_like, matmul);
    if (!measured.ok()) return measured.status();
    cpu = *measured;
  }
  if (o.cpu_flops > 0) {
    cpu.flops = o.cpu_flops;
    matmul->reset();  // a given figure is neither measured nor the model's
  }
  if (o.cpu_bandwidth > 0) cpu.bandwidth = o.cpu_bandwidth;
  if (o.cpu_flops > 0 || o.cpu_bandwidth > 0) {
    cpu.basis = model::Say("advise.cpu_basis.given").Flops("flops", cpu.flops).Rate("bandwidth", cpu.bandwidth);
  }
  if (cpu.flops <= 0 || cpu.bandwidth <= 0) {
    return core::Status::Unavailable("the CPU's figures could not be determined", "give --cpu-flops and --cpu-bandwidth")
        .WithKeys("error.advise.cpu_unknown", {}, "error.advise.cpu_unknown.hint");
  }
  return cpu;
}

core::Result<core::ExitCode> RunAdvise(VerbContext& ctx, const AdviseOptions& o) {
  using model::Quantity;
  GPUPROBE_RETURN_IF_ERROR(model::CheckQuantity(Quantity::kListLength, o.top, "--top"));
  if (o.cpu_flops != 0) GPUPROBE_RETURN_IF_ERROR(model::CheckQuantity(Quantity::kFlopRate, o.cpu_flops, "--cpu-flops"));
  if (o.cpu_bandwidth != 0) {
    GPUPROBE_RETURN_IF_ERROR(model::CheckQuantity(Quantity::kByteRate, o.cpu_bandwidth, "--cpu-bandwidth"));
  }
  auto workload = BuildWorkload(o);
  if (!workload.ok()) return workload.status();
  auto db = knowledge::Specs();
  if (!db.ok()) return db.status();
  auto prices = knowledge::PricesWithOverrides(o.prices);
  if (!prices.ok()) return prices.status();
  std::optional<app::MatmulFigure> matmul_cpu;
  auto cpu = CpuFigures(o, *workload, &matmul_cpu);
  if (!cpu.ok()) return cpu.status();
  // --gpu names the GPUs to compare (any the database knows, boards included: the user asked);
  // otherwise every GPU a service can run on by itself is ranked.
  std::vector<const model::GpuSpec*> asked;
  std::string choice_notes;
  nlohmann::json choices = nlohmann::json::array();
  for (const auto& name : o.gpus) {
    auto found = (*db)->Find(name);
    if (!found.ok()) return found.status().WithContext("--gpu");
    if (std::find(asked.begin(), asked.end(), *found) == asked.end()) asked.push_back(*found);
    std::vector<std::string> others = OtherVariantNames(**db, name, **found);
    choice_notes += GpuChoiceNote(name, (*found)->name, others, ctx.texts);
    if (auto choice = GpuChoiceJson(name, (*found)->name, others); !choice.is_null()) choices.push_back(choice);
  }
  std::vector<std::string> left_out = asked.empty() ? app::NotRankedByAdvise((*db)->gpus()) : std::vector<std::string>{};
  auto consider = [&asked](const model::GpuSpec& g) {
    return asked.empty() ? !app::IsNotAServerGpu(g) : std::find(asked.begin(), asked.end(), &g) != asked.end();
  };
  auto advice = model::Advise(*workload, *cpu, (*db)->gpus(), &*prices, consider);
  if (!advice.ok()) return advice.status();
  const int top = asked.empty() ? o.top : std::max(o.top, static_cast<int>(asked.size()));
  // A matmul: the fp32-against-fp32 comparison with the top GPU, by the one definition the
  // tour and report use (app/matmul_comparison.h), tensor cores apart.
  std::optional<app::MatmulComparison> comparison;
  if (matmul_cpu && !advice->gpus.empty()) {
    comparison = app::CompareMatmul(nullptr, nullptr, advice->gpus.front().gpu);
    comparison->cpu = *matmul_cpu;
  }
  if (ctx.options.json) {
    auto doc = AdviceToJson(*workload, *cpu, *advice, ctx.texts);
    doc["matmul_comparison"] = comparison ? app::MatmulComparisonJson(*comparison) : nlohmann::json(nullptr);
    if (comparison) doc["matmul_comparison"]["gpu"] = advice->gpus.front().gpu->name;
    doc["not_ranked"] = left_out;
    doc["gpu_choices"] = choices;
    ctx.out << report::RenderJson(doc);
  } else {
    ctx.out << choice_notes << RenderAdvice(*workload, *cpu, *advice, top, ctx.texts);
    if (!left_out.empty()) ctx.out << "  " << Tr(ctx.texts, "advise.not_ranked", fmt::arg("count", left_out.size())) << "\n";
    if (comparison && comparison->Fp32Speedup()) {
      std::string line = Tr(ctx.texts, "advise.matmul_comparison", fmt::arg("gpu", GpuNameText(advice->gpus.front().gpu->name, ctx.texts)),
                            fmt::arg("fp32", app::FormatSpeedup(*comparison->Fp32Speedup())),
                            fmt::arg("cpu_source", ctx.texts.Get("summary.source." + comparison->cpu.source)));
      if (auto tensor = comparison->TensorSpeedup()) {
        line += (ctx.texts.language() == report::Language::kZh ? "" : " ") +
                Tr(ctx.texts, "advise.matmul_comparison_tensor", fmt::arg("tensor", app::FormatSpeedup(*tensor)));
      }
      ctx.out << "\n" << line << "\n";
    }
  }
  return core::ExitCode::kOk;
}

}  // namespace

VerbRunner SetupAdviseVerb(CLI::App* command) {
  auto o = std::make_shared<AdviseOptions>();
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
  command->add_option("--gpu", o->gpus, "compare these GPUs only (repeatable: --gpu h100 --gpu l4); default: every server GPU, fastest first");
  command->add_option("--price", o->prices, "GPU=USD/h, one GPU-hour's price (repeatable): overrides the price table");
  return [o](VerbContext& ctx) { return RunAdvise(ctx, *o); };
}

}  // namespace gpuprobe::cli
