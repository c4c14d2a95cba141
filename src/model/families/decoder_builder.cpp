#include "model/families/decoder_builder.h"

#include <algorithm>

#include <fmt/format.h>

namespace gpuprobe::model::families {

using core::Result;
using core::Status;

Status ReadDecoderBasics(const ConfigReader& r, ModelShape& s, const Variant& v) {
  GPUPROBE_ASSIGN_OR_RETURN(s.hidden_size, r.RequiredInt({"hidden_size"}, kMaxHidden));
  GPUPROBE_ASSIGN_OR_RETURN(s.num_layers, r.RequiredInt({"num_hidden_layers", "num_layers"}, kMaxLayers));
  GPUPROBE_ASSIGN_OR_RETURN(s.num_heads, r.RequiredInt({"num_attention_heads", "num_heads"}, kMaxHeads));
  GPUPROBE_ASSIGN_OR_RETURN(s.vocab_size, r.RequiredInt({"vocab_size", "padded_vocab_size"}, kMaxVocab));
  std::int64_t f = 0;
  GPUPROBE_ASSIGN_OR_RETURN(f, r.RequiredInt({"intermediate_size"}, kMaxIntermediate));
  if (v.intermediate_divisor > 1 && f % v.intermediate_divisor != 0) {
    return r.Problem("intermediate_size", "odd_fused_mlp", fmt::format("({}) must be even: it holds both MLP branches", f), {{"value", std::to_string(f)}});
  }
  s.intermediate_size = f / v.intermediate_divisor;

  // KV heads: vLLM's fallback order; a missing or null value means no GQA (k = a).
  std::optional<std::int64_t> kv;
  for (const char* field : {"num_key_value_heads", "n_head_kv", "num_kv_heads", "multi_query_group_num"}) {
    GPUPROBE_ASSIGN_OR_RETURN(kv, r.OptionalInt(field, kMaxHeads));
    if (kv) break;
  }
  s.num_kv_heads = kv.value_or(s.num_heads);

  std::optional<std::int64_t> head_dim;
  GPUPROBE_ASSIGN_OR_RETURN(head_dim, r.OptionalInt("head_dim", kMaxHidden));
  if (!head_dim) GPUPROBE_ASSIGN_OR_RETURN(head_dim, r.OptionalInt("kv_channels", kMaxHidden));
  if (!head_dim) {
    if (s.hidden_size % s.num_heads != 0) {
      return r.Problem("num_attention_heads", "heads_no_head_dim",
                       fmt::format("({}) does not divide hidden_size ({}) and no head_dim is given", s.num_heads, s.hidden_size),
                       {{"value", std::to_string(s.num_heads)}, {"other", "hidden_size"}, {"other_value", std::to_string(s.hidden_size)}});
    }
    head_dim = s.hidden_size / s.num_heads;
  }
  s.head_dim = *head_dim;
  GPUPROBE_ASSIGN_OR_RETURN(s.max_position_embeddings,
                            r.IntOr({"max_position_embeddings", "seq_length"}, kMaxPositions, 0));
  return Status::Ok();
}

Status ApplyWindows(const ConfigReader& r, ModelShape& s, WindowRule rule) {
  // Absent, null and 0 all mean no window (configs saved with the feature off write 0). A
  // plain integer, not an optional: GCC 12 at -O3 warns of a maybe-uninitialized optional here.
  std::int64_t width = 0;
  GPUPROBE_ASSIGN_OR_RETURN(width, r.IntOr({"sliding_window"}, kMaxPositions, 0, 0));
  const bool window = width > 0;
  std::optional<std::vector<std::string>> types;
  GPUPROBE_ASSIGN_OR_RETURN(types, r.StringList("layer_types", static_cast<size_t>(kMaxLayers)));
  const size_t L = s.layers.size();
  std::vector<bool> sliding(L, false);
  if (types) {
    // transformers' newer configs list every layer's attention (gemma2/3, qwen2/3, mistral).
    if (types->size() != L) {
      return r.Problem("layer_types", "layer_count", fmt::format("has {} entries for {} layers", types->size(), L),
                       {{"count", std::to_string(types->size())}, {"layers", std::to_string(L)}});
    }
    for (size_t i = 0; i < L; ++i) {
      const std::string& t = (*types)[i];
      if (t == "sliding_attention") {
        if (!window) return r.Missing({"sliding_window"}, "layer_types names sliding_attention layers", "error.config.why.sliding_layers");
        sliding[i] = true;
      } else if (t != "full_attention") {
        return r.Problem("layer_types", "layer_kind", fmt::format("holds '{}', a layer kind this reader cannot size", t),
                         {{"value", t.substr(0, 200)}});
      }
    }
  } else if (window) {
    switch (rule) {
      case WindowRule::kNone:
        break;
      case WindowRule::kAll: {
        bool use = true;
        GPUPROBE_ASSIGN_OR_RETURN(use, r.BoolOr("use_sliding_window", true));
        std::fill(sliding.begin(), sliding.end(), use);
        break;
      }
      case WindowRule::kQwen: {
        // Qwen2Config: off unless use_sliding_window; the first max_window_layers layers keep
        // full attention, the rest use the window (transformers' qwen2 layer_types rule).
        bool use = false;
        GPUPROBE_ASSIGN_OR_RETURN(use, r.BoolOr("use_sliding_window", false));
        std::int64_t full_layers = 0;
        GPUPROBE_ASSIGN_OR_RETURN(full_layers, r.IntOr({"max_window_layers"}, kMaxLayers, 0, 0));
        for (size_t i = 0; i < L; ++i) sliding[i] = use && static_cast<std::int64_t>(i) >= full_layers;
        break;
      }
      case WindowRule::kAlternate:
        // Gemma 2: layers 0, 2, 4, ... are local (sliding), the others global.
        for (size_t i = 0; i < L; i += 2) sliding[i] = true;
        break;
      case WindowRule::kGemma3: {
        // Gemma 3: every sliding_window_pattern-th layer is global, the rest local (default 6).
        std::int64_t pattern = 6;
        GPUPROBE_ASSIGN_OR_RETURN(pattern, r.IntOr({"sliding_window_pattern"}, kMaxLayers, 6));
        for (size_t i = 0; i < L; ++i) sliding[i] = (static_cast<std::int64_t>(i) + 1) % pattern != 0;
        break;
      }
    }
  }
  s.sliding_window = 0;
  for (size_t i = 0; i < L; ++i) {
    if (!sliding[i]) continue;
    s.layers[i].mixer = MixerKind::kSlidingAttention;
    s.layers[i].window = width;
    s.sliding_window = width;
  }
  return Status::Ok();
}

namespace {

Status ApplyMoe(const ConfigReader& r, ModelShape& s, const Variant& v) {
  if (v.moe == MoeRule::kNone) return Status::Ok();
  const double h = static_cast<double>(s.hidden_size);
  const char* experts_field = (v.moe == MoeRule::kMixtral || v.moe == MoeRule::kMixtralOptional) ? "num_local_experts"
                                                                                                   : "num_experts";
  std::optional<std::int64_t> experts;
  GPUPROBE_ASSIGN_OR_RETURN(experts, r.OptionalInt(experts_field, kMaxExperts));
  if (!experts) {
    if (v.moe == MoeRule::kMixtralOptional) return Status::Ok();
    return r.Missing({experts_field}, "a mixture-of-experts family", "error.config.why.moe");
  }
  std::optional<std::int64_t> top_k;
  GPUPROBE_ASSIGN_OR_RETURN(top_k, r.OptionalInt("num_experts_per_tok", kMaxExperts));
  if (!top_k) return r.Missing({"num_experts_per_tok"}, fmt::format("needed with {}", experts_field));
  if (*top_k > *experts) {
    return r.Problem("num_experts_per_tok", "larger_than", fmt::format("({}) is larger than {} ({})", *top_k, experts_field, *experts),
                     {{"value", std::to_string(*top_k)}, {"other", experts_field}, {"other_value", std::to_string(*experts)}});
  }

  std::int64_t expert_f = s.intermediate_size;
  std::int64_t step = 1, shared_f = 0;
  std::vector<std::int64_t> dense_layers;
  if (v.moe == MoeRule::kQwen) {
    GPUPROBE_ASSIGN_OR_RETURN(expert_f, r.RequiredInt({"moe_intermediate_size"}, kMaxIntermediate));
    GPUPROBE_ASSIGN_OR_RETURN(step, r.IntOr({"decoder_sparse_step"}, kMaxLayers, 1));
    GPUPROBE_ASSIGN_OR_RETURN(shared_f, r.IntOr({"shared_expert_intermediate_size"}, kMaxIntermediate, 0, 0));
    std::optional<std::vector<std::int64_t>> only;
    GPUPROBE_ASSIGN_OR_RETURN(only, r.IntList("mlp_only_layers", static_cast<size_t>(kMaxLayers), kMaxLayers));
    if (only) dense_layers = *only;
  } else if (v.moe != MoeRule::kOlmoe) {
    // Granite-MoE-shared: one always-on gated MLP of shared_intermediate_size beside the experts.
    GPUPROBE_ASSIGN_OR_RETURN(shared_f, r.IntOr({"shared_intermediate_size"}, kMaxIntermediate, 0, 0));
  }
  const double f = static_cast<double>(expert_f);
  double expert = (v.gated ? 3 : 2) * h * f + (v.mlp_bias ? (v.gated ? 2 * f : f) + h : 0);
  // Qwen2-MoE's shared expert has a sigmoid gate Linear(h, 1); Granite's shared MLP has none.
  double shared = shared_f > 0 ? 3 * h * static_cast<double>(shared_f) + (v.moe == MoeRule::kQwen ? h : 0) : 0;
  for (size_t i = 0; i < s.layers.size(); ++i) {
    const std::int64_t index = static_cast<std::int64_t>(i);
    bool dense = std::find(dense_layers.begin(), dense_layers.end(), index) != dense_layers.end() ||
                 (index + 1) % step != 0;
    if (dense) continue;  // keeps the dense MLP of intermediate_size
    LayerShape& layer = s.layers[i];
    layer.dense_mlp_params = 0;
    layer.experts = *experts;
    layer.experts_per_token = *top_k;
    layer.expert_params = expert;
    layer.shared_expert_params = shared;
    layer.router_params = h * static_cast<double>(*experts);
  }
  s.num_experts = *experts;
  s.experts_per_token = *top_k;
  s.num_shared_experts = shared_f > 0 ? 1 : 0;
  s.intermediate_size = expert_f;
  return Status::Ok();
}

}  // namespace

Result<ModelShape> FinishDecoder(const ConfigReader& r, ModelShape s, const Variant& v) {
  s.gated_mlp = v.gated;
  s.norm = v.norm;
  s.norms_per_layer = v.norms_per_layer;
  s.final_norm = v.final_norm;
  s.qk_norm = v.qk_norm == QkNorm::kPerHead;
  s.qkv_bias = v.qkv_bias;
  s.o_bias = v.o_bias;
  s.mlp_bias = v.mlp_bias;
  GPUPROBE_ASSIGN_OR_RETURN(s.tied_embeddings, r.BoolOr("tie_word_embeddings", v.tie_default));
  s.sliding_window = 0;
  // A shape that ValidateShape will refuse must not be built: checking first keeps the
  // per-layer list from being sized by a hostile layer count times a hostile width.
  if (s.num_kv_heads > s.num_heads || s.num_heads % s.num_kv_heads != 0) {
    return r.Problem("num_key_value_heads", "kv_heads_serve",
                     fmt::format("({} KV heads) cannot serve {} attention heads (query heads must be a multiple of KV heads)",
                                 s.num_kv_heads, s.num_heads),
                     {{"value", std::to_string(s.num_kv_heads)}, {"other_value", std::to_string(s.num_heads)}});
  }
  BuildUniformLayers(s);
  if (v.qk_norm == QkNorm::kFullWidth) {
    // OLMo-2/OLMoE/Cohere/StableLM normalise the whole q and k projections: (a + k) d weights.
    double extra = static_cast<double>(s.num_heads + s.num_kv_heads) * static_cast<double>(s.head_dim);
    for (LayerShape& layer : s.layers) layer.norm_params += extra;
  }
  if (v.lm_head_bias && s.lm_head_params > 0) s.lm_head_params += static_cast<double>(s.vocab_size);
  GPUPROBE_RETURN_IF_ERROR(ApplyWindows(r, s, v.window));
  GPUPROBE_RETURN_IF_ERROR(ApplyMoe(r, s, v));
  return s;
}

Result<ModelShape> BuildDecoder(const ConfigReader& r, ModelShape s, const Variant& v) {
  GPUPROBE_RETURN_IF_ERROR(ReadDecoderBasics(r, s, v));
  return FinishDecoder(r, std::move(s), v);
}

}  // namespace gpuprobe::model::families
