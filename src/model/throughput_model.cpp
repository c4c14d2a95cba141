#include "model/throughput_model.h"

#include <algorithm>

#include "model/spec_derivation.h"

namespace gpuprobe::model {
namespace {

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

// tokens per step / step time, at 100% and at both ends of the efficiency range.
RateEstimate Range(double tokens, const StepTimes& step, double lo, double hi) {
  RateEstimate r;
  r.bound = tokens / step.At(1.0);
  r.efficiency_low = lo;
  r.efficiency_high = hi;
  r.low = tokens / step.At(lo);
  r.high = tokens / step.At(hi);
  r.limited_by = step.memory_bound() ? "memory bandwidth" : "compute";
  return r;
}

Phrase CommSuffix(const CommEstimate& comm, const Phrase& link) {
  if (comm.terms.empty()) return {};
  return Say("plan.basis.comm_suffix").Seconds("comm", comm.seconds).Sub("link", link);
}

}  // namespace

double StepTimes::At(double efficiency) const {
  return std::max(memory_seconds, compute_seconds) / efficiency + comm_seconds;
}

core::Result<DeviceRates> RatesFor(const Job& job, const GpuSpec& gpu) {
  DeviceRates out;
  auto bandwidth = MemoryBandwidthBytesPerSecond(gpu);
  if (!bandwidth) {
    return core::Status::Unavailable(gpu.name + ": memory bandwidth is not in the spec database")
        .WithKeys("error.spec.no_bandwidth", {{"gpu", gpu.name}});
  }
  out.compute_dtype = ComputeDType(job);
  auto peak = PeakFlops(gpu, out.compute_dtype);
  if (!peak && out.compute_dtype != "bf16") {
    out.compute_dtype = "bf16";  // e.g. fp8 on a GPU without fp8 tensor cores: runs as 16-bit
    peak = PeakFlops(gpu, "bf16");
  }
  if (!peak) {
    out.compute_dtype = "fp32";
    peak = PeakFlops(gpu, "fp32");
  }
  if (!peak) return core::Status::Unavailable(gpu.name + ": no peak FLOP/s in the spec database").WithKeys("error.spec.no_peak", {{"gpu", gpu.name}});
  out.peak_flops = *peak;
  out.bandwidth = *bandwidth;
  return out;
}

namespace {

// Weight bytes one decode step reads (whole model): MoE touches at most batch x top-k experts.
double WeightRead(const ModelShape& shape, const MemoryPlan& plan, double batch, double* touched) {
  const ParamCount& p = plan.params;
  double weight_bytes = plan.weight_bytes_total;
  *touched = 0;
  if (shape.num_experts > 0 && p.mlp > 0 && p.total > 0) {
    *touched = std::min<double>(static_cast<double>(shape.num_experts),
                                batch * static_cast<double>(shape.experts_per_token));
    double expert_share = static_cast<double>(p.mlp) / static_cast<double>(p.total);
    return weight_bytes * (1 - expert_share) +
           weight_bytes * expert_share * *touched / static_cast<double>(shape.num_experts);
  }
  return weight_bytes;
}

}  // namespace

StepTimes DecodeStep(const ModelShape& shape, const MemoryPlan& plan, const Job& job, const DeviceRates& rates,
                     const GpuLink& link, double batch, double context_tokens) {
  StepTimes t;
  const double tp = static_cast<double>(job.tensor_parallel);
  const double L = static_cast<double>(shape.num_layers);
  const double ad = static_cast<double>(shape.num_heads) * static_cast<double>(shape.head_dim);
  double touched = 0;
  double weight_read = WeightRead(shape, plan, batch, &touched);
  // Each sequence reads its whole cache every step: windows capped, MLA latent, SSM state.
  const double e_kv = BytesPerElement(job.kv_dtype);
  std::int64_t ctx = std::max<std::int64_t>(1, static_cast<std::int64_t>(context_tokens));
  double kv_read = KvCacheBytes(shape, e_kv, e_kv, ctx, 1) * batch;
  double flops_per_token = 2.0 * static_cast<double>(plan.params.active) + 4.0 * L * context_tokens * ad;
  t.memory_seconds = (weight_read + kv_read) / (tp * rates.bandwidth);
  t.compute_seconds = batch * flops_per_token / (tp * rates.peak_flops);
  t.comm_seconds = CommForTokens(shape, job, link, batch, false).seconds;
  return t;
}

StepTimes PrefillPass(const ModelShape& shape, const MemoryPlan& plan, const Job& job, const DeviceRates& rates,
                      const GpuLink& link, double batch, double prompt_tokens) {
  StepTimes t;
  const double tp = static_cast<double>(job.tensor_parallel);
  const double L = static_cast<double>(shape.num_layers);
  const double ad = static_cast<double>(shape.num_heads) * static_cast<double>(shape.head_dim);
  double flops = 2.0 * static_cast<double>(plan.params.active) * prompt_tokens * batch +
                 2.0 * L * prompt_tokens * prompt_tokens * ad * batch;
  t.compute_seconds = flops / (tp * rates.peak_flops);
  t.comm_seconds = CommForTokens(shape, job, link, batch * prompt_tokens, false).seconds;
  return t;
}

core::Result<ThroughputPlan> PredictThroughput(const ModelShape& shape, const MemoryPlan& plan,
                                               const Job& job, const GpuSpec& gpu) {
  ThroughputPlan out;
  auto rates = RatesFor(job, gpu);
  if (!rates.ok()) return rates.status();
  out.compute_dtype = rates->compute_dtype;
  out.peak_flops = rates->peak_flops;
  out.bandwidth_bytes_per_s = rates->bandwidth;
  out.comm = PlanCommunication(shape, job, gpu);
  const GpuLink& link = out.comm.link.link;
  const Phrase link_name = LinkName(gpu, link);
  if (out.comm.gpus > 1 && link.kind != LinkKind::kPcie) {
    GpuLink pcie = PcieLink(gpu);
    if (pcie.bytes_per_s > 0) out.comm_over_pcie = PlanCommunication(shape, job, gpu, pcie);
  }

  const ParamCount& p = plan.params;
  const double b = static_cast<double>(job.batch), s = static_cast<double>(job.seq);
  const double L = static_cast<double>(shape.num_layers);
  const double ad = static_cast<double>(shape.num_heads) * static_cast<double>(shape.head_dim);
  const int tp = job.tensor_parallel;

  // --- Decode: every step reads the weights once and each sequence's KV cache. ---
  out.decode_step = DecodeStep(shape, plan, job, *rates, link, b, s);
  double touched = 0;
  double weight_read = WeightRead(shape, plan, b, &touched);
  const double e_kv = BytesPerElement(job.kv_dtype);
  double kv_read = KvCacheBytes(shape, e_kv, e_kv, job.seq, job.batch);
  double flops_per_token = 2.0 * static_cast<double>(p.active) + 4.0 * L * s * ad;
  Phrase moe;
  if (touched > 0) {
    moe = Say("plan.basis.moe").Num("touched", touched).Int("experts", static_cast<double>(shape.num_experts))
              .Int("batch", b);
  }
  out.decode_per_stream = Range(1.0, out.decode_step, kDecodeEfficiencyLow, kDecodeEfficiencyHigh);
  out.decode_per_stream.basis =
      Say("plan.basis.decode").Bytes("weights", weight_read).Sub("moe", moe).Bytes("kv", kv_read).Int("batch", b)
          .Int("seq", s).Int("tp", tp).Rate("bandwidth", rates->bandwidth).Flop("flop", flops_per_token)
          .Flops("peak", rates->peak_flops).Text("dtype", out.compute_dtype)
          .Sub("comm", CommSuffix(out.comm.decode, link_name)).Seconds("step", out.decode_step.At(1.0));
  out.decode_per_stream.assumes = Say("plan.assumes.decode");
  out.decode_aggregate = Range(b, out.decode_step, kDecodeEfficiencyLow, kDecodeEfficiencyHigh);
  out.decode_aggregate.basis = Say("plan.basis.decode_batch").Int("batch", b);
  out.decode_aggregate.assumes = out.decode_per_stream.assumes;

  // --- Prefill: compute-bound matrix multiplies over the whole prompt. ---
  out.prefill_pass = PrefillPass(shape, plan, job, *rates, link, b, s);
  out.prefill = Range(s * b, out.prefill_pass, kPrefillEfficiencyLow, kPrefillEfficiencyHigh);
  out.prefill.limited_by = "compute";
  out.prefill.basis = Say("plan.basis.prefill").Params("params", static_cast<double>(p.active)).Int("seq", s)
                          .Int("batch", b).Int("layers", L).Int("ad", ad).Int("tp", tp)
                          .Flops("peak", rates->peak_flops).Text("dtype", out.compute_dtype)
                          .Sub("comm", CommSuffix(out.comm.prefill, link_name));
  out.prefill.assumes = Say("plan.assumes.prefill");

  // --- Training ---
  if (job.mode != JobMode::kInfer) {
    out.has_training = true;
    double per_token;
    std::string formula;
    if (job.mode == JobMode::kFull) {
      per_token = (job.activation_checkpointing ? 8.0 : 6.0) * static_cast<double>(p.active);
      formula = job.activation_checkpointing ? "plan.training_formula.full_recompute" : "plan.training_formula.full";
    } else {
      per_token = 4.0 * static_cast<double>(p.active) + 6.0 * static_cast<double>(plan.lora_params) +
                  (job.activation_checkpointing ? 2.0 * static_cast<double>(p.active) : 0.0);
      formula = job.activation_checkpointing ? "plan.training_formula.lora_recompute" : "plan.training_formula.lora";
    }
    out.training_step.compute_seconds = per_token * b * s / (static_cast<double>(tp) * rates->peak_flops);
    out.training_step.comm_seconds = out.comm.training.seconds;
    out.training = Range(b * s, out.training_step, kMfuLow, kMfuHigh);
    out.training.limited_by = "compute";
    out.training.basis = Say("plan.basis.training").Int("tp", tp).Flops("peak", rates->peak_flops).Key("formula", formula)
                             .Flop("flop", per_token).Sub("comm", CommSuffix(out.comm.training, link_name));
    out.training.assumes = Say(job.mode == JobMode::kQlora ? "plan.assumes.training_qlora" : "plan.assumes.training");
  }
  return out;
}

}  // namespace gpuprobe::model
