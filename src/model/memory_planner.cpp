#include "model/memory_planner.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/units.h"

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

std::string Num(double value) {
  if (value >= 1e9) return fmt::format("{:.3g}e9", value / 1e9);
  if (value >= 1e6) return fmt::format("{:.3g}e6", value / 1e6);
  return fmt::format("{:.0f}", value);
}

std::string Bytes(double bytes) { return core::FormatBytesBinary(bytes); }

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

std::string LayerActivationFormula(const ModelShape& s) {
  if (s.gated_mlp) {
    return "per layer b*s*(10h + 2ad + 4kd + 8f) + 4abs bytes (SwiGLU + GQA + FlashAttention, no s^2 term)";
  }
  return "per layer b*s*h*(34 + 5as/h) bytes (Korthikanti et al. 2022, eager attention keeps the s^2 scores)";
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
  const std::string per_gpu = job.tensor_parallel > 1 ? fmt::format(" / {} GPUs (tensor parallel)", job.tensor_parallel) : "";

  // 1. Weights. Quantisers keep embeddings, head, norms and routers in 16-bit (docs/plan.md,
  // 'Bytes per element'). Routed experts divide over --ep GPUs, the rest over --tp; pipeline
  // stages each hold 1/pp of the layers.
  {
    MemoryComponent c;
    c.id = "weights";
    c.name = "weights";
    const double total = static_cast<double>(p.total);
    const double experts = static_cast<double>(p.experts);
    const double ep = job.expert_parallel > 0 ? static_cast<double>(job.expert_parallel) : tp;
    const double pp = static_cast<double>(job.pipeline_parallel);
    // Share of the whole model one GPU holds.
    const double share = total > 0 ? ((total - experts) / tp + experts / ep) / pp / total : 1.0 / (tp * pp);
    std::string split;
    if (job.tensor_parallel > 1 || job.pipeline_parallel > 1 || job.expert_parallel > 0) {
      split = job.expert_parallel > 0
                  ? fmt::format("; per GPU: non-expert / {} (TP), {} routed-expert params / {} (EP), / {} pipeline stages",
                                job.tensor_parallel, Num(experts), job.expert_parallel, job.pipeline_parallel)
                  : fmt::format("; per GPU: / {} (TP) / {} (PP)", job.tensor_parallel, job.pipeline_parallel);
    }
    DType dtype = job.mode == JobMode::kQlora ? DType::kNf4 : job.weight_dtype;
    double whole = 0;
    if (job.checkpoint_weight_bytes > 0 && job.mode != JobMode::kQlora) {
      whole = job.checkpoint_weight_bytes;
      c.formula = fmt::format("{} as stored in the checkpoint ({}){}", Bytes(whole), job.checkpoint_weight_note, split);
      c.source = "the checkpoint's own tensor headers: every tensor's elements x its stored dtype size";
    } else if (job.weight_quant && job.mode != JobMode::kQlora) {
      const WeightQuant& q = *job.weight_quant;
      double linear = static_cast<double>(p.linear), kept = static_cast<double>(p.kept_16bit);
      double embed = static_cast<double>(p.embedding + p.lm_head);
      if (q.embeddings_quantized) {
        linear += embed;
        kept -= embed;
      }
      whole = linear * q.BytesPerWeight() + kept * 2.0;
      c.formula = fmt::format("{} quantised params x {:.4g} B ({}: {}) + {} params kept 16-bit x 2 B{}", Num(linear),
                              q.BytesPerWeight(), q.method, q.detail, Num(kept), split);
      c.source = "config.json quantization_config: bits per weight + scales/zeros per group (docs/plan.md, 'Pre-quantised checkpoints')";
    } else if (IsFloat16Or32(dtype)) {
      double e = BytesPerElement(dtype);
      whole = total * e;
      c.formula = fmt::format("{} params x {} B ({}){}", Num(total), e, DTypeName(dtype), split);
      c.source = "W = P x bytes per element (docs/plan.md, 'Weights')";
    } else {
      double e = BytesPerElement(dtype);
      double linear = static_cast<double>(p.linear), kept = static_cast<double>(p.kept_16bit);
      whole = linear * e + kept * 2.0;
      c.formula = fmt::format("{} linear params x {:.4g} B ({}) + {} embedding/head/norm params x 2 B (kept 16-bit){}",
                              Num(linear), e, DTypeName(dtype), Num(kept), split);
      c.source = dtype == DType::kNf4 ? "QLoRA paper: NF4 + double quantisation = 4.127 bits per weight"
                                      : "quantisers keep embeddings, head and norms in 16-bit (docs/plan.md, 'Bytes per element')";
    }
    c.bytes = whole * share;
    plan.weight_bytes_per_gpu = c.bytes;
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
    c.name = "KV cache";
    double per_token = KvBytesPerToken(shape, e_kv, job.tensor_parallel) / gpus_for_kv;
    c.bytes = KvCacheBytes(shape, e_kv, e_kv, job.seq, job.batch, job.tensor_parallel) / gpus_for_kv;
    std::int64_t full = 0, sliding = 0, mla = 0, ssm = 0;
    for (const LayerShape& l : shape.layers) {
      switch (l.mixer) {
        case MixerKind::kFullAttention: ++full; break;
        case MixerKind::kSlidingAttention: ++sliding; break;
        case MixerKind::kMla: ++mla; break;
        case MixerKind::kSsm: ++ssm; break;
      }
    }
    std::string layers;
    if (shape.layers.empty() || full > 0) {
      layers = fmt::format("2 (K and V) x {} KV heads x {} head dim on {} full-attention layers",
                           shape.num_kv_heads, shape.head_dim, shape.layers.empty() ? shape.num_layers : full);
    }
    if (sliding > 0) {
      layers += fmt::format("{}{} sliding-window layers keep at most {} tokens", layers.empty() ? "" : "; ", sliding,
                            shape.sliding_window);
    }
    if (mla > 0) {
      layers += fmt::format("{}MLA latent (kv_lora_rank + qk_rope_head_dim = {}) on {} layers, no K/V split",
                            layers.empty() ? "" : "; ", shape.layers.front().latent_dim, mla);
    }
    if (ssm > 0) layers += fmt::format("{}{} SSM layers hold a fixed state per sequence", layers.empty() ? "" : "; ", ssm);
    c.formula = fmt::format("{}; x {} B ({}) = {} per token{}; x {} tokens x batch {}", layers, e_kv,
                            DTypeName(job.kv_dtype), Bytes(per_token), gpus_for_kv > 1 ? " per GPU" : "", job.seq,
                            job.batch);
    c.source = "KV = 2 L k d s b e per attention layer, windows capped, MLA latent replicated per TP rank, as vLLM sizes it "
               "(docs/plan.md, 'KV cache')";
    plan.components.push_back(c);
  }

  // Activations, gradients and optimizer states divide over every GPU of the split.
  const double split = tp * static_cast<double>(job.pipeline_parallel);

  // 3. Activations.
  {
    MemoryComponent c;
    c.id = "activations";
    c.name = "activations";
    double layer = LayerActivationBytes(shape, b, s);
    double vocab = static_cast<double>(shape.vocab_size);
    if (!IsTraining(job.mode)) {
      // Only the transient peak of one layer during prefill, plus fp32 logits of the last position.
      double logits = b * vocab * 4.0;
      c.bytes = (layer + logits) / split;
      c.formula = fmt::format("one layer's transient during prefill ({}; {} for b x s = {} tokens) + logits "
                              "b x V x 4 B ({}){}", LayerActivationFormula(shape), Bytes(layer),
                              job.batch * job.seq, Bytes(logits), per_gpu);
      c.source = "docs/plan.md, 'Activations': inference keeps no activations, only one layer's transient peak (vLLM profiles ~1.2 GiB for Llama-3-8B)";
    } else {
      double L = static_cast<double>(shape.num_layers);
      // fp32 logits and their gradient for the loss (R counts 4 b s V x 2).
      double logits = b * s * vocab * 4.0 * 2.0;
      double stored = job.activation_checkpointing
                          ? L * 2.0 * b * s * static_cast<double>(shape.hidden_size) + layer
                          : L * layer;
      c.bytes = (stored + logits) / split;
      c.formula = job.activation_checkpointing
                      ? fmt::format("with checkpointing: {} layers x 2sbh (layer inputs) + one layer recomputed ({}) "
                                    "+ fp32 logits and grads 2 x b x s x V x 4 B ({}){}",
                                    shape.num_layers, Bytes(layer), Bytes(logits), per_gpu)
                      : fmt::format("{} layers x ({}; {} per layer) + fp32 logits and grads 2 x b x s x V x 4 B ({}){}",
                                    shape.num_layers, LayerActivationFormula(shape), Bytes(layer), Bytes(logits), per_gpu);
      c.source = "Korthikanti et al. 2022 (docs/plan.md, 'Activations'); modern-layer variant for SwiGLU + GQA + FlashAttention";
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
    g.name = "gradients";
    g.bytes = trainable * grad_bytes / split;
    g.formula = fmt::format("{} trainable params x {} B{}", Num(trainable), grad_bytes, per_gpu);
    g.source = "ZeRO paper (docs/plan.md, 'Training states'): one gradient per trainable parameter in the training dtype";
    plan.components.push_back(g);

    MemoryComponent o;
    o.id = "optimizer";
    o.name = "optimizer states";
    double state_bytes = 0;
    std::string what;
    switch (job.optimizer) {
      case Optimizer::kAdamW:
        state_bytes = mixed ? 12 : 8;
        what = mixed ? "fp32 master weights 4 B + Adam m 4 B + v 4 B" : "Adam m 4 B + v 4 B";
        break;
      case Optimizer::kAdamW8bit:
        state_bytes = mixed ? 6 : 2;
        what = mixed ? "fp32 master weights 4 B + 8-bit m and v 2 B" : "8-bit m and v 2 B";
        break;
      case Optimizer::kSgd:
        state_bytes = mixed ? 8 : 4;
        what = mixed ? "fp32 master weights 4 B + momentum 4 B" : "momentum 4 B";
        break;
    }
    o.bytes = trainable * state_bytes / split;
    o.formula = fmt::format("{} params x {} B ({}){}", Num(trainable), state_bytes, what, per_gpu);
    o.source = "ZeRO paper (K = 12 for mixed-precision Adam); HF model_memory_anatomy; bitsandbytes 8-bit Adam";
    plan.components.push_back(o);
  } else if (job.mode == JobMode::kLora || job.mode == JobMode::kQlora) {
    plan.lora_params = LoraParameterCount(shape, job.lora_rank, job.lora_all_linears);
    double adapters = static_cast<double>(plan.lora_params);
    std::string targets = job.lora_all_linears ? "all linears of every layer" : "q, k, v, o of every layer";
    MemoryComponent w;
    w.id = "lora_adapters";
    w.name = "LoRA adapters";
    w.bytes = adapters * 4.0 / split;
    w.formula = fmt::format("rank {} x (d_in + d_out) over {} = {} params x 4 B (fp32){}", job.lora_rank, targets,
                            Num(adapters), per_gpu);
    w.source = "LoRA paper: adapter params = r (d_in + d_out) per adapted matrix; PEFT keeps them in fp32";
    plan.components.push_back(w);

    MemoryComponent g;
    g.id = "gradients";
    g.name = "gradients (adapters only)";
    g.bytes = adapters * 4.0 / split;
    g.formula = fmt::format("{} adapter params x 4 B; frozen base weights get none", Num(adapters));
    g.source = "LoRA trains only the adapters (docs/plan.md, 'LoRA')";
    plan.components.push_back(g);

    MemoryComponent o;
    o.id = "optimizer";
    o.name = "optimizer states (adapters only)";
    double state_bytes = job.optimizer == Optimizer::kAdamW ? 8 : job.optimizer == Optimizer::kAdamW8bit ? 2 : 4;
    o.bytes = adapters * state_bytes / split;
    o.formula = fmt::format("{} adapter params x {} B ({})", Num(adapters), state_bytes, OptimizerName(job.optimizer));
    o.source = "docs/plan.md, 'LoRA': ~16 B per adapter parameter with AdamW (weights + grads + m + v)";
    plan.components.push_back(o);
  }

  // 7. Overhead.
  {
    MemoryComponent c;
    c.id = "overhead";
    c.name = "CUDA context and workspaces";
    const bool split_job = GpusOfSplit(job) > 1;
    c.bytes = kOverheadBytes + (split_job ? kNcclBufferBytes : 0);
    c.formula = fmt::format("{} per GPU (stated range {} to {}){}", Bytes(kOverheadBytes), Bytes(kOverheadLowBytes),
                            Bytes(kOverheadHighBytes),
                            split_job ? fmt::format(" + {} of NCCL buffers", Bytes(kNcclBufferBytes)) : "");
    c.source = "docs/plan.md, 'Overhead': HF measured 1.3 GB; vLLM non-torch 0.12-1.79 GiB, 3.58 GiB per GPU at TP=2";
    plan.overhead_bytes = c.bytes;
    plan.overhead_low_bytes = kOverheadLowBytes;
    plan.overhead_high_bytes = kOverheadHighBytes + (split_job ? kNcclBufferBytes : 0);
    plan.components.push_back(c);
  }

  for (const auto& c : plan.components) plan.total_bytes += c.bytes;
  std::string names;
  for (const auto& c : plan.components) names += (names.empty() ? "" : " + ") + c.name;
  plan.summed = fmt::format("total per GPU = {}. Not included: allocator fragmentation (PyTorch reserves "
                            "more than it allocates, often by hundreds of MiB) and CUDA graphs (1-3 GiB in vLLM).",
                            names);
  return plan;
}

}  // namespace gpuprobe::model
