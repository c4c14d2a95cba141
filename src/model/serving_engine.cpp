#include "model/serving_engine.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

namespace gpuprobe::model {
namespace {

using core::Result;
using core::Status;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// vLLM's non-torch memory (CUDA context excluded, cuBLAS and NCCL workspaces, custom
// all-reduce buffers): 0.35 GiB on one GPU in the V1 start-up log quoted in docs/plan.md,
// 0.15-0.2 GiB in two V0 logs, 1.79 GiB in one; more once a split adds NCCL and custom
// all-reduce buffers. Estimates, said as such.
constexpr double kNonTorchOneGpu = 0.35 * kGiB;
constexpr double kNonTorchSplit = 1.0 * kGiB;
// A CUDA context and the allocator's first pool before an engine measures free memory
// (SGLang, TensorRT-LLM, llama.cpp read free memory after it exists).
constexpr double kCudaContext = 0.5 * kGiB;
// The sampler of the profiling run: fp32 logits of every sequence plus its softmax, log-softmax
// and sorting copies (4 such buffers reproduce the activation peaks of the two vLLM logs with
// full figures: docs/plan.md, 'vLLM's activation peak').
constexpr double kSamplerCopies = 4;
// vLLM 0.8's V1 profiling run (vllm/v1/worker/gpu_model_runner.py, profile_run, from PR #13594)
// samples with top-k and top-p and passes the prompt token ids as a tensor shaped like the
// logits: per vocabulary entry and sequence, fp32 logits (4 bytes), int64 prompt ids (8), the
// sort's values and int64 indices (4 + 8), softmax and cumulative sum (4 + 4).
constexpr double kSamplerBytesV1Early = 32;

double RoundUp(double tokens, std::int64_t block) {
  double b = static_cast<double>(std::max<std::int64_t>(block, 1));
  return std::ceil(tokens / b) * b;
}

// The activation peak of a forward pass over `tokens` tokens (per rank): the MLP's widest
// moment holds its gated input, its activation and the residual stream at 16 bits; MoE layers
// hold top-k copies of their expert inputs (fused MoE's intermediate caches).
double ForwardPeakBytes(const ModelShape& s, double tokens, int tp) {
  const double h = static_cast<double>(s.hidden_size), f = static_cast<double>(s.intermediate_size);
  const double gate = s.gated_mlp ? 2 : 1;
  const double copies = s.num_experts > 0 ? static_cast<double>(std::max<std::int64_t>(1, s.experts_per_token)) : 1;
  const double per_token = 2.0 * (copies * (gate * f + f) / std::max(1, tp) + 2.0 * h);
  return tokens * per_token;
}

double SamplerPeakBytes(const ModelShape& s, double sequences, bool v1_early) {
  return sequences * static_cast<double>(s.vocab_size) * (v1_early ? kSamplerBytesV1Early : 4.0 * kSamplerCopies);
}

// The longest request the KV budget holds (binary search over the per-request bytes).
std::int64_t LongestThatFits(const KvFootprint& k, double budget, std::int64_t block, std::int64_t cap) {
  auto bytes = [&](std::int64_t len) {
    double tokens = static_cast<double>(len);
    double sliding = k.window > 0 ? std::min(tokens, static_cast<double>(k.window)) : tokens;
    return k.full_bytes_per_token * RoundUp(tokens, block) + k.sliding_bytes_per_token * RoundUp(sliding, block) +
           k.fixed_bytes_per_request;
  };
  if (budget <= 0 || bytes(1) > budget) return 0;
  std::int64_t lo = 1, hi = std::max<std::int64_t>(cap, 1);
  if (bytes(hi) <= budget) return hi;
  while (lo < hi) {
    std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (bytes(mid) <= budget) lo = mid; else hi = mid - 1;
  }
  return lo;
}

double RequestBytes(const KvFootprint& k, std::int64_t len, std::int64_t block) {
  double tokens = static_cast<double>(len);
  double sliding = k.window > 0 ? std::min(tokens, static_cast<double>(k.window)) : tokens;
  return k.full_bytes_per_token * RoundUp(tokens, block) + k.sliding_bytes_per_token * RoundUp(sliding, block) +
         k.fixed_bytes_per_request;
}

Status CheckFraction(std::optional<double> v, const char* flag) {
  if (v && !(*v > 0 && *v <= 1)) {
    return Status::InvalidArgument(fmt::format("{} must be above 0 and at most 1, got {}", flag, *v))
        .WithKeys("error.engine.fraction", {{"flag", flag}, {"value", fmt::format("{}", *v)}});
  }
  return Status::Ok();
}

// The served length: the user's, else the config's own maximum (vLLM's derived max_model_len).
std::int64_t ServedLength(const ModelShape& s, const EngineOptions& o, EngineBudget& b) {
  if (o.max_model_len && *o.max_model_len > 0) return *o.max_model_len;
  if (s.max_position_embeddings > 0) {
    b.assumptions.push_back(Say("plan.engine.assume.max_len_config").Int("tokens", static_cast<double>(s.max_position_embeddings)));
    return s.max_position_embeddings;
  }
  b.assumptions.push_back(Say("plan.engine.assume.max_len_default").Int("tokens", 4096));
  return 4096;
}

void VllmDefaults(const EngineOptions& o, const GpuMemory& gpu, std::int64_t max_len, EngineBudget& b) {
  // vllm/engine/arg_utils.py: V1 picks the profiling batch by GPU size and entry point; V0
  // profiles a whole max_model_len prompt unless chunked prefill is on (by default above 32k).
  // Since PR #17885 (vLLM 0.9) an A100 keeps the small defaults even with 80 GB ("setting large
  // max_num_batched_tokens for A100 reduces throughput"); 0.8's V1 ran 1024 sequences on every
  // GPU (raised from V0's 256: vLLM PR #15357's discussion).
  std::string name;
  for (char c : gpu.name) name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const bool big = gpu.total_bytes >= 70.0 * kGiB && (o.vllm_v1_early || name.find("a100") == std::string::npos);
  if (o.max_num_batched_tokens) {
    b.max_num_batched_tokens = *o.max_num_batched_tokens;
  } else if (o.vllm_v0) {
    b.max_num_batched_tokens = max_len > 32768 ? 2048 : std::max<std::int64_t>(max_len, 2048);
  } else {
    b.max_num_batched_tokens = o.api_server ? (big ? 8192 : 2048) : (big ? 16384 : 8192);
  }
  if (o.max_num_seqs) {
    b.max_num_seqs = *o.max_num_seqs;
  } else {
    b.max_num_seqs = !o.vllm_v0 && (big || o.vllm_v1_early) ? 1024 : 256;
  }
  if (!o.max_num_batched_tokens || !o.max_num_seqs) {
    b.assumptions.push_back(Say(o.vllm_v0 ? "plan.engine.assume.vllm_v0_batch" : "plan.engine.assume.vllm_batch")
                                .Int("tokens", static_cast<double>(b.max_num_batched_tokens))
                                .Int("seqs", static_cast<double>(b.max_num_seqs)));
  }
}

Result<EngineBudget> Vllm(const ModelShape& s, double weights, int tp, int pp, const GpuMemory& gpu,
                          const EngineOptions& o, const KvFootprint& kv) {
  EngineBudget b;
  b.engine = Engine::kVllm;
  b.block_size = o.block_size;
  b.total_bytes = gpu.total_bytes;
  const double util = o.gpu_memory_utilization.value_or(0.9);
  b.requested_bytes = util * gpu.total_bytes;
  b.weights_bytes = weights;
  b.non_torch_bytes = tp * pp > 1 ? kNonTorchSplit : kNonTorchOneGpu;
  b.assumptions.push_back(Say("plan.engine.assume.non_torch").Bytes("bytes", b.non_torch_bytes));
  const bool auto_len = o.max_model_len && *o.max_model_len == -1;
  // -1: the longest that fits, up to the config's own limit (none known: up to 2^24 tokens).
  const std::int64_t limit = s.max_position_embeddings > 0 ? s.max_position_embeddings : (std::int64_t{1} << 24);
  std::int64_t max_len = auto_len ? limit : ServedLength(s, o, b);
  VllmDefaults(o, gpu, max_len, b);
  const double tokens = static_cast<double>(b.max_num_batched_tokens);
  const bool v1_early = o.vllm_v1_early && !o.vllm_v0;
  const double sampled = static_cast<double>(std::min<std::int64_t>(b.max_num_seqs, b.max_num_batched_tokens));
  b.activation_peak_bytes = ForwardPeakBytes(s, tokens, tp) + SamplerPeakBytes(s, sampled, v1_early);
  if (v1_early) {
    b.assumptions.push_back(Say("plan.engine.assume.vllm_08_sampler")
                                .Int("seqs", sampled)
                                .Bytes("bytes", SamplerPeakBytes(s, sampled, true)));
  }
  if (!o.enforce_eager) b.assumptions.push_back(Say("plan.engine.assume.cuda_graphs"));
  b.kv_cache_bytes = b.requested_bytes - b.weights_bytes - b.non_torch_bytes - b.activation_peak_bytes - b.cuda_graph_bytes;
  if (gpu.free_bytes && *gpu.free_bytes < b.requested_bytes && !o.vllm_v0) {
    b.failure = "free_below_requested";
  }
  const double per_token = kv.full_bytes_per_token + kv.sliding_bytes_per_token;
  if (b.kv_cache_bytes > 0 && per_token > 0) {
    b.num_blocks = static_cast<std::int64_t>(std::floor(b.kv_cache_bytes / (per_token * static_cast<double>(o.block_size))));
    b.kv_tokens = b.num_blocks * o.block_size;
  }
  b.longest_that_fits = LongestThatFits(kv, b.kv_cache_bytes, o.block_size, std::max<std::int64_t>(max_len, 1) * 64);
  if (auto_len) max_len = std::min(limit, b.longest_that_fits);
  b.max_model_len = max_len;
  b.kv_bytes_per_request = RequestBytes(kv, max_len, o.block_size);
  if (b.kv_bytes_per_request > 0 && b.kv_cache_bytes > 0) {
    // V1 reports blocks over the blocks one request needs; with only full attention that is
    // tokens / max_model_len.
    b.max_concurrency = kv.sliding_bytes_per_token == 0 && kv.fixed_bytes_per_request == 0 && max_len > 0
                            ? static_cast<double>(b.kv_tokens) / static_cast<double>(max_len)
                            : b.kv_cache_bytes / b.kv_bytes_per_request;
  }
  if (b.failure.empty()) {
    if (b.weights_bytes > b.requested_bytes) {
      b.failure = "weights_do_not_fit";
    } else if (b.kv_cache_bytes <= 0 || b.num_blocks <= 0) {
      b.failure = "no_kv_memory";
    } else if (b.kv_bytes_per_request > b.kv_cache_bytes || max_len <= 0) {
      b.failure = "max_len_exceeds_kv";
    }
  }
  b.starts = b.failure.empty();
  return b;
}

Result<EngineBudget> Sglang(const ModelShape& s, double weights, int tp, const GpuMemory& gpu, const EngineOptions& o,
                            const KvFootprint& kv) {
  EngineBudget b;
  b.engine = Engine::kSglang;
  b.block_size = 1;  // SGLang's token-granular pool
  // sglang/srt/server_args.py: the static fraction by TP size (0.88 on one GPU ... 0.79 at 16).
  double fraction = o.mem_fraction_static.value_or(tp >= 16 ? 0.79 : tp >= 8 ? 0.81 : tp >= 4 ? 0.85 : tp >= 2 ? 0.87 : 0.88);
  if (!o.mem_fraction_static) b.assumptions.push_back(Say("plan.engine.assume.sglang_fraction").Num("fraction", fraction));
  // The "total" SGLang budgets against is the free memory once its context exists.
  double free_at_start = gpu.free_bytes.value_or(gpu.total_bytes) - kCudaContext;
  b.assumptions.push_back(Say("plan.engine.assume.context").Bytes("bytes", kCudaContext));
  b.total_bytes = free_at_start;
  b.requested_bytes = fraction * free_at_start;
  b.weights_bytes = weights;
  // sglang model_runner.profile_max_num_token: available after weights minus total x (1 - fraction).
  b.kv_cache_bytes = (free_at_start - weights) - free_at_start * (1.0 - fraction);
  double cell = kv.full_bytes_per_token + kv.sliding_bytes_per_token;
  if (b.kv_cache_bytes > 0 && cell > 0) b.kv_tokens = static_cast<std::int64_t>(std::floor(b.kv_cache_bytes / cell));
  b.num_blocks = b.kv_tokens;
  b.max_model_len = ServedLength(s, o, b);
  b.kv_bytes_per_request = RequestBytes(kv, b.max_model_len, 1);
  if (b.kv_bytes_per_request > 0 && b.kv_cache_bytes > 0) b.max_concurrency = b.kv_cache_bytes / b.kv_bytes_per_request;
  b.longest_that_fits = LongestThatFits(kv, b.kv_cache_bytes, 1, std::max<std::int64_t>(b.max_model_len, 1) * 64);
  if (weights > free_at_start) b.failure = "weights_do_not_fit";
  else if (b.kv_tokens <= 0) b.failure = "no_kv_memory";
  b.starts = b.failure.empty();
  return b;
}

Result<EngineBudget> Trtllm(const ModelShape& s, double weights, int tp, const GpuMemory& gpu, const EngineOptions& o,
                            const KvFootprint& kv) {
  EngineBudget b;
  b.engine = Engine::kTrtllm;
  b.block_size = 32;  // tokens_per_block's default
  double fraction = o.kv_cache_free_fraction.value_or(0.9);
  if (!o.kv_cache_free_fraction) b.assumptions.push_back(Say("plan.engine.assume.trtllm_fraction").Num("fraction", fraction));
  b.total_bytes = gpu.free_bytes.value_or(gpu.total_bytes);
  b.weights_bytes = weights;
  b.non_torch_bytes = kCudaContext;
  b.max_num_batched_tokens = o.max_num_batched_tokens.value_or(8192);
  b.activation_peak_bytes = ForwardPeakBytes(s, static_cast<double>(b.max_num_batched_tokens), tp);
  // The KV cache takes its fraction of the memory free after the engine (weights, activation
  // buffers) loaded.
  double free_after = b.total_bytes - weights - b.non_torch_bytes - b.activation_peak_bytes;
  b.requested_bytes = free_after;
  b.kv_cache_bytes = fraction * free_after;
  double cell = kv.full_bytes_per_token + kv.sliding_bytes_per_token;
  if (b.kv_cache_bytes > 0 && cell > 0) {
    b.num_blocks = static_cast<std::int64_t>(std::floor(b.kv_cache_bytes / (cell * static_cast<double>(b.block_size))));
    b.kv_tokens = b.num_blocks * b.block_size;
  }
  b.max_model_len = ServedLength(s, o, b);
  b.kv_bytes_per_request = RequestBytes(kv, b.max_model_len, b.block_size);
  if (b.kv_bytes_per_request > 0 && b.kv_cache_bytes > 0) b.max_concurrency = b.kv_cache_bytes / b.kv_bytes_per_request;
  b.longest_that_fits = LongestThatFits(kv, b.kv_cache_bytes, b.block_size, std::max<std::int64_t>(b.max_model_len, 1) * 64);
  if (free_after <= 0) b.failure = "weights_do_not_fit";
  else if (b.num_blocks <= 0) b.failure = "no_kv_memory";
  b.starts = b.failure.empty();
  return b;
}

Result<EngineBudget> LlamaCpp(const ModelShape& s, double weights, const GpuMemory& gpu, const EngineOptions& o,
                              const KvFootprint& kv) {
  EngineBudget b;
  b.engine = Engine::kLlamaCpp;
  b.block_size = 1;
  const std::int64_t layers = std::max<std::int64_t>(1, s.num_layers);
  b.gpu_layers = std::clamp<std::int64_t>(o.n_gpu_layers.value_or(layers), 0, layers);
  std::int64_t n_ctx = o.n_ctx.value_or(4096);
  if (!o.n_ctx) b.assumptions.push_back(Say("plan.engine.assume.llamacpp_ctx").Int("tokens", 4096));
  b.max_model_len = n_ctx / std::max<std::int64_t>(1, o.n_parallel);  // each slot's share
  b.total_bytes = gpu.free_bytes.value_or(gpu.total_bytes) - kCudaContext;
  double share = static_cast<double>(b.gpu_layers) / static_cast<double>(layers);
  // The KV buffer: n_ctx cells for every layer kept on the GPU, at the cache type's size.
  double per_token = kv.full_bytes_per_token + kv.sliding_bytes_per_token;
  double kv_all = per_token * static_cast<double>(n_ctx);
  b.kv_cache_bytes = kv_all * share;
  b.weights_bytes = weights * share;
  b.host_bytes = weights * (1 - share) + kv_all * (1 - share);
  // The compute buffer: a 512-token micro-batch's logits and activations (llama.cpp's n_ubatch).
  b.activation_peak_bytes = 512.0 * (static_cast<double>(s.vocab_size) + 4.0 * static_cast<double>(s.hidden_size)) * 4.0;
  b.requested_bytes = b.weights_bytes + b.kv_cache_bytes + b.activation_peak_bytes;
  b.kv_tokens = n_ctx;
  b.kv_bytes_per_request = per_token * static_cast<double>(b.max_model_len);
  b.max_concurrency = static_cast<double>(o.n_parallel);
  double room = b.total_bytes - b.weights_bytes - b.activation_peak_bytes;
  b.longest_that_fits = share > 0 && per_token > 0 ? static_cast<std::int64_t>(std::max(0.0, room / (per_token * share))) : 0;
  if (b.requested_bytes > b.total_bytes) b.failure = b.weights_bytes > b.total_bytes ? "weights_do_not_fit" : "no_kv_memory";
  b.starts = b.failure.empty();
  return b;
}

Result<EngineBudget> Transformers(const ModelShape& s, double weights, int tp, const GpuMemory& gpu,
                                  const EngineOptions& o, const KvFootprint& kv) {
  // Plain generate(): a dynamic cache that grows with the tokens, and a whole prompt's
  // prefill activations at once; 90% of the memory as the plan's headroom.
  EngineBudget b;
  b.engine = Engine::kTransformers;
  b.block_size = 1;
  b.total_bytes = gpu.free_bytes.value_or(gpu.total_bytes);
  b.requested_bytes = 0.9 * b.total_bytes;
  b.weights_bytes = weights;
  b.non_torch_bytes = kCudaContext;
  b.max_model_len = ServedLength(s, o, b);
  b.activation_peak_bytes = ForwardPeakBytes(s, static_cast<double>(b.max_model_len), tp) + SamplerPeakBytes(s, 1, false) / kSamplerCopies;
  b.kv_cache_bytes = b.requested_bytes - weights - b.non_torch_bytes - b.activation_peak_bytes;
  double cell = kv.full_bytes_per_token + kv.sliding_bytes_per_token;
  if (b.kv_cache_bytes > 0 && cell > 0) b.kv_tokens = static_cast<std::int64_t>(std::floor(b.kv_cache_bytes / cell));
  b.kv_bytes_per_request = RequestBytes(kv, b.max_model_len, 1);
  if (b.kv_bytes_per_request > 0 && b.kv_cache_bytes > 0) b.max_concurrency = b.kv_cache_bytes / b.kv_bytes_per_request;
  b.longest_that_fits = LongestThatFits(kv, b.kv_cache_bytes, 1, std::max<std::int64_t>(b.max_model_len, 1) * 64);
  if (weights > b.requested_bytes) b.failure = "weights_do_not_fit";
  else if (b.kv_bytes_per_request > b.kv_cache_bytes) b.failure = "max_len_exceeds_kv";
  b.starts = b.failure.empty();
  return b;
}

}  // namespace

const char* EngineName(Engine engine) {
  switch (engine) {
    case Engine::kVllm: return "vllm";
    case Engine::kSglang: return "sglang";
    case Engine::kTrtllm: return "trtllm";
    case Engine::kLlamaCpp: return "llama.cpp";
    case Engine::kTransformers: return "transformers";
  }
  return "?";
}

Result<Engine> ParseEngine(const std::string& name) {
  std::string n;
  for (char c : name) n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (n == "vllm" || n == "vllm-v0" || n == "vllm-v1") return Engine::kVllm;
  if (n == "sglang") return Engine::kSglang;
  if (n == "trtllm" || n == "tensorrt-llm" || n == "tensorrt_llm") return Engine::kTrtllm;
  if (n == "llama.cpp" || n == "llamacpp" || n == "llama-cpp" || n == "ollama") return Engine::kLlamaCpp;
  if (n == "transformers" || n == "hf") return Engine::kTransformers;
  return Status::InvalidArgument(fmt::format("--engine must be vllm, sglang, trtllm, llama.cpp or transformers, got '{}'", name))
      .WithKeys("error.engine.unknown", {{"name", name}});
}

KvFootprint KvFootprintOf(const ModelShape& shape, double e, int tp, int pp) {
  KvFootprint k;
  const double ranks = static_cast<double>(std::max(1, tp)) * std::max(1, pp);
  // Bytes the busiest rank keeps: its share of the heads (at least one, vLLM's replication
  // rule), the whole MLA latent, and 1/pp of the layers.
  auto per_rank = [&](const LayerShape& l) {
    switch (l.mixer) {
      case MixerKind::kFullAttention:
      case MixerKind::kSlidingAttention:
        return std::max(1.0, static_cast<double>(l.kv_heads) / std::max(1, tp)) * static_cast<double>(l.k_head_dim + l.v_head_dim) * e;
      case MixerKind::kMla:
        return static_cast<double>(l.latent_dim) * e;
      default:
        return 0.0;
    }
  };
  if (shape.layers.empty()) {
    double heads = std::max(1.0, static_cast<double>(shape.num_kv_heads) / std::max(1, tp));
    k.full_bytes_per_token = static_cast<double>(shape.num_layers) * heads * 2.0 * static_cast<double>(shape.head_dim) * e /
                             std::max(1, pp);
    k.attention_layers = static_cast<int>(shape.num_layers);
    return k;
  }
  for (const LayerShape& l : shape.layers) {
    double bytes = per_rank(l) / std::max(1, pp);
    if (l.mixer == MixerKind::kSlidingAttention && l.window > 0) {
      k.sliding_bytes_per_token += bytes;
      k.window = k.window == 0 ? l.window : std::min(k.window, l.window);
    } else {
      k.full_bytes_per_token += bytes;
    }
    if (bytes > 0) ++k.attention_layers;
    // SSM state at 16 bits (the model's dtype, vLLM's mamba_ssm_cache_dtype=auto).
    k.fixed_bytes_per_request += (l.ssm_state_elements * 2.0 + l.cross_kv_elements * e) / ranks;
  }
  return k;
}

Result<EngineBudget> PlanEngineBudget(const ModelShape& shape, double weights, int tp, int pp, const GpuMemory& gpu,
                                      const EngineOptions& o) {
  GPUPROBE_RETURN_IF_ERROR(CheckFraction(o.gpu_memory_utilization, "--gpu-memory-utilization"));
  GPUPROBE_RETURN_IF_ERROR(CheckFraction(o.mem_fraction_static, "--mem-fraction-static"));
  GPUPROBE_RETURN_IF_ERROR(CheckFraction(o.kv_cache_free_fraction, "--kv-cache-free-gpu-mem-fraction"));
  if (o.block_size <= 0 || (o.block_size & (o.block_size - 1)) != 0 || o.block_size > 1024) {
    return Status::InvalidArgument(fmt::format("--block-size must be a power of two up to 1024, got {}", o.block_size))
        .WithKeys("error.engine.block_size", {{"value", std::to_string(o.block_size)}});
  }
  if (gpu.total_bytes <= 0) return Status::InvalidArgument("the GPU's memory is not known").WithKeys("error.engine.no_memory");
  KvFootprint kv = KvFootprintOf(shape, o.kv_bytes_per_element, tp, pp);
  Result<EngineBudget> b = Status::Internal("engine");
  switch (o.engine) {
    case Engine::kVllm: b = Vllm(shape, weights, tp, pp, gpu, o, kv); break;
    case Engine::kSglang: b = Sglang(shape, weights, tp, gpu, o, kv); break;
    case Engine::kTrtllm: b = Trtllm(shape, weights, tp, gpu, o, kv); break;
    case Engine::kLlamaCpp: b = LlamaCpp(shape, weights, gpu, o, kv); break;
    case Engine::kTransformers: b = Transformers(shape, weights, tp, gpu, o, kv); break;
  }
  if (b.ok() && !gpu.from_driver) b->assumptions.insert(b->assumptions.begin(), Say("plan.engine.assume.spec_memory"));
  return b;
}

std::string EngineCommandLine(const EngineOptions& o, const EngineBudget& b, const std::string& model, int tp, int pp) {
  std::string cmd;
  auto kv_dtype = [&]() { return o.kv_dtype_name.empty() || o.kv_dtype_name == "auto" ? std::string() : o.kv_dtype_name; };
  switch (o.engine) {
    case Engine::kVllm:
      cmd = fmt::format("vllm serve {} --max-model-len {} --gpu-memory-utilization {}", model,
                        b.max_model_len, o.gpu_memory_utilization.value_or(0.9));
      if (tp > 1) cmd += fmt::format(" --tensor-parallel-size {}", tp);
      if (pp > 1) cmd += fmt::format(" --pipeline-parallel-size {}", pp);
      if (!kv_dtype().empty()) cmd += " --kv-cache-dtype " + kv_dtype();
      if (o.max_num_batched_tokens) cmd += fmt::format(" --max-num-batched-tokens {}", *o.max_num_batched_tokens);
      if (o.max_num_seqs) cmd += fmt::format(" --max-num-seqs {}", *o.max_num_seqs);
      if (o.block_size != 16) cmd += fmt::format(" --block-size {}", o.block_size);
      if (o.enforce_eager) cmd += " --enforce-eager";
      if (o.vllm_v0) cmd = "VLLM_USE_V1=0 " + cmd;
      break;
    case Engine::kSglang:
      cmd = fmt::format("python -m sglang.launch_server --model-path {} --context-length {}", model, b.max_model_len);
      if (o.mem_fraction_static) cmd += fmt::format(" --mem-fraction-static {}", *o.mem_fraction_static);
      if (tp > 1) cmd += fmt::format(" --tp {}", tp);
      if (!kv_dtype().empty()) cmd += " --kv-cache-dtype " + kv_dtype();
      break;
    case Engine::kTrtllm:
      cmd = fmt::format("trtllm-serve {} --max_seq_len {} --kv_cache_free_gpu_memory_fraction {}", model, b.max_model_len,
                        o.kv_cache_free_fraction.value_or(0.9));
      if (tp > 1) cmd += fmt::format(" --tp_size {}", tp);
      if (pp > 1) cmd += fmt::format(" --pp_size {}", pp);
      break;
    case Engine::kLlamaCpp:
      cmd = fmt::format("llama-server -m {} -c {} -ngl {}", model, b.kv_tokens, b.gpu_layers);
      if (o.n_parallel > 1) cmd += fmt::format(" -np {}", o.n_parallel);
      if (!o.cache_type_k.empty() || !o.cache_type_v.empty()) {
        if (o.cache_type_k != "f16" && !o.cache_type_k.empty()) cmd += " --cache-type-k " + o.cache_type_k;
        if (o.cache_type_v != "f16" && !o.cache_type_v.empty()) cmd += " --cache-type-v " + o.cache_type_v;
      } else if (!kv_dtype().empty()) {
        cmd += " --cache-type-k " + kv_dtype() + " --cache-type-v " + kv_dtype();
      }
      break;
    case Engine::kTransformers:
      cmd = fmt::format("AutoModelForCausalLM.from_pretrained(\"{}\", device_map=\"auto\")", model);
      break;
  }
  return cmd;
}

}  // namespace gpuprobe::model
