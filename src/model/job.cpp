// Job names and validation (declared in memory_planner.h).
#include "model/memory_planner.h"

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
  return Status::InvalidArgument("unknown mode '" + name + "' (use infer, lora, qlora or full)");
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
  return Status::InvalidArgument("unknown optimizer '" + name + "' (use adamw, adamw-8bit or sgd)");
}

Status ValidateJob(const ModelShape& shape, const Job& job) {
  if (job.batch <= 0) return Status::InvalidArgument(fmt::format("--batch must be positive, got {}", job.batch));
  if (job.batch > kMaxBatch) {
    return Status::InvalidArgument(fmt::format("--batch {} is absurd (limit {})", job.batch, kMaxBatch));
  }
  if (job.seq <= 0) return Status::InvalidArgument(fmt::format("--seq must be positive, got {}", job.seq));
  if (job.seq > kMaxSeq) {
    return Status::InvalidArgument(fmt::format("--seq {} tokens is absurd (limit {} tokens)", job.seq, kMaxSeq));
  }
  if (job.tensor_parallel <= 0 || job.tensor_parallel > 1024) {
    return Status::InvalidArgument(fmt::format("--tp must be between 1 and 1024, got {}", job.tensor_parallel));
  }
  if (job.tensor_parallel > 1 && shape.num_heads % job.tensor_parallel != 0) {
    return Status::InvalidArgument(fmt::format(
        "--tp {} does not divide the {} attention heads (tensor parallelism splits heads evenly)",
        job.tensor_parallel, shape.num_heads));
  }
  if (job.pipeline_parallel <= 0 || job.pipeline_parallel > 1024) {
    return Status::InvalidArgument(fmt::format("--pp must be between 1 and 1024, got {}", job.pipeline_parallel));
  }
  if (job.pipeline_parallel > shape.num_layers) {
    return Status::InvalidArgument(fmt::format("--pp {} is more pipeline stages than the model's {} layers",
                                               job.pipeline_parallel, shape.num_layers));
  }
  if (job.expert_parallel < 0 || job.expert_parallel > 65536) {
    return Status::InvalidArgument(fmt::format("--ep must be between 1 and 65536, got {}", job.expert_parallel));
  }
  if (job.expert_parallel > 0) {
    if (shape.num_experts == 0) {
      return Status::InvalidArgument("--ep splits the experts of a mixture-of-experts model; this model has none");
    }
    if (shape.num_experts % job.expert_parallel != 0) {
      return Status::InvalidArgument(fmt::format("--ep {} does not divide the {} experts (each GPU holds whole experts)",
                                                 job.expert_parallel, shape.num_experts));
    }
    if (job.expert_parallel % job.tensor_parallel != 0) {
      return Status::InvalidArgument(fmt::format(
          "--ep {} must be a multiple of --tp {} (expert parallelism spans the tensor-parallel x data-parallel GPUs)",
          job.expert_parallel, job.tensor_parallel));
    }
  }
  if (job.shared_prefix < 0 || job.shared_prefix >= job.seq) {
    if (job.shared_prefix != 0) {
      return Status::InvalidArgument(fmt::format("--shared-prefix {} must be below --seq {}", job.shared_prefix, job.seq));
    }
  }
  if (job.mode == JobMode::kLora || job.mode == JobMode::kQlora) {
    if (job.lora_rank <= 0 || job.lora_rank > 65536) {
      return Status::InvalidArgument(fmt::format("--lora-rank must be between 1 and 65536, got {}", job.lora_rank));
    }
  }
  if (job.mode == JobMode::kFull && !IsFloat16Or32(job.weight_dtype)) {
    return Status::InvalidArgument("full fine-tuning needs fp32, fp16 or bf16 weights, not " +
                                   DTypeName(job.weight_dtype), "use --mode qlora to train on 4-bit weights");
  }
  if (!(job.headroom > 0 && job.headroom <= 1)) {
    return Status::InvalidArgument(fmt::format("--headroom must be in (0, 1], got {}", job.headroom));
  }
  return Status::Ok();
}

}  // namespace gpuprobe::model
