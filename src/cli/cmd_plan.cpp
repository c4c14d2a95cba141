// `gpuprobe plan`: memory, fit and throughput for a model and a job; what makes it fit when
// it does not; how many GPUs a traffic needs; what it costs. The report is assembled by
// app/plan_report.cpp; this file holds the flags.
#include "cli/cmd_plan.h"

#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/plan_view.h"
#include "report/json_document.h"

namespace gpuprobe::cli {
namespace {

core::Result<core::ExitCode> RunPlan(VerbContext& ctx, app::PlanOptions o, bool seq_given, bool headroom_given) {
  o.seq_given = seq_given;
  o.engine.headroom_given = headroom_given;
  o.engine.headroom = o.headroom;
  auto report = app::BuildPlanReport(o);
  if (!report.ok()) return report.status();
  if (report->log_only) {
    // --from-log without a model: the log read back, its checks and the flags to change.
    if (ctx.options.json) {
      ctx.out << report::RenderJson({{"schema", "gpuprobe.plan.v1"}, {"from_log", FromLogJson(*report, ctx.texts)}});
    } else {
      ctx.out << RenderFromLog(*report, ctx.texts);
    }
    return report->from_log->facts.failure.empty() ? core::ExitCode::kOk : core::ExitCode::kProblemsFound;
  }
  if (ctx.options.json) {
    ctx.out << report::RenderJson(PlanToJson(*report, ctx.texts));
  } else {
    ctx.out << RenderPlan(*report, ctx.texts);
  }
  return report->fits_on_gpu ? core::ExitCode::kOk : core::ExitCode::kProblemsFound;
}

}  // namespace

VerbRunner SetupPlanVerb(CLI::App* command) {
  auto o = std::make_shared<app::PlanOptions>();
  command->add_option("--model", o->model_path,
                      "config.json ('-' reads standard input), checkpoint directory, .safetensors or .gguf file, or Hub id (ORG/NAME)");
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
  CLI::Option* seq = command->add_option("--seq,--context", o->seq,
                                         "tokens per sequence: prompt + output (default 4096; with --rps: prompt + output tokens)");
  command->add_option("--optimizer", o->optimizer, "adamw | adamw-8bit | sgd (training modes; default adamw)");
  command->add_option("--lora-rank", o->lora_rank, "LoRA rank r (default 16)");
  command->add_option("--lora-targets", o->lora_targets, "all (every linear, default) | attention (q, k, v, o)");
  command->add_option("--tp", o->tp, "tensor-parallel GPUs the model is split across (default 1)");
  command->add_option("--pp", o->pp, "pipeline-parallel stages, each GPU holding 1/pp of the layers (default 1)");
  command->add_option("--ep", o->ep, "expert-parallel GPUs the routed experts are spread over (MoE; a multiple of --tp)");
  command->add_option("--shared-prefix", o->shared_prefix, "tokens every request shares (system prompt): prefix caching");
  CLI::Option* checkpointing =
      command->add_flag("--checkpointing", o->checkpointing, "activation checkpointing (recompute in backward); on for qlora");
  command->add_flag("--no-checkpointing", o->no_checkpointing, "turn activation checkpointing off, also for qlora")
      ->excludes(checkpointing);
  command->add_option("--gpu", o->gpu, "one GPU to plan for: capacity, speed, communication; ways to make it fit when it does not (a bf16 default is fp16 on GPUs without bf16)");
  CLI::Option* headroom = command->add_option(
      "--headroom", o->headroom, "fraction of usable memory a plan may fill (default 0.9); for --engine vllm, --gpu-memory-utilization");
  // The serving engine (inference): its budget is the fit verdict; its own flags, as it spells them.
  app::EngineFlags& e = o->engine;
  command->add_option("--engine", e.engine, "vllm (default) | sglang | trtllm | llama.cpp | transformers");
  command->add_option("--engine-version", e.engine_version, "vLLM version or generation: v0, v1, 0.6.4 ...");
  command->add_flag("--vllm-v0", e.vllm_v0, "vLLM's V0 engine");
  command->add_option("--from-log", o->from_log, "an engine's start-up log: its budget read back, held against the plan");
  command->add_option("--gpu-from", e.gpu_from, "an nvidia-smi capture (any file inspect reads), or live");
  command->add_option("--gpu-memory-utilization", e.gpu_memory_utilization, "vLLM: share of total memory (default 0.9)");
  command->add_option("--max-model-len", e.max_model_len, "tokens per request (default --seq); -1: the longest that fits");
  command->add_option("--max-num-batched-tokens", e.max_num_batched_tokens, "tokens per scheduler step");
  command->add_option("--max-num-seqs", e.max_num_seqs, "vLLM: sequences per scheduler step");
  command->add_option("--block-size", e.block_size, "vLLM: tokens per KV block (default 16)");
  command->add_flag("--enforce-eager", e.enforce_eager, "vLLM: no CUDA graphs");
  command->add_option("--mem-fraction-static", e.mem_fraction_static, "SGLang: share for weights and KV cache");
  command->add_option("--kv-cache-free-gpu-mem-fraction", e.kv_cache_free_fraction, "TensorRT-LLM: KV share of free memory");
  command->add_option("--n-ctx", e.n_ctx, "llama.cpp: context of all slots (-c)");
  command->add_option("--parallel", e.parallel, "llama.cpp: slots (-np)");
  command->add_option("--ngl", e.n_gpu_layers, "llama.cpp: layers on the GPU (-ngl)");
  command->add_option("--cache-type-k", e.cache_type_k, "llama.cpp: K cache type (f16, q8_0, q4_0 ...)");
  command->add_option("--cache-type-v", e.cache_type_v, "llama.cpp: V cache type (f16, q8_0, q4_0 ...)");
  command->add_option("--rps", o->rps, "traffic: requests per second to serve, with --prompt-tokens and --output-tokens; without --gpu, every GPU with a known price, cheapest per token first");
  command->add_option("--users", o->users, "traffic: concurrent users instead of --rps (closed loop, with --think-time)");
  command->add_option("--think-time", o->think_time, "seconds a user waits between an answer and the next request (default 0)");
  command->add_option("--prompt-tokens", o->prompt_tokens, "traffic: prompt tokens per request");
  command->add_option("--tpot-ms", o->tpot_ms, "traffic: the most time per output token to accept, in ms (default: none)");
  command->add_option("--p99-wait-ms", o->p99_wait_ms,
                      "traffic without --gpu: the longest p99 queueing wait the recommended rental may have, in ms (default 1000)");
  command->add_option("--output-tokens", o->output_tokens, "traffic: output tokens per request");
  command->add_option("--price", o->prices, "GPU=USD/h, one GPU-hour's price (repeatable): overrides the price table");
  command->add_option("--train-tokens", o->train_tokens, "training: tokens of the whole run (e.g. 2B) for its cost");
  return [o, seq, headroom](VerbContext& ctx) { return RunPlan(ctx, *o, seq->count() > 0, headroom->count() > 0); };
}

}  // namespace gpuprobe::cli
