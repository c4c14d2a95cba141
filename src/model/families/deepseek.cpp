// DeepSeek-V2 / V3 (modeling_deepseek.py of the checkpoints' remote code; transformers'
// modeling_deepseek_v3.py): multi-head latent attention (MLA) and MoE with shared experts.
#include <fmt/format.h>

#include "model/families/recipes.h"

namespace gpuprobe::model::families {

using core::Result;
using core::Status;

Result<ModelShape> DeepSeek(const ConfigReader& r, ModelShape s) {
  GPUPROBE_ASSIGN_OR_RETURN(s.hidden_size, r.RequiredInt({"hidden_size"}, kMaxHidden));
  GPUPROBE_ASSIGN_OR_RETURN(s.num_layers, r.RequiredInt({"num_hidden_layers"}, kMaxLayers));
  GPUPROBE_ASSIGN_OR_RETURN(s.num_heads, r.RequiredInt({"num_attention_heads"}, kMaxHeads));
  GPUPROBE_ASSIGN_OR_RETURN(s.vocab_size, r.RequiredInt({"vocab_size"}, kMaxVocab));
  std::int64_t dense_f = 0, kv_lora = 0, nope = 0, rope = 0, v_dim = 0;
  GPUPROBE_ASSIGN_OR_RETURN(dense_f, r.RequiredInt({"intermediate_size"}, kMaxIntermediate));
  GPUPROBE_ASSIGN_OR_RETURN(kv_lora, r.RequiredInt({"kv_lora_rank"}, kMaxHidden));
  GPUPROBE_ASSIGN_OR_RETURN(nope, r.RequiredInt({"qk_nope_head_dim"}, kMaxHidden));
  GPUPROBE_ASSIGN_OR_RETURN(rope, r.RequiredInt({"qk_rope_head_dim"}, kMaxHidden));
  GPUPROBE_ASSIGN_OR_RETURN(v_dim, r.RequiredInt({"v_head_dim"}, kMaxHidden));
  std::optional<std::int64_t> q_lora, routed, shared;
  GPUPROBE_ASSIGN_OR_RETURN(q_lora, r.OptionalInt("q_lora_rank", kMaxHidden));
  GPUPROBE_ASSIGN_OR_RETURN(routed, r.OptionalInt("n_routed_experts", kMaxExperts));
  GPUPROBE_ASSIGN_OR_RETURN(shared, r.OptionalInt("n_shared_experts", kMaxExperts, 0));
  std::int64_t first_dense = 0, freq = 1, mtp_layers = 0, top_k = 0, moe_f = 0;
  GPUPROBE_ASSIGN_OR_RETURN(first_dense, r.IntOr({"first_k_dense_replace"}, kMaxLayers, 0, 0));
  GPUPROBE_ASSIGN_OR_RETURN(freq, r.IntOr({"moe_layer_freq"}, kMaxLayers, 1));
  GPUPROBE_ASSIGN_OR_RETURN(mtp_layers, r.IntOr({"num_nextn_predict_layers"}, 16, 0, 0));
  if (routed) {
    GPUPROBE_ASSIGN_OR_RETURN(top_k, r.RequiredInt({"num_experts_per_tok"}, kMaxExperts));
    GPUPROBE_ASSIGN_OR_RETURN(moe_f, r.RequiredInt({"moe_intermediate_size"}, kMaxIntermediate));
    if (top_k > *routed) {
      return r.Problem("num_experts_per_tok", "larger_than", fmt::format("({}) is larger than n_routed_experts ({})", top_k, *routed),
                       {{"value", std::to_string(top_k)}, {"other", "n_routed_experts"}, {"other_value", std::to_string(*routed)}});
    }
  }
  bool bias = false, tied = false;
  GPUPROBE_ASSIGN_OR_RETURN(bias, r.BoolOr("attention_bias", false));
  GPUPROBE_ASSIGN_OR_RETURN(tied, r.BoolOr("tie_word_embeddings", false));
  std::optional<std::string> topk_method;
  GPUPROBE_ASSIGN_OR_RETURN(topk_method, r.OptionalString("topk_method"));
  GPUPROBE_ASSIGN_OR_RETURN(s.max_position_embeddings, r.IntOr({"max_position_embeddings"}, kMaxPositions, 0));

  const double h = static_cast<double>(s.hidden_size), a = static_cast<double>(s.num_heads);
  const double V = static_cast<double>(s.vocab_size), qk = static_cast<double>(nope + rope);
  const double kvr = static_cast<double>(kv_lora), vd = static_cast<double>(v_dim);
  // MLA: q either direct (h x a(nope+rope)) or through q_a_proj -> q_a_layernorm -> q_b_proj;
  // kv_a_proj_with_mqa (h x (kv_lora_rank + rope)) -> kv_a_layernorm -> kv_b_proj
  // (kv_lora_rank x a(nope + v)); o_proj (a v x h). attention_bias covers q_a, kv_a and o.
  double q = q_lora ? h * static_cast<double>(*q_lora) + static_cast<double>(*q_lora) +
                          static_cast<double>(*q_lora) * a * qk + (bias ? static_cast<double>(*q_lora) : 0)
                    : h * a * qk;
  double kv = h * (kvr + static_cast<double>(rope)) + kvr + kvr * a * (static_cast<double>(nope) + vd) +
              (bias ? kvr + static_cast<double>(rope) : 0);
  double o = a * vd * h + (bias ? h : 0);
  const double mixer = q + kv + o;
  const double mf = static_cast<double>(moe_f), E = static_cast<double>(routed.value_or(0));
  // noaux_tc routing (V3) adds a per-expert e_score_correction_bias beside the gate weight.
  const double router = h * E + (topk_method.value_or("") == "noaux_tc" ? E : 0);
  const double shared_params = 3 * h * mf * static_cast<double>(shared.value_or(0));

  auto make_layer = [&](std::int64_t index) {
    LayerShape layer;
    layer.mixer = MixerKind::kMla;
    layer.latent_dim = kv_lora + rope;  // the compressed cache vLLM and SGLang keep
    layer.mixer_params = mixer;
    layer.norm_params = 2 * h;
    bool moe = routed && index >= first_dense && index % freq == 0;
    if (moe) {
      layer.experts = *routed;
      layer.experts_per_token = top_k;
      layer.expert_params = 3 * h * mf;
      layer.shared_expert_params = shared_params;
      layer.router_params = router;
    } else {
      layer.dense_mlp_params = 3 * h * static_cast<double>(dense_f);
    }
    return layer;
  };
  s.layers.clear();
  for (std::int64_t i = 0; i < s.num_layers; ++i) s.layers.push_back(make_layer(i));

  s.num_kv_heads = 1;
  s.head_dim = nope + rope;
  s.intermediate_size = routed ? moe_f : dense_f;
  s.num_experts = routed.value_or(0);
  s.experts_per_token = top_k;
  s.num_shared_experts = shared.value_or(0);
  s.tied_embeddings = tied;
  s.embedding_params = V * h;
  s.final_norm_params = h;
  s.lm_head_params = tied ? 0 : V * h;
  if (mtp_layers > 0) {
    // Each MTP module as the V3 checkpoint stores it (layer num_hidden_layers + i): a full
    // decoder layer, enorm and hnorm, eh_proj (2h -> h), shared_head.norm, and its own copies
    // of embed_tokens and shared_head.head. Serving does not load it unless speculative
    // decoding with MTP is on.
    LayerShape layer = make_layer(s.num_layers);
    double block = layer.mixer_params + layer.norm_params + layer.dense_mlp_params +
                   static_cast<double>(layer.experts) * layer.expert_params + layer.shared_expert_params +
                   layer.router_params;
    double per_module = block + 3 * h + 2 * h * h + 2 * V * h;
    s.mtp_params = static_cast<double>(mtp_layers) * per_module;
    s.notes.push_back({"mtp_stored", fmt::format("{}", mtp_layers)});
  }
  return s;
}

}  // namespace gpuprobe::model::families
