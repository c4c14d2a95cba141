// MemoryPlanner: GPU memory for a model and a job (inference, LoRA, QLoRA, full fine-tune),
// component by component, each with its bytes, its formula in words and its source
// (docs/plan.md). What is summed is said explicitly: every component below, per GPU.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "model/dtype.h"
#include "model/gpu_spec.h"
#include "model/model_shape.h"
#include "model/phrase.h"

namespace gpuprobe::model {

enum class JobMode { kInfer, kLora, kQlora, kFull };
enum class Optimizer { kAdamW, kAdamW8bit, kSgd };

std::string JobModeName(JobMode mode);
core::Result<JobMode> ParseJobMode(const std::string& name);
std::string OptimizerName(Optimizer optimizer);
core::Result<Optimizer> ParseOptimizer(const std::string& name);

struct Job {
  JobMode mode = JobMode::kInfer;
  DType weight_dtype = DType::kBf16;  ///< storage of the (base) weights
  DType kv_dtype = DType::kBf16;      ///< KV cache elements (16-bit unless told otherwise)
  std::int64_t batch = 1;             ///< sequences processed together
  std::int64_t seq = 4096;            ///< tokens per sequence (context length)
  Optimizer optimizer = Optimizer::kAdamW;
  int lora_rank = 16;
  bool lora_all_linears = true;       ///< all linears of each layer; false: q, k, v, o only
  int tensor_parallel = 1;            ///< GPUs the model is split across (Megatron/vLLM TP)
  int pipeline_parallel = 1;          ///< pipeline stages: each GPU holds ~1/pp of the layers
  /// GPUs the routed experts are spread over (vLLM --enable-expert-parallel: EP = TP x DP);
  /// 0 means experts are tensor-split like every other weight (EP off).
  int expert_parallel = 0;
  /// The checkpoint's own quantisation (config.json), used when no --dtype overrides it.
  std::optional<WeightQuant> weight_quant;
  /// Bytes the checkpoint stores for its weights (safetensors or GGUF headers), used when
  /// no --dtype overrides it: the weights component is then exact.
  double checkpoint_weight_bytes = 0;
  Phrase checkpoint_weight_note;      ///< what was read ("4 safetensors files, 291 tensors")
  std::int64_t shared_prefix = 0;     ///< tokens every request shares (prefix caching)
  bool activation_checkpointing = false;  ///< recompute activations in the backward pass
  double headroom = 0.9;              ///< fraction of usable memory a plan may fill (vLLM: 0.9)
};

/// NCCL buffers per GPU once a job is split: vLLM's non-torch memory doubles at TP = 2
/// (1.79 -> 3.58 GiB, docs/plan.md 'Overhead').
inline constexpr double kNcclBufferBytes = 1.5 * 1024.0 * 1024.0 * 1024.0;

/// GPUs a job is split over: max(tp, ep) x pp (EP spans the TP x DP GPUs in vLLM).
int GpusOfSplit(const Job& job);

/// Largest batch and sequence a plan accepts (beyond them the inputs are absurd).
inline constexpr std::int64_t kMaxBatch = 1 << 20;
inline constexpr std::int64_t kMaxSeq = 1 << 24;  // 16.8M tokens

/// Checks a job's numbers against the shape: positive, not absurd, TP dividing the heads.
core::Status ValidateJob(const ModelShape& shape, const Job& job);

struct MemoryComponent {
  std::string id;        ///< stable key: weights, kv_cache, activations, gradients, ...
  std::string name_key;  ///< text key of its display name ("plan.component.weights")
  double bytes = 0;      ///< per GPU
  Phrase formula;        ///< the formula with this model's numbers
  Phrase source;         ///< where the formula comes from
};

struct MemoryPlan {
  ParamCount params;
  double weight_bytes_per_gpu = 0;     ///< the weights component
  double weight_bytes_total = 0;       ///< the whole model's weights, before any split
  double kv_bytes_per_sequence = 0;    ///< one sequence of job.seq tokens, per GPU, 16-token blocks
  std::int64_t lora_params = 0;        ///< adapter parameters (LoRA/QLoRA)
  double kv_bytes_per_token = 0;       ///< all layers, K and V, at the KV dtype, whole model
  std::vector<MemoryComponent> components;  ///< summed into total_bytes
  double total_bytes = 0;              ///< per GPU: the sum of components
  double overhead_bytes = 0;           ///< the overhead component alone (per GPU)
  double overhead_low_bytes = 0;       ///< its stated range
  double overhead_high_bytes = 0;
  Phrase summed;                       ///< what the total adds up, and what it leaves out
};

/// Plans memory. InvalidArgument for an impossible job (see ValidateJob; full fine-tuning
/// of quantised weights).
core::Result<MemoryPlan> PlanMemory(const ModelShape& shape, const Job& job);

/// Adapter parameters of LoRA at `rank` over the targeted linears (docs/plan.md, 'LoRA').
std::int64_t LoraParameterCount(const ModelShape& shape, int rank, bool all_linears);

struct FitResult {
  bool fits = false;
  int gpus_needed = 0;       ///< GPUs of this kind to hold the job (split evenly); 0: never
  double usable_bytes = 0;   ///< per GPU, after headroom
  double free_after_bytes = 0;  ///< usable - planned, on one GPU (negative when it does not fit)
};

/// Whether the plan fits on one GPU with `usable_bytes` (driver-reported, before headroom),
/// and how many such GPUs it needs when split evenly (overhead repeats per GPU, plus NCCL
/// buffers once split). With `attention_heads` > 0 the count is rounded up to a tensor-parallel
/// size that divides the heads, as `--tp` must (ValidateJob): 3 GPUs for 128 heads is 4.
FitResult CheckFit(const MemoryPlan& plan, const Job& job, double usable_bytes, int attention_heads = 0);

/// Serving capacity the way vLLM reports it at startup: KV budget = usable x headroom minus
/// weights, activations and overhead (per GPU); its paged blocks hold this many sequences.
struct ServingCapacity {
  double kv_budget_bytes = 0;          ///< per GPU; negative when nothing is left for KV
  double kv_bytes_per_sequence = 0;    ///< per GPU, windows applied, rounded to 16-token blocks
  std::int64_t max_sequences = 0;      ///< whole sequences of job.seq tokens that fit
  double concurrency = 0;              ///< budget / per-sequence bytes (vLLM's "Maximum concurrency: X x")
  std::int64_t block_tokens = 16;      ///< vLLM's default block size
  /// With job.shared_prefix > 0: sequences that fit when all share that prefix's blocks.
  std::int64_t max_sequences_shared_prefix = 0;
};

/// The serving capacity of `plan` on a GPU with `usable_bytes` (driver-reported). Only
/// meaningful for inference; all zero for training jobs.
ServingCapacity PlanServing(const ModelShape& shape, const Job& job, const MemoryPlan& plan, double usable_bytes);

struct Capacity {
  std::int64_t max_batch_at_seq = 0;   ///< largest batch at job.seq that fits (0: none)
  std::int64_t max_seq_at_batch = 0;   ///< largest sequence at job.batch that fits (0: none)
};

/// The largest batch x sequence that fits in `usable_bytes` x headroom (binary search over
/// PlanMemory).
Capacity FindCapacity(const ModelShape& shape, const Job& job, double usable_bytes);

}  // namespace gpuprobe::model
