// Serving engines' own memory budgets: how vLLM (V0 and V1), SGLang, TensorRT-LLM, llama.cpp
// and plain transformers decide how much KV cache a GPU gets, written down from their
// documented rules and source (docs/plan.md, 'Serving engines'), so `plan --engine` predicts
// the lines an engine logs at start-up: weights, non-torch memory, the activation peak of the
// profiling run, the KV cache in GiB and in tokens, the maximum concurrency, and whether it
// starts at all. The inputs are the model's own figures (weights per GPU from the memory
// plan, KV bytes per token per layer from the shape) and the GPU's memory as the driver
// reports it, so one truth feeds every verb.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "model/model_shape.h"
#include "model/phrase.h"

namespace gpuprobe::model {

enum class Engine { kVllm, kSglang, kTrtllm, kLlamaCpp, kTransformers };

/// "vllm", "sglang", "trtllm", "llama.cpp", "transformers".
const char* EngineName(Engine engine);
/// Parses a name (also "vllm-v0", "tensorrt-llm", "llamacpp", "hf"). InvalidArgument listing them.
core::Result<Engine> ParseEngine(const std::string& name);

/// The flags a user gives the engine; unset means the engine's own default for its version.
struct EngineOptions {
  Engine engine = Engine::kVllm;
  bool vllm_v0 = false;                        ///< the V0 engine (before 0.8, or VLLM_USE_V1=0)
  /// V1 as released in 0.8.x: 1024 sequences by default on every GPU, and a profiling run
  /// whose sampler also holds the prompt token ids (see serving_engine.cpp).
  bool vllm_v1_early = false;
  /// The engine's defaults depend on how it is started: `vllm serve` (true) or the Python
  /// LLM class (false: larger profiling batches).
  bool api_server = true;
  std::optional<double> gpu_memory_utilization;  ///< vLLM; default 0.9
  std::optional<std::int64_t> max_model_len;     ///< tokens; -1: the longest that fits
  std::optional<std::int64_t> max_num_batched_tokens;
  std::optional<std::int64_t> max_num_seqs;
  std::int64_t block_size = 16;                  ///< vLLM's KV block (tokens)
  bool enforce_eager = false;                    ///< no CUDA graphs
  std::optional<double> mem_fraction_static;     ///< SGLang
  std::optional<double> kv_cache_free_fraction;  ///< TensorRT-LLM; default 0.9
  std::optional<std::int64_t> n_ctx;             ///< llama.cpp context (all slots together)
  std::int64_t n_parallel = 1;                   ///< llama.cpp slots
  std::optional<std::int64_t> n_gpu_layers;      ///< llama.cpp -ngl; default: all
  double kv_bytes_per_element = 2;               ///< the cache dtype's bytes (fp8 = 1)
  std::string kv_dtype_name = "auto";            ///< as the engine's flag spells it
  std::string cache_type_k, cache_type_v;        ///< llama.cpp's --cache-type-k/-v (empty: f16)
};

/// The GPU's memory, as the driver reports it (a capture or NVML) or as the spec sheet says.
struct GpuMemory {
  double total_bytes = 0;            ///< per GPU
  std::optional<double> free_bytes;  ///< per GPU at start, when known (other processes' use)
  bool from_driver = false;          ///< false: the spec sheet's estimate
  std::string name;                  ///< the GPU's name where known (vLLM's defaults test it)
};

/// The engine's own budget, one figure per line it logs. Bytes are per GPU (the busiest rank).
struct EngineBudget {
  Engine engine = Engine::kVllm;
  double total_bytes = 0;            ///< what the engine sees as the GPU's memory
  double requested_bytes = 0;        ///< vLLM: utilisation x total; SGLang: static fraction x total
  double weights_bytes = 0;
  double non_torch_bytes = 0;        ///< CUDA context, cuBLAS/NCCL workspaces (vLLM's term)
  double activation_peak_bytes = 0;  ///< the profiling run's peak
  double cuda_graph_bytes = 0;       ///< charged before the KV cache only where the version does
  double kv_cache_bytes = 0;         ///< what is left for the KV cache (negative: nothing)
  std::int64_t max_num_batched_tokens = 0;
  std::int64_t max_num_seqs = 0;
  std::int64_t block_size = 16;
  std::int64_t num_blocks = 0;
  std::int64_t kv_tokens = 0;        ///< "GPU KV cache size: N tokens" (per request group)
  std::int64_t max_model_len = 0;    ///< as served (after -1 / the config's default)
  double kv_bytes_per_request = 0;   ///< one request of max_model_len tokens
  double max_concurrency = 0;        ///< "Maximum concurrency for N tokens per request: X x"
  std::int64_t longest_that_fits = 0;  ///< the largest max_model_len the KV cache holds
  bool starts = false;               ///< the engine starts with these flags
  /// Why it does not start: "no_kv_memory", "max_len_exceeds_kv", "weights_do_not_fit",
  /// "free_below_requested"; empty when it starts.
  std::string failure;
  /// llama.cpp: layers on the GPU, and the bytes kept in host RAM for the others.
  std::int64_t gpu_layers = 0;
  double host_bytes = 0;
  std::vector<Phrase> assumptions;   ///< defaults taken, estimates used (worded by the view)
};

/// Per-layer, per-rank KV bytes of one token, and fixed per-request bytes (SSM state,
/// cross-attention), as engines page them. `tp` follows vLLM's replication rule.
struct KvFootprint {
  double full_bytes_per_token = 0;     ///< layers that keep every token
  double sliding_bytes_per_token = 0;  ///< windowed layers (capped at their window)
  std::int64_t window = 0;             ///< the smallest window among them
  double fixed_bytes_per_request = 0;  ///< SSM state, cross-attention K/V
  int attention_layers = 0;
};
KvFootprint KvFootprintOf(const ModelShape& shape, double bytes_per_element, int tensor_parallel, int pipeline_parallel);

/// The engine's budget for `shape` on `gpu`. `weights_bytes_per_gpu` comes from the memory
/// plan (PlanMemory), so the weights are the same figure every verb shows. InvalidArgument
/// for options out of range (utilisation not in (0, 1], a block size that is not a power of
/// two, ...).
core::Result<EngineBudget> PlanEngineBudget(const ModelShape& shape, double weights_bytes_per_gpu,
                                            int tensor_parallel, int pipeline_parallel, const GpuMemory& gpu,
                                            const EngineOptions& options);

/// The command line that starts the engine with these options for `model` (a Hub name or a
/// path), as a user would type it.
std::string EngineCommandLine(const EngineOptions& options, const EngineBudget& budget, const std::string& model,
                              int tensor_parallel, int pipeline_parallel);

}  // namespace gpuprobe::model
