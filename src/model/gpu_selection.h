// Which GPU for which job: the selection behind `gpus --task`. A task is a reference job (a
// model size, a mode, a context) planned by the same planner as `plan` on every GPU of the
// database; the picks are the GPUs where it fits, ranked by the task's criterion (a speed the
// planner predicts) and, where a price is known, by cost. Deployment constraints that are not
// about memory (a PCIe card for a workstation, a power limit, the CUDA stack) filter first.
// No separate memory rule exists, so `gpus --task` and `plan` cannot disagree on what fits.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "model/memory_planner.h"
#include "model/phrase.h"
#include "model/prices.h"
#include "model/spec_database.h"
#include "model/throughput_model.h"

namespace gpuprobe::model {

enum class RankBy {
  kTrainingPerWatt,    ///< training tokens/s per watt (a workstation card that stays cool)
  kDecodePerStream,    ///< decode tokens/s one stream sees (bandwidth-bound)
  kTrainingPerGpu,     ///< training tokens/s per GPU, communication included
  kServingPerGpu,      ///< decode tokens/s per GPU at the KV-limited maximum concurrency
};

/// "training_tokens_per_s_per_watt", "decode_tokens_per_s_per_stream", ...
std::string RankByName(RankBy rank_by);

struct TaskRule {
  std::string id;              ///< "prototype", "inference-7b-13b", ...
  // The reference job, as `plan --params P --mode M --dtype D --seq S --batch B --tp T` plans it.
  double params = 0;
  JobMode mode = JobMode::kInfer;
  DType dtype = DType::kBf16;
  std::int64_t seq = 4096;
  std::int64_t batch = 1;
  bool checkpointing = false;
  int tensor_parallel = 1;     ///< GPUs the job is split over
  bool smallest_tensor_parallel = false;  ///< instead: each GPU at the fewest (1..8) where it fits
  // Deployment constraints (not memory: memory is the planner's).
  bool nvidia_only = true;     ///< needs the CUDA software stack
  bool pcie_card_only = false; ///< fits an ordinary server or workstation slot
  double max_tdp_watts = 0;    ///< 0 = no limit
  RankBy rank_by = RankBy::kDecodePerStream;
  size_t picks = 4;
};

/// One GPU under a task's reference job.
struct TaskCandidate {
  const GpuSpec* gpu = nullptr;
  bool eligible = false;       ///< passes the deployment constraints
  bool fits = false;           ///< the planner's verdict (with `gpus` of them)
  int gpus = 0;                ///< GPUs of the split that fits (0: none)
  Job job;                     ///< the reference job as planned on it (tp set)
  double total_bytes = 0;      ///< per GPU
  double usable_bytes = 0;     ///< per GPU, after headroom
  double score = 0;            ///< the rank_by figure (0 when it does not fit)
  double decode_per_stream = 0;      ///< tokens/s bound (inference)
  double serving_tokens_per_s = 0;   ///< tokens/s bound at max concurrency, all GPUs (inference)
  std::int64_t max_sequences = 0;    ///< concurrency the KV budget holds (inference)
  double training_tokens_per_s = 0;  ///< tokens/s bound, all GPUs (training)
  double comm_seconds = 0;     ///< per decode step (inference) or training step, at the bound
  const GpuPrice* price = nullptr;
  double usd_per_million_tokens = 0;  ///< output tokens (inference) or training tokens; 0 when unpriced
  std::vector<Phrase> reasons; ///< the figures behind it, one per line
};

struct TaskResult {
  TaskRule rule;
  ModelShape shape;                     ///< the reference model
  std::vector<TaskCandidate> evaluated; ///< every GPU of the database, in database order
  std::vector<size_t> picks;    ///< indices into evaluated: fits and eligible, best by rank_by first
  std::vector<size_t> by_cost;  ///< indices: fits, eligible and priced, cheapest per 1M tokens first
};

/// The rules of every task, in display order.
const std::vector<TaskRule>& TaskRules();
/// The rule for `task_id`; InvalidArgument listing the tasks when unknown.
core::Result<TaskRule> FindTaskRule(const std::string& task_id);
/// The reference job of `rule` at `tensor_parallel`.
Job TaskJob(const TaskRule& rule, int tensor_parallel);
/// Plans the rule's reference job on every GPU of `db`. `prices` may be null. Errors only for a
/// broken rule (its reference model cannot be shaped).
core::Result<TaskResult> SelectGpus(const SpecDatabase& db, const TaskRule& rule, const PriceBook* prices);

}  // namespace gpuprobe::model
