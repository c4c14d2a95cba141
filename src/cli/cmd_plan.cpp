// `gpuprobe plan`: memory, fit and throughput for a model and a job.
#include <algorithm>
#include <cmath>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/command.h"
#include "cli/plan_view.h"
#include "cli/plan_model_source.h"
#include "summary/spec_data.h"
#include "core/units.h"
#include "model/hf_config.h"
#include "model/spec_derivation.h"
#include "report/json_document.h"

namespace gpuprobe::cli {
namespace {

constexpr const char* kFooter = R"(The model (--model) is a config.json, a checkpoint directory (config.json + safetensors
headers, read without the weights), a Hub cache snapshot, a .gguf file, or a Hub id: looked up
in the local Hub cache ($HF_HUB_CACHE, $HF_HOME/hub, ~/.cache/huggingface/hub), then in the
built-in catalogue. Or give a parameter count (--params). 43 model types have exact recipes
(llama, qwen2/3 and their MoE, deepseek_v2/v3, gemma 1-3, phi, falcon, mamba, jamba, ...);
another model_type with llama-like fields is planned as a generic decoder, with a warning.

Examples:
  gpuprobe plan --params 8B                        fit table for an 8B model over every GPU
  gpuprobe plan --model Qwen/Qwen3-30B-A3B --gpu h200 --seq 32768
                                                   MoE: total vs active, max concurrency
  gpuprobe plan --model deepseek-ai/DeepSeek-V3-Base --gpu h200 --tp 8 --kv-dtype fp8
  gpuprobe plan --model ~/models/llama-3.1-8b/     exact bytes from the safetensors headers
  gpuprobe plan --model ./model-Q4_K_M.gguf --gpu 4090
  gpuprobe plan --params 70B --gpu h200 --tp 2     split over two H200s, with speed bounds
  gpuprobe plan --model ./config.json --mode qlora --seq 2048 --batch 2
  gpuprobe plan --model mixtral-8x7b-v0.1 --gpu h100 --tp 2 --ep 2 --pp 1
  gpuprobe plan --params 13B --dtype int4 --kv-dtype fp8 --seq 32768 --json

Exit status: 0 ok; 1 when --gpu is given and the job does not fit on it; 2 bad input.)";

struct PlanOptions {
  std::string model_path, params, gpu;
  std::optional<std::int64_t> layers, hidden, heads, kv_heads, vocab, intermediate;
  std::string mode = "infer", dtype, kv_dtype, optimizer = "adamw", lora_targets = "all";
  std::int64_t batch = 1, seq = 4096;
  int lora_rank = 16, tp = 1, pp = 1, ep = 0;
  std::int64_t shared_prefix = 0;
  bool checkpointing = false, no_checkpointing = false;
  double headroom = 0.9;
};

core::Result<model::DType> DefaultDType(const model::ModelShape& shape) {
  // The checkpoint's own dtype when the config says and it is a 16/32-bit float.
  if (!shape.torch_dtype.empty()) {
    auto parsed = model::ParseDType(shape.torch_dtype);
    if (parsed.ok() && model::IsFloat16Or32(*parsed)) return *parsed;
  }
  return model::DType::kBf16;
}

core::Result<core::ExitCode> RunPlan(VerbContext& ctx, const PlanOptions& o) {
  PlanReport report;
  if (o.model_path.empty() == o.params.empty()) {
    return core::Status::InvalidArgument("give the model as --model PATH (a config.json) or --params COUNT (e.g. 7B), not both or neither",
                                         "gpuprobe plan --params 8B, or gpuprobe plan --model ./config.json");
  }
  if (!o.model_path.empty()) {
    auto source = ResolveModel(o.model_path);
    if (!source.ok()) return source.status();
    report.shape = std::move(source->shape);
    report.model_label = source->label;
    report.found_in = source->found_in;
    report.catalog_source = source->catalog_source;
    report.checkpoint = std::move(source->checkpoint);
    // Shape flags override the config (e.g. to try a different vocabulary).
    if (o.layers) report.shape.num_layers = *o.layers;
    if (o.hidden) report.shape.hidden_size = *o.hidden;
    if (o.heads) report.shape.num_heads = *o.heads;
    if (o.kv_heads) report.shape.num_kv_heads = *o.kv_heads;
    if (o.vocab) report.shape.vocab_size = *o.vocab;
    if (o.intermediate) report.shape.intermediate_size = *o.intermediate;
    if (o.layers || o.hidden || o.heads || o.kv_heads || o.vocab || o.intermediate) {
      if (o.hidden || o.heads) report.shape.head_dim = report.shape.hidden_size / std::max<std::int64_t>(1, report.shape.num_heads);
      // The overridden shape is re-derived as a uniform decoder; the checkpoint's bytes no longer apply.
      GPUPROBE_RETURN_IF_ERROR(model::ValidateShape(report.shape, "shape flags"));
      report.shape.layers.clear();
      model::BuildUniformLayers(report.shape);
      report.shape.notes.push_back({"shape_flags", ""});
      report.checkpoint.reset();
    }
  } else {
    auto count = core::ParseCount(o.params);
    if (!count.ok()) return count.status().WithContext("--params");
    model::ShapeFlags flags{o.layers, o.hidden, o.heads, o.kv_heads, o.vocab, o.intermediate};
    auto shape = model::ShapeFromParameterCount(*count, flags);
    if (!shape.ok()) return shape.status();
    report.shape = std::move(shape.value());
    report.model_label = "--params " + o.params;
  }

  model::Job& job = report.job;
  GPUPROBE_ASSIGN_OR_RETURN(job.mode, model::ParseJobMode(o.mode));
  if (o.dtype.empty()) {
    GPUPROBE_ASSIGN_OR_RETURN(job.weight_dtype, DefaultDType(report.shape));
  } else {
    GPUPROBE_ASSIGN_OR_RETURN(job.weight_dtype, model::ParseDType(o.dtype));
  }
  if (o.kv_dtype.empty()) {
    job.kv_dtype = model::IsFloat16Or32(job.weight_dtype) && job.weight_dtype != model::DType::kFp32 ? job.weight_dtype
                                                                                                     : model::DType::kBf16;
  } else {
    GPUPROBE_ASSIGN_OR_RETURN(job.kv_dtype, model::ParseDType(o.kv_dtype));
    if (job.kv_dtype == model::DType::kInt4 || job.kv_dtype == model::DType::kNf4) {
      return core::Status::InvalidArgument("--kv-dtype must be fp32, fp16, bf16, fp8 or int8");
    }
  }
  GPUPROBE_ASSIGN_OR_RETURN(job.optimizer, model::ParseOptimizer(o.optimizer));
  if (o.lora_targets != "all" && o.lora_targets != "attention") {
    return core::Status::InvalidArgument("--lora-targets must be all or attention, got '" + o.lora_targets + "'");
  }
  job.lora_all_linears = o.lora_targets == "all";
  job.batch = o.batch;
  job.seq = o.seq;
  job.lora_rank = o.lora_rank;
  job.tensor_parallel = o.tp;
  job.pipeline_parallel = o.pp;
  job.expert_parallel = o.ep;
  job.shared_prefix = o.shared_prefix;
  if (o.dtype.empty() && job.mode != model::JobMode::kFull) {
    // The checkpoint's own storage: its headers' bytes when read, else its quantisation.
    // (Full fine-tuning trains 16/32-bit weights, so it plans with the dtype instead.)
    job.weight_quant = report.shape.quant;
    if (report.checkpoint && report.checkpoint->serving.tensors > 0) {
      job.checkpoint_weight_bytes = report.checkpoint->serving.bytes;
      job.checkpoint_weight_note = fmt::format("{} {} file(s), {} tensors", report.checkpoint->files.size(),
                                               report.checkpoint->format, report.checkpoint->serving.tensors);
    }
  }
  job.headroom = o.headroom;
  // QLoRA recipes turn checkpointing on; others leave it off unless asked.
  job.activation_checkpointing = (job.mode == model::JobMode::kQlora || o.checkpointing) && !o.no_checkpointing;

  auto memory = model::PlanMemory(report.shape, job);
  if (!memory.ok()) return memory.status();
  report.memory = std::move(memory.value());

  auto db_result = summary::EmbeddedSpecDatabase();
  if (!db_result.ok()) return db_result.status();
  const model::SpecDatabase& db = **db_result;
  std::vector<const model::GpuSpec*> candidates;
  if (!o.gpu.empty()) {
    auto found = db.Find(o.gpu);
    if (!found.ok()) return found.status().WithContext("--gpu");
    report.gpu = *found;
    candidates.push_back(*found);
  } else {
    for (const auto& g : db.gpus()) {
      if (g.memory_size_gb_vendor.known()) candidates.push_back(&g);
    }
  }
  for (const auto* g : candidates) {
    model::UsableMemory usable = model::DriverUsableMemory(*g);
    report.fits.push_back({g, model::CheckFit(report.memory, job, usable.bytes), usable.estimated});
  }
  // Fits first (smallest card that fits first: the cheapest adequate choice), then fewest GPUs.
  std::stable_sort(report.fits.begin(), report.fits.end(), [](const PlanFit& a, const PlanFit& b) {
    if (a.fit.fits != b.fit.fits) return a.fit.fits;
    if (a.fit.fits) return a.fit.usable_bytes < b.fit.usable_bytes;
    int an = a.fit.gpus_needed == 0 ? 1 << 30 : a.fit.gpus_needed;
    int bn = b.fit.gpus_needed == 0 ? 1 << 30 : b.fit.gpus_needed;
    if (an != bn) return an < bn;
    return a.fit.usable_bytes > b.fit.usable_bytes;
  });

  bool fits_on_gpu = true;
  if (report.gpu != nullptr) {
    model::UsableMemory usable = model::DriverUsableMemory(*report.gpu);
    report.capacity = model::FindCapacity(report.shape, job, usable.bytes);
    if (job.mode == model::JobMode::kInfer) report.serving = model::PlanServing(report.shape, job, report.memory, usable.bytes);
    auto throughput = model::PredictThroughput(report.shape, report.memory, job, *report.gpu);
    if (throughput.ok()) report.throughput = std::move(throughput.value());
    fits_on_gpu = report.fits.front().fit.fits;
  }

  if (ctx.options.json) {
    ctx.out << report::RenderJson(PlanToJson(report, ctx.texts));
  } else {
    ctx.out << RenderPlan(report, ctx.texts);
  }
  return fits_on_gpu ? core::ExitCode::kOk : core::ExitCode::kProblemsFound;
}

}  // namespace

VerbRunner SetupPlanVerb(CLI::App* command) {
  auto o = std::make_shared<PlanOptions>();
  command->footer(kFooter);
  command->add_option("--model", o->model_path,
                      "config.json ('-' reads standard input), checkpoint directory, .gguf file, or Hub id (ORG/NAME)");
  command->add_option("--params", o->params, "parameter count instead of a config: 7B, 350M, 1.5T");
  command->add_option("--layers", o->layers, "number of layers (with --params, or to override the config)");
  command->add_option("--hidden", o->hidden, "hidden size");
  command->add_option("--heads", o->heads, "attention (query) heads");
  command->add_option("--kv-heads", o->kv_heads, "key/value heads (GQA); default: --heads");
  command->add_option("--vocab", o->vocab, "vocabulary size");
  command->add_option("--intermediate", o->intermediate, "MLP intermediate size");
  command->add_option("--mode", o->mode, "infer | lora | qlora | full (default infer)");
  command->add_option("--dtype", o->dtype, "weights: fp32 | fp16 | bf16 | fp8 | int8 | int4 (default: the config's, else bf16)");
  command->add_option("--kv-dtype", o->kv_dtype, "KV cache: fp16 | bf16 | fp8 | int8 | fp32 (default 16-bit)");
  command->add_option("--batch", o->batch, "sequences at once (default 1)");
  command->add_option("--seq", o->seq, "tokens per sequence: prompt + output (default 4096)");
  command->add_option("--optimizer", o->optimizer, "adamw | adamw-8bit | sgd (training modes; default adamw)");
  command->add_option("--lora-rank", o->lora_rank, "LoRA rank r (default 16)");
  command->add_option("--lora-targets", o->lora_targets, "all (every linear, default) | attention (q, k, v, o)");
  command->add_option("--tp", o->tp, "tensor-parallel GPUs the model is split across (default 1)");
  command->add_option("--pp", o->pp, "pipeline-parallel stages, each GPU holding 1/pp of the layers (default 1)");
  command->add_option("--ep", o->ep, "expert-parallel GPUs the routed experts are spread over (MoE; a multiple of --tp)");
  command->add_option("--shared-prefix", o->shared_prefix, "tokens every request shares (system prompt): prefix caching");
  command->add_flag("--checkpointing", o->checkpointing, "activation checkpointing (recompute in backward); on for qlora");
  command->add_flag("--no-checkpointing", o->no_checkpointing, "turn activation checkpointing off, also for qlora");
  command->add_option("--gpu", o->gpu, "one GPU to plan for: adds capacity (largest batch x seq) and throughput");
  command->add_option("--headroom", o->headroom, "fraction of usable memory a plan may fill (default 0.9, as vLLM)");
  return [o](VerbContext& ctx) { return RunPlan(ctx, *o); };
}

}  // namespace gpuprobe::cli
