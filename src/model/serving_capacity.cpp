// Fit, capacity and serving concurrency of a planned job (declared in memory_planner.h).
#include "model/memory_planner.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace gpuprobe::model {

using core::Result;
using core::Status;


FitResult CheckFit(const MemoryPlan& plan, const Job& job, double usable_bytes, int attention_heads) {
  FitResult fit;
  fit.usable_bytes = usable_bytes * job.headroom;
  fit.fits = plan.total_bytes <= fit.usable_bytes;
  fit.free_after_bytes = fit.usable_bytes - plan.total_bytes;
  if (GpusOfSplit(job) > 1) {
    // The plan is already per GPU of a split over max(tp, ep) x pp GPUs.
    fit.gpus_needed = fit.fits ? GpusOfSplit(job) : 0;
    return fit;
  }
  if (fit.fits) {
    fit.gpus_needed = 1;
    return fit;
  }
  // Split evenly over n GPUs: the model part divides, the overhead (plus NCCL) repeats.
  double shared = plan.total_bytes - plan.overhead_bytes;
  double per_gpu_room = fit.usable_bytes - plan.overhead_bytes - kNcclBufferBytes;
  if (per_gpu_room <= 0) return fit;
  double n = std::ceil(shared / per_gpu_room);
  if (n > 1e6) return fit;
  int gpus = static_cast<int>(n);
  // Tensor parallelism splits heads evenly: the next count that divides them (none above the
  // head count: the memory-only count stands, and a pipeline split would be needed).
  if (attention_heads > 0 && gpus > 1) {
    for (int m = gpus; m <= attention_heads; ++m) {
      if (attention_heads % m == 0) {
        gpus = m;
        break;
      }
    }
  }
  fit.gpus_needed = gpus;
  return fit;
}

ServingCapacity PlanServing(const ModelShape& shape, const Job& job, const MemoryPlan& plan, double usable_bytes) {
  ServingCapacity out;
  if (job.mode != JobMode::kInfer) return out;
  double kv = 0;
  for (const auto& c : plan.components) {
    if (c.id == "kv_cache") kv = c.bytes;
  }
  out.kv_budget_bytes = usable_bytes * job.headroom - (plan.total_bytes - kv);
  out.kv_bytes_per_sequence = plan.kv_bytes_per_sequence;
  if (out.kv_budget_bytes <= 0 || out.kv_bytes_per_sequence <= 0) return out;
  out.concurrency = out.kv_budget_bytes / out.kv_bytes_per_sequence;
  out.max_sequences = static_cast<std::int64_t>(std::floor(out.concurrency));
  if (job.shared_prefix > 0) {
    // The prefix's blocks are held once (vLLM automatic prefix caching shares full blocks):
    // whole blocks of the prefix are shared, the rest of each sequence is its own.
    const double gpus = static_cast<double>(job.tensor_parallel) * job.pipeline_parallel;
    const double e = BytesPerElement(job.kv_dtype);
    std::int64_t shared_tokens = (job.shared_prefix / out.block_tokens) * out.block_tokens;
    double shared = KvCacheBytes(shape, e, 0, shared_tokens, 1, job.tensor_parallel, out.block_tokens) / gpus;
    double own = out.kv_bytes_per_sequence - shared;
    if (own > 0 && out.kv_budget_bytes > shared) {
      out.max_sequences_shared_prefix = static_cast<std::int64_t>(std::floor((out.kv_budget_bytes - shared) / own));
    }
  }
  return out;
}

Capacity FindCapacity(const ModelShape& shape, const Job& job, double usable_bytes) {
  Capacity capacity;
  auto fits = [&](std::int64_t batch, std::int64_t seq) {
    Job trial = job;
    trial.batch = batch;
    trial.seq = seq;
    auto plan = PlanMemory(shape, trial);
    return plan.ok() && plan->total_bytes <= usable_bytes * job.headroom;
  };
  // Memory grows monotonically with batch and with sequence, so bisection finds the edge.
  auto largest = [&](auto&& ok, std::int64_t hi) -> std::int64_t {
    if (!ok(1)) return 0;
    std::int64_t lo = 1;
    while (lo < hi) {
      std::int64_t mid = lo + (hi - lo + 1) / 2;
      if (ok(mid)) lo = mid; else hi = mid - 1;
    }
    return lo;
  };
  capacity.max_batch_at_seq = largest([&](std::int64_t v) { return fits(v, job.seq); }, kMaxBatch);
  capacity.max_seq_at_batch = largest([&](std::int64_t v) { return fits(job.batch, v); }, kMaxSeq);
  return capacity;
}

}  // namespace gpuprobe::model
