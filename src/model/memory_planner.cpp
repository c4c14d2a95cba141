#include "model/memory_planner.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/units.h"
#include "model/quantization.h"

namespace gpuprobe::model {
namespace {

using core::Result;
using core::Status;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
// CUDA context, kernels and library workspaces: HF measured 1.3 GB (V100), vLLM logs
// 0.12-1.79 GiB of "non-torch" memory; calculators assume 650 MB-1 GiB (docs/plan.md, 'Overhead').
constexpr double kOverheadBytes = 1.0 * kGiB;
constexpr double kOverheadLowBytes = 0.5 * kGiB;
constexpr double kOverheadHighBytes = 2.0 * kGiB;

// " / N GPUs (tensor parallel)" after a formula, or nothing.
Phrase TpSuffix(int tp) { return tp > 1 ? Say("plan.formula.tp_suffix").Int("tp", tp) : Phrase(); }

// "{a}{sep}{b}" for lists of parts, with `sep_key` naming the separator text.
Phrase Join(const std::string& sep_key, Phrase a, Phrase b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return Say(sep_key).Sub("a", std::move(a)).Sub("b", std::move(b));
}

bool IsTraining(JobMode mode) { return mode != JobMode::kInfer; }

}  // namespace

int GpusOfSplit(const Job& job) {
  return std::max(job.tensor_parallel, job.expert_parallel) * std::max(1, job.pipeline_parallel);
}

namespace {

// One layer's activations kept for the backward pass, in bytes, for `tokens` = b x s, with
// 16-bit activations. Gated families: the modern SwiGLU + GQA + FlashAttention variant
// (no s^2 term); GPT-2/BERT: Korthikanti et al. (GPT-3-style layer, eager attention).
double LayerActivationBytes(const ModelShape& s, double batch, double seq) {
  double tokens = batch * seq;
  double h = static_cast<double>(s.hidden_size), a = static_cast<double>(s.num_heads);
  double d = static_cast<double>(s.head_dim), k = static_cast<double>(s.num_kv_heads);
  double f = static_cast<double>(s.intermediate_size);
  if (s.gated_mlp) {
    // attention 2sbh + 2sb(ad) + 4sb(kd) + 2sbh + 4asb (fp32 LSE); MLP 2sbh + 8sbf; norms 4sbh.
    return tokens * (2 * h + 2 * a * d + 4 * k * d + 2 * h + 2 * h + 8 * f + 4 * h) + 4 * a * tokens;
  }
  // sbh (34 + 5 a s / h)
  return tokens * h * (34.0 + 5.0 * a * seq / h);
}

// Text key of the per-layer activation formula the shape uses.
std::string LayerActivationFormula(const ModelShape& s) {
  return s.gated_mlp ? "plan.formula.layer_gated" : "plan.formula.layer_korthikanti";
}

struct LinearShape {
  double in, out, count;  // count: how many such matrices per layer (experts multiply)
};

std::vector<LinearShape> AdaptedLinears(const ModelShape& s, bool all_linears) {
  double h = static_cast<double>(s.hidden_size), a = static_cast<double>(s.num_heads);
  double d = static_cast<double>(s.head_dim), k = static_cast<double>(s.num_kv_heads);
  double f = static_cast<double>(s.intermediate_size);
  double experts = s.num_experts > 0 ? static_cast<double>(s.num_experts) : 1.0;
  std::vector<LinearShape> out;
  if (s.family == "gpt2") {
    out.push_back({h, 3 * h, 1});  // c_attn (fused q, k, v)
    out.push_back({h, h, 1});      // attn c_proj
    if (all_linears) {
      out.push_back({h, f, 1});    // c_fc
      out.push_back({f, h, 1});    // mlp c_proj
    }
    return out;
  }
  out.push_back({h, a * d, 1});  // q
  out.push_back({h, k * d, 1});  // k
  out.push_back({h, k * d, 1});  // v
  out.push_back({a * d, h, 1});  // o
  if (all_linears) {
    if (s.gated_mlp) {
      out.push_back({h, f, experts});  // gate
      out.push_back({h, f, experts});  // up
      out.push_back({f, h, experts});  // down
    } else {
      out.push_back({h, f, experts});
      out.push_back({f, h, experts});
    }
  }
  return out;
}

}  // namespace

std::int64_t LoraParameterCount(const ModelShape& shape, int rank, bool all_linears) {
  double total = 0;
  for (const auto& linear : AdaptedLinears(shape, all_linears)) {
    total += static_cast<double>(rank) * (linear.in + linear.out) * linear.count;
  }
  return static_cast<std::int64_t>(std::llround(total * static_cast<double>(shape.num_layers)));
}

Result<MemoryPlan> PlanMemory(const ModelShape& shape, const Job& job) {
  GPUPROBE_RETURN_IF_ERROR(ValidateJob(shape, job));
  MemoryPlan plan;
  plan.params = CountParameters(shape);
  const ParamCount& p = plan.params;
  const double tp = static_cast<double>(job.tensor_parallel);
  const double b = static_cast<double>(job.batch), s = static_cast<double>(job.seq);

  // 1. Weights. Quantisers keep embeddings, head, norms and routers in 16-bit (docs/plan.md,
  // 'Bytes per element'). Routed experts divide over --ep GPUs, the rest over --tp; pipeline
  // stages each hold 1/pp of the layers.
  {
    MemoryComponent c;
    c.id = "weights";
    c.name_key = "plan.component.weights";
    const double total = static_cast<double>(p.total);
    const double experts = static_cast<double>(p.experts);
    const double ep = job.expert_parallel > 0 ? static_cast<double>(job.expert_parallel) : tp;
    const double pp = static_cast<double>(job.pipeline_parallel);
    // Share of the whole model one GPU holds.
    const double share = total > 0 ? ((total - experts) / tp + experts / ep) / pp / total : 1.0 / (tp * pp);
    Phrase split;
    if (job.tensor_parallel > 1 || job.pipeline_parallel > 1 || job.expert_parallel > 0) {
      split = job.expert_parallel > 0
                  ? Say("plan.formula.split_ep").Int("tp", job.tensor_parallel).Params("experts", experts)
                        .Int("ep", job.expert_parallel).Int("pp", job.pipeline_parallel)
                  : Say("plan.formula.split").Int("tp", job.tensor_parallel).Int("pp", job.pipeline_parallel);
    }
    DType dtype = job.mode == JobMode::kQlora ? DType::kNf4 : job.weight_dtype;
    double whole = 0;
    if (job.checkpoint_weight_bytes > 0 && job.mode != JobMode::kQlora) {
      whole = job.checkpoint_weight_bytes;
      c.formula = Say("plan.formula.weights_checkpoint").Bytes("bytes", whole).Sub("note", job.checkpoint_weight_note)
                      .Sub("split", split);
      c.source = Say("plan.source.weights_checkpoint");
    } else if (job.weight_quant && job.mode != JobMode::kQlora) {
      const WeightQuant& q = *job.weight_quant;
      const QuantSplit parts = SplitForQuant(shape, p, q);
      const double linear = parts.quantized, kept = parts.kept;
      whole = linear * q.BytesPerWeight() + kept * 2.0;
      c.formula = Say("plan.formula.weights_quantized").Params("linear", linear).Num("bytes", q.BytesPerWeight())
                      .Text("method", q.method).Text("detail", q.detail).Params("kept", kept).Sub("split", split);
      c.source = Say("plan.source.weights_quantized");
    } else if (IsFloat16Or32(dtype)) {
      double e = BytesPerElement(dtype);
      whole = total * e;
      c.formula = Say("plan.formula.weights_float").Params("params", total).Num("bytes", e).Text("dtype", DTypeName(dtype))
                      .Sub("split", split);
      c.source = Say("plan.source.weights_float");
    } else {
      double e = BytesPerElement(dtype);
      double linear = static_cast<double>(p.linear), kept = static_cast<double>(p.kept_16bit);
      whole = linear * e + kept * 2.0;
      c.formula = Say("plan.formula.weights_lowbit").Params("linear", linear).Num("bytes", e).Text("dtype", DTypeName(dtype))
                      .Params("kept", kept).Sub("split", split);
      c.source = Say(dtype == DType::kNf4 ? "plan.source.weights_nf4" : "plan.source.weights_lowbit");
    }
    c.bytes = whole * share;
    plan.weight_bytes_per_gpu = c.bytes;
    plan.weight_bytes_total = whole;
    plan.components.push_back(c);
  }

  // 2. KV cache (inference only; training keeps K and V inside the activations). Per layer:
  // K and V of min(s, window) tokens, the MLA latent, or an SSM layer's fixed state.
  const double e_kv = BytesPerElement(job.kv_dtype);
  const double gpus_for_kv = tp * static_cast<double>(job.pipeline_parallel);
  plan.kv_bytes_per_token = KvBytesPerToken(shape, e_kv, 1);
  plan.kv_bytes_per_sequence = KvCacheBytes(shape, e_kv, e_kv, job.seq, 1, job.tensor_parallel, 16) / gpus_for_kv;
  if (!IsTraining(job.mode)) {
    MemoryComponent c;
    c.id = "kv_cache";
    c.name_key = "plan.component.kv_cache";
    double per_token = KvBytesPerToken(shape, e_kv, job.tensor_parallel) / gpus_for_kv;
    c.bytes = KvCacheBytes(shape, e_kv, e_kv, job.seq, job.batch, job.tensor_parallel) / gpus_for_kv;
    std::int64_t full = 0, sliding = 0, mla = 0, ssm = 0;
    for (const LayerShape& l : shape.layers) {
      switch (l.mixer) {
        case MixerKind::kFullAttention: ++full; break;
        case MixerKind::kSlidingAttention: ++sliding; break;
        case MixerKind::kMla: ++mla; break;
        case MixerKind::kSsm: ++ssm; break;
        case MixerKind::kNone: break;
      }
    }
    Phrase layers;
    if (shape.layers.empty() || full > 0) {
      layers = Say("plan.formula.kv_full").Int("kv", static_cast<double>(shape.num_kv_heads))
                   .Int("d", static_cast<double>(shape.head_dim))
                   .Int("layers", static_cast<double>(shape.layers.empty() ? shape.num_layers : full));
    }
    if (sliding > 0) {
      layers = Join("plan.join_semicolon", layers,
                    Say("plan.formula.kv_sliding").Int("layers", static_cast<double>(sliding))
                        .Int("window", static_cast<double>(shape.sliding_window)));
    }
    if (mla > 0) {
      layers = Join("plan.join_semicolon", layers,
                    Say("plan.formula.kv_mla").Int("latent", static_cast<double>(shape.layers.front().latent_dim))
                        .Int("layers", static_cast<double>(mla)));
    }
    if (ssm > 0) {
      layers = Join("plan.join_semicolon", layers, Say("plan.formula.kv_ssm").Int("layers", static_cast<double>(ssm)));
    }
    c.formula = Say("plan.formula.kv").Sub("layers", layers).Num("bytes", e_kv).Text("dtype", DTypeName(job.kv_dtype))
                    .Bytes("per_token", per_token)
                    .Sub("per_gpu", gpus_for_kv > 1 ? Say("plan.formula.per_gpu_suffix") : Phrase())
                    .Int("seq", static_cast<double>(job.seq)).Int("batch", static_cast<double>(job.batch));
    c.source = Say("plan.source.kv");
    plan.components.push_back(c);
  }

  // Activations, gradients and optimizer states divide over every GPU of the split.
  const double split = tp * static_cast<double>(job.pipeline_parallel);
  const Phrase per_gpu = TpSuffix(job.tensor_parallel);

  // 3. Activations.
  {
    MemoryComponent c;
    c.id = "activations";
    c.name_key = "plan.component.activations";
    double layer = LayerActivationBytes(shape, b, s);
    double vocab = static_cast<double>(shape.vocab_size);
    if (!IsTraining(job.mode)) {
      // Only the transient peak of one layer during prefill, plus fp32 logits of the last position.
      double logits = b * vocab * 4.0;
      c.bytes = (layer + logits) / split;
      c.formula = Say("plan.formula.activations_infer").Key("layer_formula", LayerActivationFormula(shape))
                      .Bytes("layer", layer).Int("tokens", static_cast<double>(job.batch * job.seq))
                      .Bytes("logits", logits).Sub("per_gpu", per_gpu);
      c.source = Say("plan.source.activations_infer");
    } else {
      double L = static_cast<double>(shape.num_layers);
      // fp32 logits and their gradient for the loss (R counts 4 b s V x 2).
      double logits = b * s * vocab * 4.0 * 2.0;
      double stored = job.activation_checkpointing
                          ? L * 2.0 * b * s * static_cast<double>(shape.hidden_size) + layer
                          : L * layer;
      c.bytes = (stored + logits) / split;
      c.formula = job.activation_checkpointing
                      ? Say("plan.formula.activations_checkpointed").Int("layers", L).Bytes("layer", layer)
                            .Bytes("logits", logits).Sub("per_gpu", per_gpu)
                      : Say("plan.formula.activations_train").Int("layers", L)
                            .Key("layer_formula", LayerActivationFormula(shape)).Bytes("layer", layer)
                            .Bytes("logits", logits).Sub("per_gpu", per_gpu);
      c.source = Say("plan.source.activations_train");
    }
    plan.components.push_back(c);
  }

  // 4-6. Gradients, optimizer states, adapters.
  const bool mixed = job.weight_dtype != DType::kFp32;  // 16-bit training keeps an fp32 master copy
  if (job.mode == JobMode::kFull) {
    double trainable = static_cast<double>(p.total);
    double grad_bytes = mixed ? 2.0 : 4.0;
    MemoryComponent g;
    g.id = "gradients";
    g.name_key = "plan.component.gradients";
    g.bytes = trainable * grad_bytes / split;
    g.formula = Say("plan.formula.gradients").Params("params", trainable).Num("bytes", grad_bytes).Sub("per_gpu", per_gpu);
    g.source = Say("plan.source.gradients");
    plan.components.push_back(g);

    MemoryComponent o;
    o.id = "optimizer";
    o.name_key = "plan.component.optimizer";
    double state_bytes = 0;
    std::string what;
    switch (job.optimizer) {
      case Optimizer::kAdamW:
        state_bytes = mixed ? 12 : 8;
        what = mixed ? "plan.optimizer_states.adamw_mixed" : "plan.optimizer_states.adamw";
        break;
      case Optimizer::kAdamW8bit:
        state_bytes = mixed ? 6 : 2;
        what = mixed ? "plan.optimizer_states.adamw8bit_mixed" : "plan.optimizer_states.adamw8bit";
        break;
      case Optimizer::kSgd:
        state_bytes = mixed ? 8 : 4;
        what = mixed ? "plan.optimizer_states.sgd_mixed" : "plan.optimizer_states.sgd";
        break;
    }
    o.bytes = trainable * state_bytes / split;
    o.formula = Say("plan.formula.optimizer").Params("params", trainable).Num("bytes", state_bytes).Key("what", what)
                    .Sub("per_gpu", per_gpu);
    o.source = Say("plan.source.optimizer");
    plan.components.push_back(o);
  } else if (job.mode == JobMode::kLora || job.mode == JobMode::kQlora) {
    plan.lora_params = LoraParameterCount(shape, job.lora_rank, job.lora_all_linears);
    double adapters = static_cast<double>(plan.lora_params);
    std::string targets = job.lora_all_linears ? "plan.lora_targets.all" : "plan.lora_targets.attention";
    MemoryComponent w;
    w.id = "lora_adapters";
    w.name_key = "plan.component.lora_adapters";
    w.bytes = adapters * 4.0 / split;
    w.formula = Say("plan.formula.lora_adapters").Int("rank", job.lora_rank).Key("targets", targets)
                    .Params("params", adapters).Sub("per_gpu", per_gpu);
    w.source = Say("plan.source.lora_adapters");
    plan.components.push_back(w);

    MemoryComponent g;
    g.id = "gradients";
    g.name_key = "plan.component.gradients_adapters";
    g.bytes = adapters * 4.0 / split;
    g.formula = Say("plan.formula.lora_gradients").Params("params", adapters);
    g.source = Say("plan.source.lora_gradients");
    plan.components.push_back(g);

    MemoryComponent o;
    o.id = "optimizer";
    o.name_key = "plan.component.optimizer_adapters";
    double state_bytes = job.optimizer == Optimizer::kAdamW ? 8 : job.optimizer == Optimizer::kAdamW8bit ? 2 : 4;
    o.bytes = adapters * state_bytes / split;
    o.formula = Say("plan.formula.lora_optimizer").Params("params", adapters).Num("bytes", state_bytes)
                    .Text("optimizer", OptimizerName(job.optimizer));
    o.source = Say("plan.source.lora_optimizer");
    plan.components.push_back(o);
  }

  // 7. Overhead.
  {
    MemoryComponent c;
    c.id = "overhead";
    c.name_key = "plan.component.overhead";
    const bool split_job = GpusOfSplit(job) > 1;
    c.bytes = kOverheadBytes + (split_job ? kNcclBufferBytes : 0);
    c.formula = Say("plan.formula.overhead").Bytes("bytes", kOverheadBytes).Bytes("low", kOverheadLowBytes)
                    .Bytes("high", kOverheadHighBytes)
                    .Sub("nccl", split_job ? Say("plan.formula.nccl").Bytes("bytes", kNcclBufferBytes) : Phrase());
    c.source = Say("plan.source.overhead");
    plan.overhead_bytes = c.bytes;
    plan.overhead_low_bytes = kOverheadLowBytes;
    plan.overhead_high_bytes = kOverheadHighBytes + (split_job ? kNcclBufferBytes : 0);
    plan.components.push_back(c);
  }

  for (const auto& c : plan.components) plan.total_bytes += c.bytes;
  Phrase names;
  for (const auto& c : plan.components) names = Join("plan.join_plus", names, Say(c.name_key));
  plan.summed = Say("plan.summed").Sub("names", names);
  return plan;
}

}  // namespace gpuprobe::model
