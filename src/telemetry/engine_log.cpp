#include "telemetry/engine_log.h"

#include <cmath>
#include <cstdlib>

#include <re2/re2.h>

namespace gpuprobe::telemetry {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = kMiB * 1024.0;
// A log line longer than this is not a start-up line; it is read no further (a hostile file).
constexpr size_t kMaxLine = 8192;

double Num(const std::string& s) {
  std::string digits;
  for (char c : s) {
    if (c != ',' && c != '_') digits += c;
  }
  return std::strtod(digits.c_str(), nullptr);
}

std::int64_t Int(const std::string& s) { return static_cast<std::int64_t>(std::llround(Num(s))); }

// vLLM and SGLang print sizes divided by 2^30 and call them GiB or GB alike.
double Gib(const std::string& s) { return Num(s) * kGiB; }

struct Reader {
  EngineLogFacts f;
  int line_no = 0;
  bool traceback = false;  // a Python traceback began: the start-up stopped there

  // What the figures imply once every line is read: V0 refuses a max_model_len beyond its
  // blocks (llm_engine's check), and a traceback with no message read is a crash.
  void Conclude() {
    if (f.engine == "vllm" && !f.block_size) f.block_size = 16;
    if (f.failure.empty() && f.engine == "vllm" && f.generation == "v0" && f.gpu_blocks && f.max_model_len &&
        *f.gpu_blocks > 0 && *f.gpu_blocks * *f.block_size < *f.max_model_len) {
      f.failure = "max_len_exceeds_kv";
      if (!f.kv_tokens) f.kv_tokens = *f.gpu_blocks * *f.block_size;
    }
    if (f.failure.empty() && traceback && !f.engine.empty()) f.failure = "crashed";
  }

  void Saw(const char* engine) {
    if (f.engine.empty()) f.engine = engine;
    ++f.lines_read;
    if (f.line_numbers.empty() || f.line_numbers.back() != line_no) f.line_numbers.push_back(line_no);
  }

  void Line(const std::string& line) {
    std::string a, b, c, d;
    // ---- vLLM (format strings of vllm/worker/worker.py, vllm/v1/core/kv_cache_utils.py,
    // vllm/v1/worker/gpu_worker.py, vllm/engine/llm_engine.py) ----
    static const RE2 kProfTable(R"((total_gpu_memory|gpu_memory_utilization|the current vLLM instance can use|model weights take|non_torch_memory|PyTorch activation peak memory|available_kv_cache_memory)\s+([0-9.]+)\s*(?:GiB)?\s*$)");
    static const RE2 kProfLine(R"(model weights take ([0-9.]+)\s*GiB; non_torch_memory takes ([0-9.]+)\s*GiB; PyTorch activation peak memory takes ([0-9.]+)\s*GiB; the rest of the memory reserved for KV Cache is (-?[0-9.]+)\s*GiB)");
    // vLLM 0.6.4's one line: "Memory profiling results: total_gpu_memory=23.58GiB
    // initial_memory_usage=15.34GiB peak_torch_memory=17.98GiB memory_usage_post_profile=15.35GiB
    // non_torch_memory=0.35GiB kv_cache_size=2.89GiB gpu_memory_utilization=0.90" (V0).
    static const RE2 kProfOneLine(R"(total_gpu_memory=([0-9.]+)GiB .*non_torch_memory=([0-9.]+)GiB kv_cache_size=([0-9.]+)GiB gpu_memory_utilization=([0-9.]+))");
    static const RE2 kCanUse(R"(can use total_gpu_memory \(([0-9.]+)\s*GiB\) x gpu_memory_utilization \(([0-9.]+)\) = ([0-9.]+)\s*GiB)");
    // "# GPU blocks" until 0.6; later V0 names the platform's device ("# cuda blocks",
    // executor_base.py's current_platform.device_name).
    static const RE2 kBlocksV0(R"(# (?:GPU|cuda|xpu|hpu|npu|tpu|rocm) blocks: ([0-9]+), # CPU blocks: ([0-9]+))");
    static const RE2 kBlocksV1(R"(# GPU blocks: ([0-9]+)\s*$)");
    static const RE2 kKvTokens(R"(GPU KV cache size: ([0-9,]+) tokens)");
    static const RE2 kConcurrency(R"(Maximum concurrency for ([0-9,]+) tokens per request: ([0-9.]+)x)");
    static const RE2 kAvailable(R"(Available KV cache memory: ([0-9.]+) GiB)");
    static const RE2 kGraph(R"((?:Estimated )?CUDA graph memory:? ([0-9.]+) GiB)");
    static const RE2 kWeightsV1(R"((?:Model loading|Loading model weights) took ([0-9.]+) ?Gi?B)");
    static const RE2 kNeeded(R"(max seq len \(([0-9]+)\), \(([0-9.]+) GiB KV cache is needed, which is larger than the available KV cache memory \(([0-9.]+) GiB\))");
    static const RE2 kEstimated(R"(estimated maximum model length is ([0-9]+))");
    static const RE2 kSeqLenV0(R"(max seq len \(([0-9]+)\) is larger than the maximum number of tokens that can be stored in KV cache \(([0-9]+)\))");
    static const RE2 kNoBlocks(R"(No available memory for the cache blocks)");
    static const RE2 kFree(R"(Free memory on device \(([0-9.]+)/([0-9.]+) GiB\) on startup is less than desired GPU memory utilization \(([0-9.]+), ([0-9.]+) GiB\))");
    static const RE2 kModel(R"((?:engine with config: model=|vllm serve |--model[ =]|--model-path[ =]|model_path=)'?([^'\s,]+))");
    static const RE2 kMaxSeq(R"(\bmax_seq_len=([0-9]+))");
    static const RE2 kTp(R"(\btensor_parallel_size=([0-9]+))");
    if (RE2::PartialMatch(line, kProfTable, &a, &b)) {
      Saw("vllm");
      f.generation = "v0";
      if (a == "total_gpu_memory") f.total_bytes = Gib(b);
      if (a == "gpu_memory_utilization") f.gpu_memory_utilization = Num(b);
      if (a == "the current vLLM instance can use") f.requested_bytes = Gib(b);
      if (a == "model weights take") f.weights_bytes = Gib(b);
      if (a == "non_torch_memory") f.non_torch_bytes = Gib(b);
      if (a == "PyTorch activation peak memory") f.activation_peak_bytes = Gib(b);
      if (a == "available_kv_cache_memory") f.kv_cache_bytes = Gib(b);
    }
    if (RE2::PartialMatch(line, kProfLine, &a, &b, &c, &d)) {
      Saw("vllm");
      f.weights_bytes = Gib(a);
      f.non_torch_bytes = Gib(b);
      f.activation_peak_bytes = Gib(c);
      f.kv_cache_bytes = Gib(d);
    }
    if (RE2::PartialMatch(line, kProfOneLine, &a, &b, &c, &d)) {
      Saw("vllm");
      f.generation = "v0";
      f.total_bytes = Gib(a);
      f.non_torch_bytes = Gib(b);
      f.kv_cache_bytes = Gib(c);
      f.gpu_memory_utilization = Num(d);
      f.requested_bytes = *f.total_bytes * *f.gpu_memory_utilization;
    }
    if (RE2::PartialMatch(line, kCanUse, &a, &b, &c)) {
      Saw("vllm");
      f.total_bytes = Gib(a);
      f.gpu_memory_utilization = Num(b);
      f.requested_bytes = Gib(c);
    }
    if (RE2::PartialMatch(line, kBlocksV0, &a, &b)) {
      Saw("vllm");
      if (f.generation.empty()) f.generation = "v0";
      f.gpu_blocks = Int(a);
      if (*f.gpu_blocks == 0 && f.failure.empty()) f.failure = "no_kv_memory";
    } else if (RE2::PartialMatch(line, kBlocksV1, &a)) {
      Saw("vllm");
      f.generation = "v1";
      f.gpu_blocks = Int(a);
    }
    if (RE2::PartialMatch(line, kKvTokens, &a)) {
      Saw("vllm");
      f.generation = "v1";
      f.kv_tokens = Int(a);
    }
    if (RE2::PartialMatch(line, kConcurrency, &a, &b)) {
      Saw("vllm");  // V0 (from 0.6.4) and V1 both print it: it tells no generation
      f.max_model_len = Int(a);
      f.max_concurrency = Num(b);
    }
    if (RE2::PartialMatch(line, kAvailable, &a)) {
      Saw("vllm");
      f.generation = "v1";
      f.kv_cache_bytes = Gib(a);
    }
    if (RE2::PartialMatch(line, kGraph, &a)) {
      Saw("vllm");
      f.cuda_graph_bytes = Gib(a);
    }
    if (RE2::PartialMatch(line, kWeightsV1, &a)) {
      Saw("vllm");
      f.weights_bytes = Gib(a);
    }
    if (RE2::PartialMatch(line, kNeeded, &a, &b, &c)) {
      Saw("vllm");
      f.generation = "v1";
      f.max_model_len = Int(a);
      f.kv_needed_bytes = Gib(b);
      f.kv_cache_bytes = Gib(c);
      f.failure = "max_len_exceeds_kv";
    }
    if (RE2::PartialMatch(line, kEstimated, &a)) {
      Saw("vllm");
      f.estimated_max_len = Int(a);
    }
    if (RE2::PartialMatch(line, kSeqLenV0, &a, &b)) {
      Saw("vllm");
      f.max_model_len = Int(a);
      f.kv_tokens = Int(b);
      f.failure = "max_len_exceeds_kv";
      // V0's wording (vllm/worker/worker.py, raise_if_cache_size_invalid); V1 says "... KV cache
      // is needed, which is larger than the available KV cache memory" instead.
      if (f.generation.empty()) f.generation = "v0";
    }
    if (RE2::PartialMatch(line, kNoBlocks)) {
      Saw("vllm");
      f.failure = "no_kv_memory";
    }
    if (RE2::PartialMatch(line, kFree, &a, &b, &c, &d)) {
      Saw("vllm");
      f.generation = "v1";
      f.free_bytes = Gib(a);
      f.total_bytes = Gib(b);
      f.gpu_memory_utilization = Num(c);
      f.requested_bytes = Gib(d);
      f.failure = "free_below_requested";
    }
    if (f.model.empty() && RE2::PartialMatch(line, kModel, &a)) f.model = a;
    if (RE2::PartialMatch(line, kMaxSeq, &a) && !f.max_model_len) f.max_model_len = Int(a);
    if (RE2::PartialMatch(line, kTp, &a)) f.tensor_parallel = Int(a);

    // ---- SGLang (sglang/srt/model_executor/model_runner.py, mem_cache/memory_pool.py) ----
    static const RE2 kSgWeights(R"(Load weight end\. .*avail mem=([0-9.]+) GB(?:, mem usage=([0-9.]+) GB)?)");
    static const RE2 kSgKv(R"(KV Cache is allocated\. #tokens: ([0-9]+), K size: ([0-9.]+) GB, V size: ([0-9.]+) GB)");
    static const RE2 kSgMax(R"(max_total_num_tokens=([0-9]+)(?:.*context_len=([0-9]+))?)");
    static const RE2 kSgNotEnough(R"(Not enough memory\. Please try to increase --mem-fraction-static)");
    if (RE2::PartialMatch(line, kSgWeights, &a, &b)) {
      Saw("sglang");
      if (!b.empty()) f.weights_bytes = Gib(b);
    }
    if (RE2::PartialMatch(line, kSgKv, &a, &b, &c)) {
      Saw("sglang");
      f.kv_tokens = Int(a);
      f.kv_cache_bytes = Gib(b) + Gib(c);
    }
    if (RE2::PartialMatch(line, kSgMax, &a, &b)) {
      Saw("sglang");
      f.kv_tokens = Int(a);
      if (!b.empty()) f.max_model_len = Int(b);
    }
    if (RE2::PartialMatch(line, kSgNotEnough)) {
      Saw("sglang");
      f.failure = "no_kv_memory";
    }

    // ---- TensorRT-LLM (cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp, trtGptModelInflightBatching.cpp) ----
    static const RE2 kTrtAllocated(R"(Allocated ([0-9.]+) GiB for max tokens in paged KV cache \(([0-9]+)\))");
    static const RE2 kTrtUsing(R"(Using ([0-9]+) tokens in paged KV cache)");
    static const RE2 kTrtBytes(R"(Allocate ([0-9]+) bytes for k/v cache)");
    static const RE2 kTrtTotal(R"(Memory usage when calculating max tokens in paged kv cache: total: ([0-9.]+) GiB, available: ([0-9.]+) GiB)");
    static const RE2 kTrtBlock(R"(tokens per block[=:] ?([0-9]+))");
    if (RE2::PartialMatch(line, kTrtAllocated, &a, &b)) {
      Saw("trtllm");
      f.kv_cache_bytes = Gib(a);
      f.kv_tokens = Int(b);
    }
    if (RE2::PartialMatch(line, kTrtUsing, &a)) {
      Saw("trtllm");
      f.kv_tokens = Int(a);
    }
    if (RE2::PartialMatch(line, kTrtBytes, &a)) {
      Saw("trtllm");
      f.kv_cache_bytes = Num(a);
    }
    if (RE2::PartialMatch(line, kTrtTotal, &a, &b)) {
      Saw("trtllm");
      f.total_bytes = Gib(a);
      f.free_bytes = Gib(b);
    }
    if (line.find("TensorRT-LLM") != std::string::npos && RE2::PartialMatch(line, kTrtBlock, &a)) {
      Saw("trtllm");
      f.block_size = Int(a);
    }

    // ---- llama.cpp (src/llama-context.cpp, llama-kv-cache*.cpp, llama-model-loader.cpp) ----
    static const RE2 kLcCtx(R"((?:llama_new_context_with_model|llama_context|llama_init_from_model): n_ctx\s*=\s*([0-9]+))");
    static const RE2 kLcKvSize(R"(kv_size = ([0-9]+))");
    static const RE2 kLcKvSelf(R"(KV self size\s*=\s*([0-9.]+) MiB)");
    static const RE2 kLcOffloaded(R"(offloaded ([0-9]+)/([0-9]+) layers to GPU)");
    static const RE2 kLcModelBuf(R"((?:llm_load_tensors|load_tensors):\s+(?:CUDA|ROCm|Metal|Vulkan)[0-9]* (?:model )?buffer size\s*=\s*([0-9.]+) MiB)");
    static const RE2 kLcFailed(R"((?:cudaMalloc failed: out of memory|failed to allocate (?:CUDA[0-9]* )?buffer|unable to allocate CUDA[0-9]* buffer))");
    static const RE2 kLcKvFailed(R"((?:failed to allocate buffer for kv cache|llama_kv_cache_init\(\) failed))");
    if (RE2::PartialMatch(line, kLcCtx, &a) || RE2::PartialMatch(line, kLcKvSize, &a)) {
      Saw("llama.cpp");
      f.n_ctx = Int(a);
    }
    if (RE2::PartialMatch(line, kLcKvSelf, &a)) {
      Saw("llama.cpp");
      f.kv_cache_bytes = Num(a) * kMiB;
    }
    if (RE2::PartialMatch(line, kLcOffloaded, &a, &b)) {
      Saw("llama.cpp");
      f.gpu_layers = Int(a);
      f.total_layers = Int(b);
    }
    if (RE2::PartialMatch(line, kLcModelBuf, &a)) {
      Saw("llama.cpp");
      f.weights_bytes = f.weights_bytes.value_or(0) + Num(a) * kMiB;
    }
    if (RE2::PartialMatch(line, kLcKvFailed)) {
      Saw("llama.cpp");
      f.failure = "no_kv_memory";
    } else if (RE2::PartialMatch(line, kLcFailed)) {
      Saw("llama.cpp");
      if (f.failure.empty()) f.failure = "out_of_memory";
    }

    // ---- any engine: CUDA out of memory at start-up ----
    static const RE2 kOom(R"(CUDA out of memory|OutOfMemoryError)");
    if (!f.engine.empty() && f.failure.empty() && RE2::PartialMatch(line, kOom)) f.failure = "out_of_memory";
    if (line.find("Traceback (most recent call last)") != std::string::npos) traceback = true;
  }
};

double Relative(double a, double b) { return std::fabs(a - b) / std::max(std::fabs(b), 1e-9); }

}  // namespace

EngineLogFacts ReadEngineLog(std::string_view text) {
  Reader r;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    ++r.line_no;
    std::string_view line = text.substr(start, std::min(end - start, kMaxLine));
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    // A cheap filter first: every line read names a size unit, tokens, blocks, layers, a model
    // or a length, so a long log of other lines costs a few searches per line.
    static constexpr std::string_view kWords[] = {"GiB", "GB", "MiB", "bytes", "token", "block", "layers", "n_ctx",
                                                  "kv_size", "model", "max_seq_len", "memory", "allocate", "tensor_parallel"};
    bool candidate = false;
    for (std::string_view w : kWords) candidate = candidate || line.find(w) != std::string_view::npos;
    if (candidate || line.find("Traceback") != std::string_view::npos) r.Line(std::string(line));
    start = end + 1;
  }
  r.Conclude();
  return r.f;
}

std::vector<LogCheck> CheckEngineLog(const EngineLogFacts& f) {
  std::vector<LogCheck> out;
  auto add = [&](const char* id, double logged, double recomputed) {
    // Logs round to 0.01 GiB and 2 digits: 2% or one rounding step.
    bool holds = Relative(recomputed, logged) <= 0.02 || std::fabs(recomputed - logged) <= 0.011 * kGiB;
    out.push_back({id, logged, recomputed, holds});
  };
  if (f.requested_bytes && f.total_bytes && f.gpu_memory_utilization) {
    add("requested", *f.requested_bytes, *f.total_bytes * *f.gpu_memory_utilization);
  }
  if (f.kv_cache_bytes && f.requested_bytes && f.weights_bytes && f.non_torch_bytes && f.activation_peak_bytes) {
    add("kv_rest", *f.kv_cache_bytes,
        *f.requested_bytes - *f.weights_bytes - *f.non_torch_bytes - *f.activation_peak_bytes - f.cuda_graph_bytes.value_or(0));
  }
  if (f.kv_tokens && f.gpu_blocks && f.block_size) {
    add("tokens", static_cast<double>(*f.kv_tokens), static_cast<double>(*f.gpu_blocks * *f.block_size));
  }
  if (f.max_concurrency && f.kv_tokens && f.max_model_len && *f.max_model_len > 0) {
    // With only full attention, concurrency is tokens / max_model_len; sliding-window and
    // linear-attention layers need fewer blocks per request, so a higher figure is a hybrid
    // model, not an inconsistency, and is not checked.
    double recomputed = static_cast<double>(*f.kv_tokens) / static_cast<double>(*f.max_model_len);
    if (*f.max_concurrency <= recomputed * 1.05) {
      out.push_back({"concurrency", *f.max_concurrency, recomputed, std::fabs(*f.max_concurrency - recomputed) <= 0.011});
    }
  }
  return out;
}

}  // namespace gpuprobe::telemetry
