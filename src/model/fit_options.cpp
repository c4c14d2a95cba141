#include "model/fit_options.h"

#include <algorithm>
#include <functional>

#include "model/gpu_link.h"
#include "model/spec_derivation.h"

namespace gpuprobe::model {
namespace {

bool IsTraining(const Job& job) { return job.mode != JobMode::kInfer; }

// A GPU one can put a job on: its memory is known and it is not an integrated part.
bool Rentable(const GpuSpec& g) {
  return g.memory_size_gb_vendor.known() && g.host_interface.find("SoC") == std::string::npos;
}

struct Trial {
  MemoryPlan plan;
  FitResult fit;
  bool ok = false;
};

Trial Try(const ModelShape& shape, const Job& job, const GpuSpec& gpu) {
  Trial t;
  auto plan = PlanMemory(shape, job);
  if (!plan.ok()) return t;
  t.plan = std::move(plan.value());
  t.fit = CheckFit(t.plan, job, DriverUsableMemory(gpu).bytes);
  t.ok = true;
  return t;
}

bool Fits(const Trial& t) { return t.ok && t.fit.fits; }

// Quantised weights change what the weights component counts, so a checkpoint's own bytes
// and quantisation no longer apply.
Job WithWeights(Job job, DType dtype) {
  job.weight_dtype = dtype;
  job.weight_quant.reset();
  job.checkpoint_weight_bytes = 0;
  return job;
}

double WeightBytesPerParam(const Job& job) {
  if (job.mode == JobMode::kQlora) return BytesPerElement(DType::kNf4);
  if (job.weight_quant) return job.weight_quant->BytesPerWeight();
  return BytesPerElement(job.weight_dtype);
}

}  // namespace

int SmallestFittingTensorParallel(const ModelShape& shape, const Job& job, const GpuSpec& gpu) {
  for (int tp = std::max(2, job.tensor_parallel * 2); tp <= 64; tp *= 2) {
    if (shape.num_heads % tp != 0) continue;
    Job trial = job;
    trial.tensor_parallel = tp;
    if (trial.expert_parallel > 0 && trial.expert_parallel % tp != 0) trial.expert_parallel = 0;
    if (Fits(Try(shape, trial, gpu))) return tp;
  }
  return 0;
}

std::vector<FitOption> FindFitOptions(const ModelShape& shape, const Job& job, const GpuSpec& gpu,
                                      const SpecDatabase& db, const PriceBook* prices) {
  std::vector<FitOption> out;
  const Trial base = Try(shape, job, gpu);
  if (!base.ok || base.fit.fits) return out;
  const double usable = DriverUsableMemory(gpu).bytes;

  auto add = [&](const std::string& id, int rank, const Job& changed, const GpuSpec& on, Phrase change, Phrase cost,
                 std::int64_t value = 0) {
    Trial t = Try(shape, changed, on);
    if (!t.ok) return;
    FitOption o;
    o.id = id;
    o.cost_rank = rank;
    o.job = changed;
    o.gpu = &on;
    o.plan = std::move(t.plan);
    o.fit = t.fit;
    o.gpus = GpusOfSplit(changed);
    o.value = value;
    o.change = std::move(change);
    o.cost = std::move(cost);
    if (o.fit.fits) {
      auto speed = PredictThroughput(shape, o.plan, changed, on);
      if (speed.ok()) o.throughput = std::move(speed.value());
    }
    if (prices != nullptr) o.price = prices->Find(on);
    out.push_back(std::move(o));
  };

  // --- Config only ---
  if (!IsTraining(job) && BytesPerElement(job.kv_dtype) > 1) {
    Job j = job;
    j.kv_dtype = DType::kFp8;
    add("kv_fp8", 0, j, gpu, Say("plan.option.kv_fp8"), Say("plan.option_cost.kv_fp8"));
  }
  if (IsTraining(job) && !job.activation_checkpointing) {
    Job j = job;
    j.activation_checkpointing = true;
    add("checkpointing", 0, j, gpu, Say("plan.option.checkpointing"), Say("plan.option_cost.checkpointing"));
  }
  if (job.mode == JobMode::kFull && job.optimizer == Optimizer::kAdamW) {
    Job j = job;
    j.optimizer = Optimizer::kAdamW8bit;
    add("optimizer_8bit", 0, j, gpu, Say("plan.option.optimizer_8bit"), Say("plan.option_cost.optimizer_8bit"));
  }

  // --- The workload: the largest context and batch that fit, found by bisection. ---
  Capacity capacity = FindCapacity(shape, job, usable);
  if (capacity.max_seq_at_batch > 0 && capacity.max_seq_at_batch < job.seq) {
    Job j = job;
    j.seq = capacity.max_seq_at_batch;
    if (j.shared_prefix >= j.seq) j.shared_prefix = 0;
    add("shorter_context", 1, j, gpu, Say("plan.option.shorter_context").Int("seq", static_cast<double>(j.seq)).Text("flag", std::to_string(j.seq)),
        Say("plan.option_cost.shorter_context").Int("from", static_cast<double>(job.seq)), j.seq);
  }
  if (job.batch > 1 && capacity.max_batch_at_seq > 0 && capacity.max_batch_at_seq < job.batch) {
    Job j = job;
    j.batch = capacity.max_batch_at_seq;
    add("smaller_batch", 1, j, gpu, Say("plan.option.smaller_batch").Int("batch", static_cast<double>(j.batch)),
        Say("plan.option_cost.smaller_batch").Int("from", static_cast<double>(job.batch)), j.batch);
  }

  // --- Quality: fewer bits per weight (inference), cheaper fine-tuning (training). ---
  const double bytes_now = WeightBytesPerParam(job);
  if (job.mode == JobMode::kInfer) {
    if (bytes_now > 1 && PeakFlops(gpu, "fp8")) {
      add("weights_fp8", 2, WithWeights(job, DType::kFp8), gpu, Say("plan.option.weights_fp8"),
          Say("plan.option_cost.weights_fp8"));
    }
    if (bytes_now > 1) {
      add("weights_int8", 2, WithWeights(job, DType::kInt8), gpu, Say("plan.option.weights_int8"),
          Say("plan.option_cost.weights_int8"));
    }
    if (bytes_now > BytesPerElement(DType::kInt4)) {
      add("weights_int4", 2, WithWeights(job, DType::kInt4), gpu, Say("plan.option.weights_int4"),
          Say("plan.option_cost.weights_int4"));
    }
  }
  if (job.mode == JobMode::kLora) {
    Job j = job;
    j.mode = JobMode::kQlora;
    j.activation_checkpointing = true;
    add("qlora", 2, j, gpu, Say("plan.option.qlora"), Say("plan.option_cost.qlora"));
  }
  if (job.mode == JobMode::kFull) {
    Job j = job;
    j.mode = JobMode::kLora;
    add("lora", 2, j, gpu, Say("plan.option.lora").Int("rank", job.lora_rank), Say("plan.option_cost.lora"));
  }

  // --- Money: more GPUs of this kind, or a bigger one. ---
  if (int tp = SmallestFittingTensorParallel(shape, job, gpu); tp > 0) {
    Job j = job;
    j.tensor_parallel = tp;
    if (j.expert_parallel > 0 && j.expert_parallel % tp != 0) j.expert_parallel = 0;
    GroupLink link = LinkForGroup(gpu, GpusOfSplit(j));
    add("tensor_parallel", 3, j, gpu, Say("plan.option.tensor_parallel").Int("tp", tp).Sub("link", LinkName(gpu, link.link)),
        Say("plan.option_cost.tensor_parallel").Int("tp", tp), tp);
  }
  {
    // Bigger GPUs: the job unchanged on one GPU of another kind (tensor parallelism kept).
    const GpuSpec* smallest = nullptr;
    const GpuSpec* cheapest = nullptr;
    double smallest_usable = 0, cheapest_usd = 0;
    for (const auto& g : db.gpus()) {
      if (&g == &gpu || !Rentable(g)) continue;
      // The plan is the same on every GPU; only the fit differs.
      if (!CheckFit(base.plan, job, DriverUsableMemory(g).bytes).fits) continue;
      double u = DriverUsableMemory(g).bytes;
      if (smallest == nullptr || u < smallest_usable) {
        smallest = &g;
        smallest_usable = u;
      }
      const GpuPrice* price = prices != nullptr ? prices->Find(g) : nullptr;
      if (price != nullptr && (cheapest == nullptr || price->usd_per_hour < cheapest_usd)) {
        cheapest = &g;
        cheapest_usd = price->usd_per_hour;
      }
    }
    if (cheapest != nullptr) {
      add("bigger_gpu_cheapest", 4, job, *cheapest, Say("plan.option.bigger_gpu_cheapest").GpuName("gpu", cheapest->name),
          Say("plan.option_cost.bigger_gpu"));
    }
    if (smallest != nullptr && smallest != cheapest) {
      add("bigger_gpu_smallest", 4, job, *smallest, Say("plan.option.bigger_gpu_smallest").GpuName("gpu", smallest->name),
          Say("plan.option_cost.bigger_gpu"));
    }
  }

  // --- The cheapest combination: apply changes in cost order until the job fits. ---
  {
    Job j = job;
    std::vector<Phrase> steps;
    auto fits_now = [&] { return Fits(Try(shape, j, gpu)); };
    std::vector<std::function<void()>> changes;
    if (!IsTraining(job) && BytesPerElement(j.kv_dtype) > 1) {
      changes.push_back([&] { j.kv_dtype = DType::kFp8; steps.push_back(Say("plan.option.kv_fp8")); });
    }
    int checkpointing_step = -1;
    if (IsTraining(job) && !j.activation_checkpointing) {
      changes.push_back([&] {
        j.activation_checkpointing = true;
        checkpointing_step = static_cast<int>(steps.size());
        steps.push_back(Say("plan.option.checkpointing"));
      });
    }
    if (job.mode == JobMode::kFull && j.optimizer == Optimizer::kAdamW) {
      changes.push_back([&] { j.optimizer = Optimizer::kAdamW8bit; steps.push_back(Say("plan.option.optimizer_8bit")); });
    }
    if (job.mode == JobMode::kInfer && bytes_now > BytesPerElement(DType::kInt4)) {
      changes.push_back([&] { j = WithWeights(j, DType::kInt4); steps.push_back(Say("plan.option.weights_int4")); });
    }
    if (job.mode == JobMode::kLora) {
      changes.push_back([&] {
        j.mode = JobMode::kQlora;
        j.activation_checkpointing = true;
        // QLoRA checkpoints already: "checkpointing + QLoRA" would be the QLoRA option again.
        if (checkpointing_step >= 0) steps.erase(steps.begin() + checkpointing_step);
        checkpointing_step = -1;
        steps.push_back(Say("plan.option.qlora"));
      });
    }
    bool fitted = false;
    for (auto& change : changes) {
      change();
      if ((fitted = fits_now())) break;
    }
    if (!fitted && steps.size() >= 1) {
      if (int tp = SmallestFittingTensorParallel(shape, j, gpu); tp > 0) {
        j.tensor_parallel = tp;
        if (j.expert_parallel > 0 && j.expert_parallel % tp != 0) j.expert_parallel = 0;
        steps.push_back(Say("plan.option.tensor_parallel").Int("tp", tp)
                            .Sub("link", LinkName(gpu, LinkForGroup(gpu, GpusOfSplit(j)).link)));
        fitted = fits_now();
      }
    }
    // Only worth listing when it takes more than one change (single changes are listed above).
    if (fitted && steps.size() >= 2) {
      Phrase all;
      for (auto& step : steps) all = all.empty() ? step : Say("plan.join_plus").Sub("a", all).Sub("b", step);
      add("combined", 3, j, gpu, Say("plan.option.combined").Sub("changes", all), Say("plan.option_cost.combined"));
    }
  }

  std::stable_sort(out.begin(), out.end(), [](const FitOption& a, const FitOption& b) {
    if (a.fit.fits != b.fit.fits) return a.fit.fits;
    if (a.fit.fits && a.cost_rank != b.cost_rank) return a.cost_rank < b.cost_rank;
    if (a.fit.fits && a.gpus != b.gpus) return a.gpus < b.gpus;
    return a.plan.total_bytes < b.plan.total_bytes;
  });
  return out;
}

}  // namespace gpuprobe::model
