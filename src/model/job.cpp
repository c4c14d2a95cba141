// Job names and validation (declared in memory_planner.h).
#include "model/memory_planner.h"
#include "model/quantity.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace gpuprobe::model {

using core::Result;
using core::Status;

std::string JobModeName(JobMode mode) {
  switch (mode) {
    case JobMode::kInfer: return "infer";
    case JobMode::kLora: return "lora";
    case JobMode::kQlora: return "qlora";
    case JobMode::kFull: return "full";
  }
  return "?";
}

Result<JobMode> ParseJobMode(const std::string& name) {
  if (name == "infer" || name == "inference") return JobMode::kInfer;
  if (name == "lora") return JobMode::kLora;
  if (name == "qlora") return JobMode::kQlora;
  if (name == "full" || name == "full-ft") return JobMode::kFull;
  return Status::InvalidArgument("unknown mode '" + name + "' (use infer, lora, qlora or full)")
      .WithKeys("error.job.mode", {{"value", name}});
}

std::string OptimizerName(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kAdamW: return "adamw";
    case Optimizer::kAdamW8bit: return "adamw-8bit";
    case Optimizer::kSgd: return "sgd";
  }
  return "?";
}

Result<Optimizer> ParseOptimizer(const std::string& name) {
  if (name == "adamw" || name == "adam") return Optimizer::kAdamW;
  if (name == "adamw-8bit" || name == "adamw8bit" || name == "adam8bit") return Optimizer::kAdamW8bit;
  if (name == "sgd") return Optimizer::kSgd;
  return Status::InvalidArgument("unknown optimizer '" + name + "' (use adamw, adamw-8bit or sgd)")
      .WithKeys("error.job.optimizer", {{"value", name}});
}

Status ValidateJob(const ModelShape& shape, const Job& job) {
  GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kBatch, static_cast<double>(job.batch), "--batch"));
  GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kTokens, static_cast<double>(job.seq), "--seq"));
  GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kGpuCount, job.tensor_parallel, "--tp"));
  if (job.tensor_parallel > 1 && shape.num_heads % job.tensor_parallel != 0) {
    return Status::InvalidArgument(fmt::format(
                                       "--tp {} does not divide the {} attention heads (tensor parallelism splits heads evenly)",
                                       job.tensor_parallel, shape.num_heads))
        .WithKeys("error.plan.tp_heads", {{"tp", std::to_string(job.tensor_parallel)}, {"heads", std::to_string(shape.num_heads)}});
  }
  GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kGpuCount, job.pipeline_parallel, "--pp"));
  if (job.pipeline_parallel > shape.num_layers) {
    return Status::InvalidArgument(fmt::format("--pp {} is more pipeline stages than the model's {} layers",
                                               job.pipeline_parallel, shape.num_layers))
                                                   .WithKeys("error.job.pp_layers", {{"pp", std::to_string(job.pipeline_parallel)}, {"layers", std::to_string(shape.num_layers)}});
  }
  // 0 means expert parallelism is off; any other value is a GPU count.
  GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kGpuCount, job.expert_parallel, "--ep", /*allow_zero=*/true));
  if (job.expert_parallel > 0) {
    if (shape.num_experts == 0) {
      return Status::InvalidArgument("--ep splits the experts of a mixture-of-experts model; this model has none")
          .WithKeys("error.job.ep_no_experts", {});
    }
    if (shape.num_experts % job.expert_parallel != 0) {
      return Status::InvalidArgument(fmt::format("--ep {} does not divide the {} experts (each GPU holds whole experts)",
                                                 job.expert_parallel, shape.num_experts))
                                                     .WithKeys("error.job.ep_divide", {{"ep", std::to_string(job.expert_parallel)}, {"experts", std::to_string(shape.num_experts)}});
    }
    if (job.expert_parallel % job.tensor_parallel != 0) {
      return Status::InvalidArgument(fmt::format(
          "--ep {} must be a multiple of --tp {} (expert parallelism spans the tensor-parallel x data-parallel GPUs)",
          job.expert_parallel, job.tensor_parallel))
              .WithKeys("error.job.ep_tp", {{"ep", std::to_string(job.expert_parallel)}, {"tp", std::to_string(job.tensor_parallel)}});
    }
  }
  GPUPROBE_RETURN_IF_ERROR(
      CheckQuantity(Quantity::kTokens, static_cast<double>(job.shared_prefix), "--shared-prefix", /*allow_zero=*/true));
  if (job.shared_prefix >= job.seq) {
    return Status::InvalidArgument(fmt::format("--shared-prefix {} must be below --seq {}", job.shared_prefix, job.seq))
        .WithKeys("error.job.shared_prefix", {{"prefix", std::to_string(job.shared_prefix)}, {"seq", std::to_string(job.seq)}});
  }
  if (job.mode == JobMode::kLora || job.mode == JobMode::kQlora) {
    GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kLoraRank, job.lora_rank, "--lora-rank"));
  }
  if (job.mode == JobMode::kFull && !IsFloat16Or32(job.weight_dtype)) {
    return Status::InvalidArgument("full fine-tuning needs fp32, fp16 or bf16 weights, not " +
                                   DTypeName(job.weight_dtype), "use --mode qlora to train on 4-bit weights")
                                       .WithKeys("error.job.full_weights", {{"dtype", DTypeName(job.weight_dtype)}}, "error.job.full_weights.hint");
  }
  GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kHeadroom, job.headroom, "--headroom"));
  return Status::Ok();
}

}  // namespace gpuprobe::model
