// A serving engine's start-up log read for what it says about memory: vLLM (V0's "Memory
// profiling results" and "model weights take ...; the rest ... KV Cache is ..." lines, V1's
// "Available KV cache memory", "GPU KV cache size: N tokens", "Maximum concurrency for N tokens
// per request: X x", "# GPU blocks"), SGLang ("Load weight end ... avail mem", "KV Cache is
// allocated. #tokens", "max_total_num_tokens=..."), TensorRT-LLM ("Allocated X GiB for max tokens
// in paged KV cache (N)", "Using N tokens in paged KV cache") and llama.cpp ("n_ctx", "KV buffer
// size", "offloaded a/b layers", "failed to allocate"), and the start-up failures each prints
// ("No available memory for the cache blocks", "max seq len ... larger than the maximum number
// of tokens ...", "KV cache is needed, which is larger than the available KV cache memory",
// "Free memory on device ... is less than desired GPU memory utilization", CUDA out of memory).
// The lines are recognised by their structure (the engine's own format strings), wherever the
// log's prefixes (process, rank, timestamp) put them.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuprobe::telemetry {

/// Everything a start-up log said about memory; each figure is absent when the log did not
/// print it. Sizes in bytes (the engines print GiB, GB or MiB: converted as each engine means it).
struct EngineLogFacts {
  std::string engine;                  ///< "vllm", "sglang", "trtllm", "llama.cpp"; empty: none found
  std::string generation;              ///< vLLM: "v0" or "v1" when the lines tell
  std::string model;                   ///< the model named in the log (engine config, serve command)
  std::optional<double> total_bytes;   ///< the GPU's memory as the engine saw it
  std::optional<double> free_bytes;    ///< free at start (vLLM's refusal, SGLang's avail mem)
  std::optional<double> gpu_memory_utilization;
  std::optional<double> requested_bytes;  ///< "the current vLLM instance can use"
  std::optional<double> weights_bytes;
  std::optional<double> non_torch_bytes;
  std::optional<double> activation_peak_bytes;
  std::optional<double> cuda_graph_bytes;
  std::optional<double> kv_cache_bytes;   ///< what the engine gave the KV cache
  std::optional<double> kv_needed_bytes;  ///< V1's refusal: needed for one request
  std::optional<std::int64_t> gpu_blocks;
  std::optional<std::int64_t> block_size;
  std::optional<std::int64_t> kv_tokens;
  std::optional<std::int64_t> max_model_len;     ///< the length asked for (refusals, concurrency line)
  std::optional<double> max_concurrency;
  std::optional<std::int64_t> estimated_max_len; ///< V1's "estimated maximum model length is N"
  std::optional<std::int64_t> gpu_layers, total_layers;  ///< llama.cpp offload
  std::optional<std::int64_t> n_ctx;             ///< llama.cpp
  std::optional<std::int64_t> tensor_parallel;
  /// "no_kv_memory", "max_len_exceeds_kv", "free_below_requested", "out_of_memory", "crashed"
  /// (a traceback with no message read); empty when the log shows no failure.
  std::string failure;
  int lines_read = 0;                  ///< lines that gave a figure
  std::vector<int> line_numbers;       ///< 1-based, of the lines read (for "line N says ...")
};

/// Reads a log. An unrecognised log gives facts with an empty engine; never fails.
EngineLogFacts ReadEngineLog(std::string_view text);

/// The figures of one log checked against each other, as the engine computes them: the
/// requested share (utilisation x total), the KV rest (requested - weights - non-torch -
/// activations), tokens (blocks x block size), concurrency (tokens / max_model_len). Each entry
/// names the check and whether it held (within 2%), for the view; empty when too little was logged.
struct LogCheck {
  std::string id;          ///< "requested", "kv_rest", "tokens", "concurrency"
  double logged = 0;       ///< the figure the log printed
  double recomputed = 0;   ///< the same figure from the log's other figures
  bool holds = false;
};
std::vector<LogCheck> CheckEngineLog(const EngineLogFacts& facts);

}  // namespace gpuprobe::telemetry
