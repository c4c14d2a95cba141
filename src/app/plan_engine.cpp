#include "app/plan_engine.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "app/inspect_state.h"
#include "core/file_io.h"
#include "core/units.h"
#include "model/dtype.h"
#include "model/phrase.h"
#include "model/quantity.h"
#include "model/spec_derivation.h"

namespace gpuprobe::app {
namespace {

using core::Result;
using core::Status;
using model::Engine;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;

// llama.cpp's cache types (ggml's block layouts: q8_0 is 32 values in 34 bytes, q4_0 in 18,
// q4_1 in 20, q5_0 in 22, q5_1 in 24, iq4_nl in 18): bytes per element; 0 when unknown.
double LlamaCacheTypeBytes(const std::string& type) {
  if (type == "f32") return 4;
  if (type == "f16" || type == "bf16") return 2;
  if (type == "q8_0") return 34.0 / 32.0;
  if (type == "q5_1") return 24.0 / 32.0;
  if (type == "q5_0") return 22.0 / 32.0;
  if (type == "q4_1") return 20.0 / 32.0;
  if (type == "q4_0" || type == "iq4_nl") return 18.0 / 32.0;
  return 0;
}

Status CheckCacheType(const std::string& type, const char* flag) {
  if (type.empty() || LlamaCacheTypeBytes(type) > 0) return Status::Ok();
  return Status::InvalidArgument(
             fmt::format("{} must be f32, f16, bf16, q8_0, q5_1, q5_0, q4_1, q4_0 or iq4_nl, got '{}'", flag, type))
      .WithKeys("error.engine.cache_type", {{"flag", flag}, {"value", type}});
}

// "v0", "v1", or a vLLM version: V1 is the default engine from 0.8.0 (vLLM's release notes).
Result<bool> IsVllmV0(const std::string& version) {
  std::string v;
  for (char c : version) v += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v == "v0" || v == "0") return true;
  if (v == "v1" || v == "1") return false;
  if (!v.empty() && v[0] == 'v') v.erase(0, 1);
  int major = 0, minor = 0;
  if (std::sscanf(v.c_str(), "%d.%d", &major, &minor) == 2) return major == 0 && minor < 8;
  return Status::InvalidArgument(fmt::format("--engine-version must be v0, v1 or a vLLM version such as 0.6.4, got '{}'", version))
      .WithKeys("error.engine.version", {{"value", version}});
}

// 0.8.x: V1's first releases as the default engine, with their own profiling defaults.
bool IsVllm08(const std::string& version) {
  std::string v = version;
  if (!v.empty() && (v[0] == 'v' || v[0] == 'V')) v.erase(0, 1);
  int major = 0, minor = 0;
  return std::sscanf(v.c_str(), "%d.%d", &major, &minor) == 2 && major == 0 && minor == 8;
}

std::string Grouped(std::int64_t n) { return core::FormatInteger(static_cast<std::uint64_t>(std::max<std::int64_t>(n, 0))); }

}  // namespace

std::string EngineDisplayName(const model::EngineOptions& o) {
  switch (o.engine) {
    case Engine::kVllm: return o.vllm_v0 ? "vLLM V0" : "vLLM V1";
    case Engine::kSglang: return "SGLang";
    case Engine::kTrtllm: return "TensorRT-LLM";
    case Engine::kLlamaCpp: return "llama.cpp";
    case Engine::kTransformers: return "`transformers`";
  }
  return "?";
}

Result<model::EngineOptions> EngineOptionsFrom(const EngineFlags& f, const model::Job& job) {
  using model::CheckQuantity;
  using model::Quantity;
  model::EngineOptions o;
  GPUPROBE_ASSIGN_OR_RETURN(o.engine, model::ParseEngine(f.engine.empty() ? "vllm" : f.engine));
  if (f.engine == "vllm-v0") o.vllm_v0 = true;
  if (!f.engine_version.empty()) {
    GPUPROBE_ASSIGN_OR_RETURN(o.vllm_v0, IsVllmV0(f.engine_version));
    o.vllm_v1_early = IsVllm08(f.engine_version);
  }
  if (f.vllm_v0) o.vllm_v0 = true;
  // One validator per quantity (model/quantity.h): fractions of memory, token counts, sequences.
  if (f.gpu_memory_utilization) {
    GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kHeadroom, *f.gpu_memory_utilization, "--gpu-memory-utilization"));
    o.gpu_memory_utilization = f.gpu_memory_utilization;
  } else if (f.headroom_given && o.engine == Engine::kVllm) {
    o.gpu_memory_utilization = f.headroom;  // --headroom: vLLM's gpu_memory_utilization
  }
  if (f.mem_fraction_static) {
    GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kHeadroom, *f.mem_fraction_static, "--mem-fraction-static"));
    o.mem_fraction_static = f.mem_fraction_static;
  }
  if (f.kv_cache_free_fraction) {
    GPUPROBE_RETURN_IF_ERROR(
        CheckQuantity(Quantity::kHeadroom, *f.kv_cache_free_fraction, "--kv-cache-free-gpu-mem-fraction"));
    o.kv_cache_free_fraction = f.kv_cache_free_fraction;
  }
  if (f.max_model_len) {
    if (*f.max_model_len != -1) {
      GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kTokens, static_cast<double>(*f.max_model_len), "--max-model-len"));
    }
    o.max_model_len = f.max_model_len;
  } else {
    o.max_model_len = job.seq;  // plan's --seq (default 4096) is the context served
  }
  if (f.max_num_batched_tokens) {
    GPUPROBE_RETURN_IF_ERROR(
        CheckQuantity(Quantity::kTokens, static_cast<double>(*f.max_num_batched_tokens), "--max-num-batched-tokens"));
    o.max_num_batched_tokens = f.max_num_batched_tokens;
  }
  if (f.max_num_seqs) {
    GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kBatch, static_cast<double>(*f.max_num_seqs), "--max-num-seqs"));
    o.max_num_seqs = f.max_num_seqs;
  }
  if (f.block_size) {
    GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kTokens, static_cast<double>(*f.block_size), "--block-size"));
    o.block_size = *f.block_size;  // a power of two: model::PlanEngineBudget checks it
  }
  o.enforce_eager = f.enforce_eager;
  if (f.parallel) {
    GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kBatch, static_cast<double>(*f.parallel), "--parallel"));
    o.n_parallel = *f.parallel;
  } else {
    o.n_parallel = job.batch;  // llama.cpp: one slot per sequence of the plan
  }
  if (f.n_ctx) {
    GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kTokens, static_cast<double>(*f.n_ctx), "--n-ctx"));
    o.n_ctx = f.n_ctx;
  } else if (o.engine == Engine::kLlamaCpp) {
    o.n_ctx = job.seq * o.n_parallel;  // llama.cpp divides n_ctx among its slots
  }
  if (f.n_gpu_layers) {
    GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kTokens, static_cast<double>(*f.n_gpu_layers), "--ngl", true));
    o.n_gpu_layers = f.n_gpu_layers;
  }
  // The cache dtype: llama.cpp's --cache-type-k/-v, else plan's --kv-dtype as the engine spells it.
  GPUPROBE_RETURN_IF_ERROR(CheckCacheType(f.cache_type_k, "--cache-type-k"));
  GPUPROBE_RETURN_IF_ERROR(CheckCacheType(f.cache_type_v, "--cache-type-v"));
  o.kv_bytes_per_element = model::BytesPerElement(job.kv_dtype);
  o.kv_dtype_name = job.kv_dtype == model::DType::kFp8 ? "fp8" : job.kv_dtype == model::DType::kInt8 ? "int8" : "auto";
  if (o.engine == Engine::kLlamaCpp) {
    std::string k = f.cache_type_k, v = f.cache_type_v;
    if (k.empty() && v.empty() && job.kv_dtype == model::DType::kInt8) k = v = "q8_0";
    if (k.empty()) k = "f16";
    if (v.empty()) v = "f16";
    o.kv_bytes_per_element = (LlamaCacheTypeBytes(k) + LlamaCacheTypeBytes(v)) / 2.0;
    o.cache_type_k = k;
    o.cache_type_v = v;
  } else if (!f.cache_type_k.empty() || !f.cache_type_v.empty()) {
    return Status::InvalidArgument("--cache-type-k and --cache-type-v are llama.cpp's; use --kv-dtype for other engines")
        .WithKeys("error.engine.llamacpp_only", {{"flag", "--cache-type-k"}});
  }
  return o;
}

EngineGpu EngineGpuFromSpec(const model::GpuSpec& spec) {
  EngineGpu g;
  g.name = spec.name;
  g.spec = &spec;
  model::UsableMemory usable = model::DriverUsableMemory(spec);
  g.total_bytes = usable.bytes;
  g.reported_total_bytes = usable.estimated ? usable.bytes : usable.total_mib * kMiB;
  g.reserved_bytes = usable.reserved_mib * kMiB;
  return g;
}

Result<EngineGpu> ReadEngineGpu(const std::string& from) {
  const bool live = from == "live";
  auto reading = ReadGpuState(live ? std::string() : from);
  if (!reading.ok()) {
    if (live) {
      return Status::Unavailable("--gpu-from live reads the GPUs through NVML, and " + reading.status().message(),
                                 "save a capture on the GPU machine (nvidia-smi -q -x > gpu.xml) and pass --gpu-from gpu.xml")
          .WithKeys("error.engine.gpu_from_live", {{"reason", reading.status().message()}},
                    "error.engine.gpu_from_live.hint");
    }
    return reading.status().WithContext("--gpu-from");
  }
  const telemetry::CaptureSet* set = nullptr;
  for (const auto& s : reading->sets) {
    if (!s.gpus.empty()) { set = &s; break; }
  }
  // The smallest GPU decides (every rank gets the same budget): the one with the least memory.
  const telemetry::Snapshot* pick = nullptr;
  auto usable = [](const telemetry::Snapshot& s) {
    return s.memory_total_bytes.value_or(0) - s.memory_reserved_bytes.value_or(0);
  };
  if (set != nullptr) {
    for (const auto& s : set->gpus) {
      if (!s.memory_total_bytes) continue;
      if (pick == nullptr || usable(s) < usable(*pick)) pick = &s;
    }
  }
  if (pick == nullptr) {
    return Status::InvalidArgument(fmt::format("--gpu-from {}: the capture reports no GPU memory total", from))
        .WithKeys("error.engine.gpu_from_memory", {{"file", from}});
  }
  EngineGpu g;
  g.name = pick->name;
  g.spec = SpecOf(*pick).spec;
  g.from_driver = true;
  g.source = live ? std::string("NVML") : from;
  g.count = static_cast<int>(set->gpus.size());
  g.reported_total_bytes = *pick->memory_total_bytes;
  g.reserved_bytes = pick->memory_reserved_bytes.value_or(0);
  // What CUDA (torch.cuda.mem_get_info) calls the total: nvidia-smi's Total less its Reserved.
  g.total_bytes = g.reported_total_bytes - g.reserved_bytes;
  if (pick->memory_free_bytes) {
    g.free_bytes = pick->memory_free_bytes;
  } else if (pick->memory_used_bytes) {
    g.free_bytes = g.total_bytes - *pick->memory_used_bytes;
  }
  g.other_processes_bytes = pick->memory_used_bytes.value_or(0);
  g.processes = static_cast<int>(pick->processes.size());
  g.ecc_enabled = pick->ecc_enabled;
  if (pick->mig_enabled.value_or(false) && !pick->mig_instances.empty()) {
    // An engine runs in one slice: the largest one's memory is its GPU.
    g.mig_slices = static_cast<int>(pick->mig_instances.size());
    for (const auto& m : pick->mig_instances) g.mig_slice_bytes = std::max(g.mig_slice_bytes, m.memory_total_bytes.value_or(0));
    if (g.mig_slice_bytes > 0) {
      g.total_bytes = g.mig_slice_bytes;
      g.reported_total_bytes = g.mig_slice_bytes;
      g.reserved_bytes = 0;  // the slice's memory is what its processes see
      g.free_bytes.reset();
    }
  }
  return g;
}

std::vector<std::string> EngineLogLines(const model::EngineOptions& o, const model::EngineBudget& b, std::int64_t layers) {
  std::vector<std::string> lines;
  const double kv_gib = std::max(0.0, b.kv_cache_bytes) / kGiB;
  switch (o.engine) {
    case Engine::kVllm:
      if (b.failure == "weights_do_not_fit") {
        // The weights do not load: the start-up ends in the loader, before any budget line.
        lines.push_back("torch.OutOfMemoryError: CUDA out of memory.");
        break;
      }
      if (o.vllm_v0) {
        // vllm/worker/worker.py and vllm/executor/executor_base.py (V0).
        lines.push_back(fmt::format("# GPU blocks: {}", std::max<std::int64_t>(b.num_blocks, 0)));
        if (b.starts) {
          lines.push_back(fmt::format("Maximum concurrency for {} tokens per request: {:.2f}x", b.max_model_len, b.max_concurrency));
        }
      } else {
        // vllm/v1/core/kv_cache_utils.py and vllm/v1/worker/gpu_worker.py (V1).
        lines.push_back(fmt::format("Available KV cache memory: {:.2f} GiB", kv_gib));
        if (b.starts) {
          lines.push_back(fmt::format("GPU KV cache size: {} tokens", Grouped(b.kv_tokens)));
          lines.push_back(fmt::format("Maximum concurrency for {} tokens per request: {:.2f}x", Grouped(b.max_model_len),
                                      b.max_concurrency));
        }
      }
      if (b.failure == "no_kv_memory") {
        lines.push_back("No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.");
      } else if (b.failure == "max_len_exceeds_kv" && o.vllm_v0) {
        lines.push_back(fmt::format("The model's max seq len ({}) is larger than the maximum number of tokens that can be "
                                    "stored in KV cache ({}). Try increasing `gpu_memory_utilization` or decreasing "
                                    "`max_model_len` when initializing the engine.",
                                    b.max_model_len, b.kv_tokens));
      } else if (b.failure == "max_len_exceeds_kv") {
        lines.push_back(fmt::format("To serve at least one request with the models's max seq len ({}), ({:.2f} GiB KV cache is "
                                    "needed, which is larger than the available KV cache memory ({:.2f} GiB). Based on the "
                                    "available memory, the estimated maximum model length is {}.",
                                    b.max_model_len, b.kv_bytes_per_request / kGiB, kv_gib, b.longest_that_fits));
      } else if (b.failure == "free_below_requested") {
        lines.push_back(fmt::format("Free memory on device is less than desired GPU memory utilization ({}, {:.2f} GiB).",
                                    o.gpu_memory_utilization.value_or(0.9), b.requested_bytes / kGiB));
      }
      break;
    case Engine::kSglang:
      // sglang/srt/mem_cache/memory_pool.py and model_runner.py.
      if (b.kv_tokens > 0) {
        lines.push_back(fmt::format("KV Cache is allocated. #tokens: {}, K size: {:.2f} GB, V size: {:.2f} GB", b.kv_tokens,
                                    kv_gib / 2, kv_gib / 2));
        lines.push_back(fmt::format("max_total_num_tokens={}", b.kv_tokens));
      } else {
        lines.push_back("RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.");
      }
      break;
    case Engine::kTrtllm:
      // tensorrt_llm's KV cache manager (cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp).
      lines.push_back(fmt::format("[TensorRT-LLM][INFO] Allocated {:.2f} GiB for max tokens in paged KV cache ({}).", kv_gib,
                                  b.kv_tokens));
      break;
    case Engine::kLlamaCpp:
      // llama.cpp's llama-model.cpp / llama-context.cpp / llama-kv-cache.cpp.
      // "offloaded N/M layers": M counts the output layer too, which goes with a full offload.
      lines.push_back(fmt::format("load_tensors: offloaded {}/{} layers to GPU",
                                  b.gpu_layers >= layers ? layers + 1 : b.gpu_layers, layers + 1));
      lines.push_back(fmt::format("llama_context: n_ctx         = {}", b.kv_tokens));
      lines.push_back(fmt::format("CUDA0 KV buffer size = {:.2f} MiB", std::max(0.0, b.kv_cache_bytes) / kMiB));
      if (!b.starts) lines.push_back("ggml_backend_cuda_buffer_type_alloc_buffer: allocating buffer on device 0: cudaMalloc failed: out of memory");
      break;
    case Engine::kTransformers:
      if (!b.starts) lines.push_back("torch.OutOfMemoryError: CUDA out of memory.");
      break;
  }
  return lines;
}

Result<PlanEngine> PlanWithEngine(const model::ModelShape& shape, const model::Job& job, const model::MemoryPlan& memory,
                                  const EngineGpu& gpu, const model::EngineOptions& options, const std::string& model_name) {
  PlanEngine p;
  p.options = options;
  p.gpu = gpu;
  p.tensor_parallel = std::max(1, job.tensor_parallel);
  p.pipeline_parallel = std::max(1, job.pipeline_parallel);
  p.batch = job.batch;
  model::GpuMemory memory_seen{gpu.total_bytes, gpu.free_bytes, gpu.from_driver, gpu.name};
  // llama.cpp splits by layers, not heads: its weights are the whole model's, offloaded by -ngl.
  double weights = options.engine == Engine::kLlamaCpp ? memory.weight_bytes_per_gpu * p.tensor_parallel * p.pipeline_parallel
                                                       : memory.weight_bytes_per_gpu;
  auto budget = model::PlanEngineBudget(shape, weights, p.tensor_parallel, p.pipeline_parallel, memory_seen, options);
  if (!budget.ok()) return budget.status();
  p.budget = std::move(budget.value());
  const int split = p.tensor_parallel * p.pipeline_parallel;
  if (gpu.from_driver && !gpu.source.empty() && gpu.count < split) {
    // The capture shows fewer GPUs than the split needs: planned per GPU all the same.
    p.budget.assumptions.push_back(model::Say("plan.engine.assume.fewer_gpus").Int("gpus", gpu.count).Int("needed", split));
  }
  model::KvFootprint kv = model::KvFootprintOf(shape, options.kv_bytes_per_element, p.tensor_parallel, p.pipeline_parallel);
  p.kv_bytes_per_token = kv.full_bytes_per_token + kv.sliding_bytes_per_token;
  const double at_once = options.engine == Engine::kLlamaCpp ? static_cast<double>(options.n_parallel) : p.budget.max_concurrency;
  p.fits = p.budget.starts && at_once + 1e-9 >= static_cast<double>(job.batch);
  p.command_line = model::EngineCommandLine(options, p.budget, model_name, p.tensor_parallel, p.pipeline_parallel);
  p.log_lines = EngineLogLines(options, p.budget, shape.num_layers);
  return p;
}

Result<LogComparison> ReadLogComparison(const std::string& path) {
  auto text = core::ReadTextFile(path, kMaxCaptureBytes);
  if (!text.ok()) return text.status().WithContext("--from-log");
  LogComparison c;
  c.file = path;
  c.facts = telemetry::ReadEngineLog(*text);
  if (c.facts.engine.empty()) {
    // A log that stopped before start-up (weights that did not fit, a traceback) is still an
    // error text: explain reads it.
    return Status::InvalidArgument(fmt::format("--from-log {}: no start-up line of vLLM, SGLang, TensorRT-LLM or llama.cpp found", path),
                                   fmt::format("to read the errors in it: gpuprobe explain --from {}", path))
        .WithKeys("error.engine.log_unknown", {{"file", path}}, "error.engine.log_unknown.hint");
  }
  c.checks = telemetry::CheckEngineLog(c.facts);
  return c;
}

void FlagsFromLog(const telemetry::EngineLogFacts& f, EngineFlags* flags, std::int64_t* seq, bool seq_given, int* tp) {
  if (flags->engine.empty()) flags->engine = f.engine;
  if (f.engine == "vllm" && f.generation == "v0" && flags->engine_version.empty()) flags->vllm_v0 = true;
  if (!flags->gpu_memory_utilization && f.gpu_memory_utilization) flags->gpu_memory_utilization = f.gpu_memory_utilization;
  if (!flags->max_model_len && !seq_given && f.max_model_len) *seq = *f.max_model_len;
  if (f.tensor_parallel && *tp == 1) *tp = static_cast<int>(*f.tensor_parallel);
  if (f.engine == "llama.cpp" && f.n_ctx && !flags->n_ctx) flags->n_ctx = f.n_ctx;
}

std::optional<EngineGpu> GpuFromLog(const telemetry::EngineLogFacts& f, const std::string& file) {
  if (!f.total_bytes) return std::nullopt;
  EngineGpu g;
  g.name = "GPU";
  g.from_driver = true;
  g.source = file;
  g.total_bytes = *f.total_bytes;
  g.reported_total_bytes = *f.total_bytes;
  g.free_bytes = f.free_bytes;
  return g;
}

bool LogKvGap::Large() const { return std::fabs(share) > 0.10; }

std::optional<LogKvGap> KvGapFromLog(const telemetry::EngineLogFacts& f, const PlanEngine& predicted) {
  const double have = predicted.budget.kv_cache_bytes;
  if (have <= 0 || predicted.kv_bytes_per_token <= 0) return std::nullopt;
  double logged = f.kv_cache_bytes.value_or(0);
  if (logged <= 0 && f.kv_tokens && *f.kv_tokens > 0) logged = static_cast<double>(*f.kv_tokens) * predicted.kv_bytes_per_token;
  if (logged <= 0) return std::nullopt;
  return LogKvGap{logged, have, (have - logged) / logged};
}

std::optional<double> LogKvCorrection(const telemetry::EngineLogFacts& f, const PlanEngine& predicted) {
  auto gap = KvGapFromLog(f, predicted);
  if (!gap || !gap->Large()) return std::nullopt;
  return gap->predicted_bytes - gap->logged_bytes;
}

std::vector<LogAdvice> AdviseFromLog(const telemetry::EngineLogFacts& f, const PlanEngine* predicted, std::int64_t wanted_len) {
  std::vector<LogAdvice> out;
  const model::EngineBudget* b = predicted ? &predicted->budget : nullptr;
  const double total = f.total_bytes.value_or(b ? b->total_bytes : 0);
  const double util = f.gpu_memory_utilization.value_or(predicted ? predicted->options.gpu_memory_utilization.value_or(0.9) : 0.9);
  // KV bytes per token: the log's own (GiB over tokens), else the prediction's.
  double per_token = 0;
  if (f.kv_cache_bytes && f.kv_tokens && *f.kv_tokens > 0) per_token = *f.kv_cache_bytes / static_cast<double>(*f.kv_tokens);
  if (per_token <= 0 && predicted) per_token = predicted->kv_bytes_per_token;
  // The KV cache the engine had: the log's bytes, else its tokens at those bytes per token (a
  // log that prints only "tokens that can be stored"), else the prediction's.
  double kv = f.kv_cache_bytes.value_or(0);
  if (kv <= 0 && f.kv_tokens && *f.kv_tokens > 0 && per_token > 0) kv = static_cast<double>(*f.kv_tokens) * per_token;
  if (kv <= 0 && b) kv = b->kv_cache_bytes;
  const std::int64_t block = f.block_size.value_or(16);
  auto round_up = [](double x) { return std::ceil(x * 100.0 - 1e-9) / 100.0; };
  // The length asked for: the user's, else the one the log refused.
  std::int64_t len = wanted_len > 0 ? wanted_len : f.max_model_len.value_or(b ? b->max_model_len : 0);
  const bool too_long = f.failure == "max_len_exceeds_kv" || (wanted_len > 0 && f.kv_tokens && wanted_len > *f.kv_tokens);
  if (too_long && len > 0) {
    // The longest that fits now: the engine's own estimate, else its tokens, in whole blocks.
    std::int64_t fits = f.estimated_max_len.value_or(0);
    if (fits <= 0 && f.kv_tokens) fits = *f.kv_tokens;
    if (fits <= 0 && f.gpu_blocks) fits = *f.gpu_blocks * block;
    if (fits <= 0 && per_token > 0) fits = static_cast<std::int64_t>(kv / per_token);
    fits = fits / block * block;
    if (fits > 0) out.push_back({"--max-model-len", std::to_string(fits), "len"});
    const double needed = f.kv_needed_bytes.value_or(per_token * static_cast<double>(len));
    if (total > 0 && needed > 0) {
      const double u = round_up(util + (needed - kv) / total);
      if (u > util && u <= 0.98) out.push_back({"--gpu-memory-utilization", fmt::format("{:.2f}", u), "util"});
      if (needed / 2 <= kv) out.push_back({"--kv-cache-dtype", "fp8", "fp8"});
    }
  } else if (f.failure == "no_kv_memory") {
    // Everything but the KV cache, plus one request's KV, as a share of the total.
    double fixed = f.weights_bytes.value_or(b ? b->weights_bytes : 0) + f.non_torch_bytes.value_or(b ? b->non_torch_bytes : 0) +
                   f.activation_peak_bytes.value_or(b ? b->activation_peak_bytes : 0);
    double one = b ? b->kv_bytes_per_request : per_token * static_cast<double>(len);
    if (fixed > 0 && total > 0) {
      const double u = round_up((fixed + one) / total);
      if (u <= 0.98) out.push_back({"--gpu-memory-utilization", fmt::format("{:.2f}", u), "util"});
    }
    if (out.empty()) {
      // A log without the GPU's size or the weights' (vLLM 0.2-0.4 printed only the block
      // counts): no value can be computed, but the flags and their direction are known.
      out.push_back({"--gpu-memory-utilization", fmt::format("{:.2f}", util), "util_up"});
      if (f.max_model_len && *f.max_model_len > 0) out.push_back({"--max-model-len", std::to_string(*f.max_model_len), "len_down"});
    }
  } else if (f.failure == "free_below_requested" && f.free_bytes && total > 0) {
    out.push_back({"--gpu-memory-utilization", fmt::format("{:.2f}", std::floor(*f.free_bytes / total * 100.0) / 100.0), "free"});
  }
  return out;
}

}  // namespace gpuprobe::app
