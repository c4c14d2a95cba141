// `plan --engine`: the serving engine's own memory budget for the planned model and GPU
// (model/serving_engine.h), on the memory the driver reports (`--gpu-from CAPTURE|live`) or
// on the spec sheet's estimate, with the command line that starts the engine and the lines
// it will log at start-up. For inference this budget is plan's fit verdict (one truth).
// The views (cli/plan_engine_view.cpp) only render it.
//
// Thread safety: ReadEngineGpu reads a file or NVML; the rest are pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "model/memory_planner.h"
#include "model/serving_engine.h"
#include "model/spec_database.h"
#include "telemetry/engine_log.h"

namespace gpuprobe::app {

/// The engine flags as given on plan's command line, unchecked.
struct EngineFlags {
  std::string engine;          ///< empty: vllm
  std::string engine_version;  ///< "v0", "v1" or a vLLM version ("0.6.4": V0 before 0.8)
  bool vllm_v0 = false;
  bool enforce_eager = false;
  std::optional<double> gpu_memory_utilization, mem_fraction_static, kv_cache_free_fraction;
  std::optional<std::int64_t> max_model_len, max_num_batched_tokens, max_num_seqs, block_size;
  std::optional<std::int64_t> n_ctx, parallel, n_gpu_layers;
  std::string cache_type_k, cache_type_v;  ///< llama.cpp: f16, q8_0, q4_0, ...
  std::string gpu_from;                    ///< a capture file, or "live" (NVML)
  bool headroom_given = false;             ///< --headroom given: vLLM's utilisation
  double headroom = 0.9;
};

/// The GPU the engine budgets against: the driver's figures (a capture or NVML), or the spec
/// sheet's estimate.
struct EngineGpu {
  std::string name;                  ///< as the driver or the database names it
  const model::GpuSpec* spec = nullptr;
  bool from_driver = false;          ///< false: "estimate (spec sheet)"
  std::string source;                ///< the capture's label; empty for the spec sheet
  double total_bytes = 0;            ///< what CUDA sees: the driver's total minus its reservation
  double reported_total_bytes = 0;   ///< nvidia-smi's "Total" (before the reservation)
  double reserved_bytes = 0;
  std::optional<double> free_bytes;  ///< free at the capture
  double other_processes_bytes = 0;  ///< memory used at the capture (other processes)
  int processes = 0;
  int count = 1;                     ///< GPUs in the capture
  std::optional<bool> ecc_enabled;
  int mig_slices = 0;
  double mig_slice_bytes = 0;        ///< the largest slice's memory (MIG on)
};

/// The engine's plan of one model on one GPU.
struct PlanEngine {
  model::EngineOptions options;
  model::EngineBudget budget;
  EngineGpu gpu;
  int tensor_parallel = 1, pipeline_parallel = 1;
  std::int64_t batch = 1;         ///< requests the plan asks to serve at once (--batch)
  bool fits = false;              ///< the engine starts and holds `batch` requests of max_model_len
  double kv_bytes_per_token = 0;  ///< per GPU (the busiest rank), as the engine pages it
  std::string command_line;       ///< the engine's own command line
  std::vector<std::string> log_lines;  ///< what the engine will print (its own English format)
};

/// The engine as its users name it: "vLLM V1", "vLLM V0", "SGLang", "TensorRT-LLM", "llama.cpp",
/// "`transformers`" (quoted: a package name, not a word).
std::string EngineDisplayName(const model::EngineOptions& options);

/// The engine options from the flags; InvalidArgument naming the flag for a value out of range.
/// `job` supplies the defaults plan already has: --seq as max_model_len, --kv-dtype.
core::Result<model::EngineOptions> EngineOptionsFrom(const EngineFlags& flags, const model::Job& job);

/// The GPU from `gpu_from` (a capture file, or "live"): InvalidArgument naming --gpu-from for a
/// capture that cannot be read or holds no memory figures, Unavailable for "live" without a driver.
core::Result<EngineGpu> ReadEngineGpu(const std::string& gpu_from);

/// The spec sheet's estimate for `spec` (the driver's usable memory from the database's
/// capture where it has one, else 98% of the vendor's figure).
EngineGpu EngineGpuFromSpec(const model::GpuSpec& spec);

/// The engine's plan: budget, verdict, command line and log lines. `model_name` goes into the
/// command line (a Hub id or a path).
core::Result<PlanEngine> PlanWithEngine(const model::ModelShape& shape, const model::Job& job,
                                        const model::MemoryPlan& memory, const EngineGpu& gpu,
                                        const model::EngineOptions& options, const std::string& model_name);

/// The lines the engine logs for `budget` at start-up, in its own format ("GPU KV cache size:
/// 31,232 tokens", ...), its failure message last when it would not start. `layers`: the
/// model's decoder layers (llama.cpp's offload line).
std::vector<std::string> EngineLogLines(const model::EngineOptions& options, const model::EngineBudget& budget,
                                        std::int64_t layers);

/// One change of flag that would make the logged start-up work (or hold a longer context).
struct LogAdvice {
  std::string flag;    ///< "--max-model-len", "--gpu-memory-utilization", "--kv-cache-dtype"
  std::string value;   ///< "18432", "0.93", "fp8"; for a direction (reason *_up, *_down), the value now
  std::string reason;  ///< text key ending of plan.log.advice.<reason>
};

/// `plan --from-log LOG`: an engine's start-up log read back (telemetry/engine_log.h), its
/// figures checked against each other, held against plan's prediction for the same model,
/// GPU and flags when the model is given, and the flag to change and by how much.
struct LogComparison {
  std::string file;
  telemetry::EngineLogFacts facts;
  std::vector<telemetry::LogCheck> checks;
  std::vector<LogAdvice> advice;
};

/// The plan's KV cache per GPU against the one the engine logged: the logged bytes (else the
/// logged tokens at the plan's bytes per token, for a log that prints only tokens), the
/// plan's bytes, and the gap as a share of the logged (positive: the plan promises more).
/// nullopt when the log gives no KV figure or the plan none. Computed here only: the gap line
/// of `plan --from-log` and LogKvCorrection both read it.
struct LogKvGap {
  double logged_bytes = 0;
  double predicted_bytes = 0;
  double share = 0;
  /// More than 10% apart: the gap the plan says, and corrects its options by.
  bool Large() const;
};
std::optional<LogKvGap> KvGapFromLog(const telemetry::EngineLogFacts& facts, const PlanEngine& predicted);

/// How much less KV cache per GPU the log shows than `predicted` leaves (negative: more), when
/// the gap is Large(): the part of the deployment the rules do not see (another process, the
/// version, its settings). nullopt when the log gives no KV figure or agrees.
std::optional<double> LogKvCorrection(const telemetry::EngineLogFacts& facts, const PlanEngine& predicted);

/// Reads the log at `path`: InvalidArgument naming --from-log when it cannot be read or holds
/// no start-up line of a known engine.
core::Result<LogComparison> ReadLogComparison(const std::string& path);

/// The engine flags the log implies, where `flags` leaves them unset: the engine and its
/// generation, gpu_memory_utilization, the context, the split.
/// `seq` takes the logged context unless `seq_given`; `tp` the logged split when it is 1.
void FlagsFromLog(const telemetry::EngineLogFacts& facts, EngineFlags* flags, std::int64_t* seq, bool seq_given, int* tp);

/// The GPU as the engine saw it in the log (its logged total), when the log gives one.
std::optional<EngineGpu> GpuFromLog(const telemetry::EngineLogFacts& facts, const std::string& file);

/// The flags to change: from the log's own figures, or from `predicted` where it has the
/// figure the log lacks. `wanted_len`: a context the user asks for (--max-model-len), 0 if none.
std::vector<LogAdvice> AdviseFromLog(const telemetry::EngineLogFacts& facts, const PlanEngine* predicted,
                                     std::int64_t wanted_len);

}  // namespace gpuprobe::app
