#include "model/throughput_model.h"

#include <algorithm>

#include <fmt/format.h>

#include "model/spec_derivation.h"

namespace gpuprobe::model {
namespace {

// Measured decode efficiency against the bandwidth bound spans ~0.5 (llama.cpp f16 on
// A100/H100) to ~0.9 (RTX 4080/4090) (docs/plan.md, 'Throughput').
constexpr double kDecodeEfficiencyLow = 0.5, kDecodeEfficiencyHigh = 0.9;
// Prefill: llama.cpp reaches 13-22% of datacenter peaks; tuned GEMM libraries ~80% (MAMF).
constexpr double kPrefillEfficiencyLow = 0.2, kPrefillEfficiencyHigh = 0.6;
// Training MFU: 0.35-0.55 typical (Megatron 54.2% at 530B; LLaMA-65B ~47.6%).
constexpr double kMfuLow = 0.35, kMfuHigh = 0.55;

std::string ComputeDType(const Job& job) {
  switch (job.mode == JobMode::kQlora ? DType::kNf4 : job.weight_dtype) {
    case DType::kFp32: return "fp32";
    case DType::kFp16: return "fp16";
    case DType::kBf16: return "bf16";
    case DType::kFp8: return "fp8";
    case DType::kInt8: return "int8";
    default: return "bf16";  // weight-only 4-bit formats dequantise to 16-bit for the math
  }
}

RateEstimate Range(double bound, double lo, double hi) {
  RateEstimate r;
  r.bound = bound;
  r.efficiency_low = lo;
  r.efficiency_high = hi;
  r.low = bound * lo;
  r.high = bound * hi;
  return r;
}

}  // namespace

core::Result<ThroughputPlan> PredictThroughput(const ModelShape& shape, const MemoryPlan& plan,
                                               const Job& job, const GpuSpec& gpu) {
  ThroughputPlan out;
  auto bandwidth = MemoryBandwidthBytesPerSecond(gpu);
  if (!bandwidth) return core::Status::Unavailable(gpu.name + ": memory bandwidth is not in the spec database");
  out.compute_dtype = ComputeDType(job);
  auto peak = PeakFlops(gpu, out.compute_dtype);
  if (!peak && out.compute_dtype != "bf16") {
    out.compute_dtype = "bf16";  // e.g. fp8 on a GPU without fp8 tensor cores: runs as 16-bit
    peak = PeakFlops(gpu, "bf16");
  }
  if (!peak) peak = PeakFlops(gpu, "fp32");
  if (!peak) return core::Status::Unavailable(gpu.name + ": no peak FLOP/s in the spec database");
  out.peak_flops = *peak;
  out.bandwidth_bytes_per_s = *bandwidth;

  const ParamCount& p = plan.params;
  const double tp = static_cast<double>(job.tensor_parallel);
  const double b = static_cast<double>(job.batch), s = static_cast<double>(job.seq);
  const double L = static_cast<double>(shape.num_layers);
  const double ad = static_cast<double>(shape.num_heads) * static_cast<double>(shape.head_dim);

  // --- Decode: every step reads the weights once and each sequence's KV cache. ---
  double weight_bytes = 0;
  for (const auto& c : plan.components) {
    if (c.id == "weights") weight_bytes = c.bytes * tp;  // whole model
  }
  double weight_read = weight_bytes;
  std::string moe_note;
  if (shape.num_experts > 0 && p.mlp > 0) {
    // A step touches at most b x top-k distinct experts per layer.
    double touched = std::min<double>(static_cast<double>(shape.num_experts),
                                      b * static_cast<double>(shape.experts_per_token));
    double expert_share = static_cast<double>(p.mlp) / static_cast<double>(p.total);
    weight_read = weight_bytes * (1 - expert_share) +
                  weight_bytes * expert_share * touched / static_cast<double>(shape.num_experts);
    moe_note = fmt::format(" (MoE: {} of {} experts per layer read at batch {})", touched, shape.num_experts, job.batch);
  }
  // Each sequence reads its whole cache every step: windows capped, MLA latent, SSM state.
  const double e_kv = BytesPerElement(job.kv_dtype);
  double kv_read = KvCacheBytes(shape, e_kv, e_kv, job.seq, job.batch);
  double flops_per_token = 2.0 * static_cast<double>(p.active) + 4.0 * L * s * ad;
  double t_mem = (weight_read + kv_read) / (tp * *bandwidth);
  double t_cmp = b * flops_per_token / (tp * *peak);
  double step = std::max(t_mem, t_cmp);
  bool memory_bound = t_mem >= t_cmp;
  out.decode_per_stream = Range(1.0 / step, kDecodeEfficiencyLow, kDecodeEfficiencyHigh);
  out.decode_per_stream.limited_by = memory_bound ? "memory bandwidth" : "compute";
  out.decode_per_stream.basis = fmt::format(
      "step = max(({:.3g} GB weights{} + {:.3g} GB KV for {} x {} tokens) / ({} x {:.0f} GB/s), "
      "{} x {:.3g} GFLOP per token / ({} x {:.0f} TFLOP/s {})) = {:.3g} ms",
      weight_read / 1e9, moe_note, kv_read / 1e9, job.batch, job.seq, job.tensor_parallel, *bandwidth / 1e9,
      job.batch, flops_per_token / 1e9, job.tensor_parallel, *peak / 1e12, out.compute_dtype, step * 1e3);
  out.decode_per_stream.assumes = "measured decode reaches 50-90% of the bandwidth bound (llama.cpp and gpt-fast measurements, docs/plan.md)";
  out.decode_aggregate = Range(b / step, kDecodeEfficiencyLow, kDecodeEfficiencyHigh);
  out.decode_aggregate.limited_by = out.decode_per_stream.limited_by;
  out.decode_aggregate.basis = fmt::format("batch {} / step time", job.batch);
  out.decode_aggregate.assumes = out.decode_per_stream.assumes;

  // --- Prefill: compute-bound matrix multiplies over the whole prompt. ---
  double prefill_flops = 2.0 * static_cast<double>(p.active) * s * b + 2.0 * L * s * s * ad * b;
  double prefill_time = prefill_flops / (tp * *peak);
  out.prefill = Range(s * b / prefill_time, kPrefillEfficiencyLow, kPrefillEfficiencyHigh);
  out.prefill.limited_by = "compute";
  out.prefill.basis = fmt::format("(2 x {:.3g}e9 params x {} tokens x {} + 2 x {} layers x {}^2 x {} x {}) FLOP "
                                  "/ ({} x {:.0f} TFLOP/s {} dense)",
                                  p.active / 1e9, job.seq, job.batch, shape.num_layers, job.seq, ad, job.batch,
                                  job.tensor_parallel, *peak / 1e12, out.compute_dtype);
  out.prefill.assumes = "20-60% of dense peak: llama.cpp reaches 13-22%, tuned GEMM ~80% at large sizes (docs/plan.md)";

  // --- Training ---
  if (job.mode != JobMode::kInfer) {
    out.has_training = true;
    double per_token;
    std::string formula;
    if (job.mode == JobMode::kFull) {
      per_token = (job.activation_checkpointing ? 8.0 : 6.0) * static_cast<double>(p.active);
      formula = job.activation_checkpointing ? "8 x P (6 P + 2 P recompute)" : "6 x P (forward 2 P + backward 4 P)";
    } else {
      per_token = 4.0 * static_cast<double>(p.active) + 6.0 * static_cast<double>(plan.lora_params) +
                  (job.activation_checkpointing ? 2.0 * static_cast<double>(p.active) : 0.0);
      formula = job.activation_checkpointing ? "4 P + 6 P_lora + 2 P recompute" : "4 P + 6 P_lora (no weight gradients)";
    }
    out.training = Range(tp * *peak / per_token, kMfuLow, kMfuHigh);
    out.training.limited_by = "compute";
    out.training.basis = fmt::format("{} x {:.0f} TFLOP/s / ({} = {:.3g} GFLOP per token)", job.tensor_parallel,
                                     *peak / 1e12, formula, per_token / 1e9);
    out.training.assumes = "MFU 35-55% (Megatron 54.2% at 530B; LLaMA-65B ~47.6%; docs/plan.md)";
    if (job.mode == JobMode::kQlora) {
      out.training.assumes += "; QLoRA's on-the-fly dequantisation makes it slower still";
    }
  }
  return out;
}

}  // namespace gpuprobe::model
