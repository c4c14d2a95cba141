// Llama-like decoders: q/k/v/o attention and a (mostly gated) MLP, differing in biases, norms,
// q/k norms, windows and experts. Each recipe names the modelling code it follows.
#include <string>

#include <fmt/format.h>

#include "model/families/decoder_builder.h"
#include "model/families/recipes.h"

namespace gpuprobe::model::families {

using core::Result;
using core::Status;

namespace {

// attention_bias puts biases on q, k, v and o (LlamaAttention, GraniteAttention, ...).
Result<Variant> WithAttentionBias(const ConfigReader& r, Variant v, const char* field = "attention_bias") {
  bool bias = false;
  GPUPROBE_ASSIGN_OR_RETURN(bias, r.BoolOr(field, false));
  v.qkv_bias = v.o_bias = bias;
  return v;
}

}  // namespace

// modeling_llama.py: attention_bias on q/k/v/o, mlp_bias on gate/up/down; untied by default.
// Llama configs carrying num_local_experts are planned as Mixtral-style MoE.
Result<ModelShape> Llama(const ConfigReader& r, ModelShape s) {
  Variant v;
  GPUPROBE_ASSIGN_OR_RETURN(v, WithAttentionBias(r, v));
  GPUPROBE_ASSIGN_OR_RETURN(v.mlp_bias, r.BoolOr("mlp_bias", false));
  v.moe = MoeRule::kMixtralOptional;
  return BuildDecoder(r, std::move(s), v);
}

// modeling_mistral.py: llama without biases; sliding_window on every layer when set.
Result<ModelShape> Mistral(const ConfigReader& r, ModelShape s) {
  Variant v;
  v.window = WindowRule::kAll;
  v.moe = MoeRule::kMixtralOptional;
  return BuildDecoder(r, std::move(s), v);
}

// modeling_mixtral.py: mistral attention; block_sparse_moe of num_local_experts w1/w2/w3
// experts and a bias-free router gate h x E.
Result<ModelShape> Mixtral(const ConfigReader& r, ModelShape s) {
  Variant v;
  v.window = WindowRule::kAll;
  v.moe = MoeRule::kMixtral;
  return BuildDecoder(r, std::move(s), v);
}

// modeling_qwen2.py: q/k/v carry biases, o does not; windows by max_window_layers.
Result<ModelShape> Qwen2(const ConfigReader& r, ModelShape s) {
  Variant v;
  v.qkv_bias = true;
  v.window = WindowRule::kQwen;
  v.moe = MoeRule::kMixtralOptional;
  return BuildDecoder(r, std::move(s), v);
}

// modeling_qwen2_moe.py: qwen2 attention (qkv_bias, default true); MoE layers where
// (i + 1) % decoder_sparse_step == 0 and i is not in mlp_only_layers, with num_experts
// experts of moe_intermediate_size, a shared expert of shared_expert_intermediate_size and
// its sigmoid gate Linear(h, 1); other layers keep a dense MLP of intermediate_size.
Result<ModelShape> Qwen2Moe(const ConfigReader& r, ModelShape s) {
  Variant v;
  GPUPROBE_ASSIGN_OR_RETURN(v.qkv_bias, r.BoolOr("qkv_bias", true));
  v.window = WindowRule::kQwen;
  v.moe = MoeRule::kQwen;
  return BuildDecoder(r, std::move(s), v);
}

// modeling_qwen3.py: RMSNorm on each q and k head (head_dim weights each), attention_bias.
Result<ModelShape> Qwen3(const ConfigReader& r, ModelShape s) {
  Variant v;
  GPUPROBE_ASSIGN_OR_RETURN(v, WithAttentionBias(r, v));
  v.qk_norm = QkNorm::kPerHead;
  v.window = WindowRule::kQwen;
  return BuildDecoder(r, std::move(s), v);
}

// modeling_qwen3_moe.py: qwen3 attention; qwen2-moe layer rule, no shared expert.
Result<ModelShape> Qwen3Moe(const ConfigReader& r, ModelShape s) {
  Variant v;
  GPUPROBE_ASSIGN_OR_RETURN(v, WithAttentionBias(r, v));
  v.qk_norm = QkNorm::kPerHead;
  v.window = WindowRule::kQwen;
  v.moe = MoeRule::kQwen;
  return BuildDecoder(r, std::move(s), v);
}

// modeling_gemma.py: llama layout, explicit head_dim, tied embeddings unless told otherwise.
Result<ModelShape> Gemma(const ConfigReader& r, ModelShape s) {
  Variant v;
  GPUPROBE_ASSIGN_OR_RETURN(v, WithAttentionBias(r, v));
  v.tie_default = true;
  return BuildDecoder(r, std::move(s), v);
}

// modeling_gemma2.py: four RMSNorms per layer (input, post-attention, pre- and
// post-feedforward); local (sliding) and global layers alternate.
Result<ModelShape> Gemma2(const ConfigReader& r, ModelShape s) {
  Variant v;
  GPUPROBE_ASSIGN_OR_RETURN(v, WithAttentionBias(r, v));
  v.tie_default = true;
  v.norms_per_layer = 4;
  v.window = WindowRule::kAlternate;
  return BuildDecoder(r, std::move(s), v);
}

// modeling_gemma3.py (Gemma3TextModel): gemma2's four norms plus q_norm and k_norm per head;
// layer_types, or one global layer every sliding_window_pattern layers.
Result<ModelShape> Gemma3Text(const ConfigReader& r, ModelShape s) {
  Variant v;
  GPUPROBE_ASSIGN_OR_RETURN(v, WithAttentionBias(r, v));
  v.tie_default = true;
  v.norms_per_layer = 4;
  v.qk_norm = QkNorm::kPerHead;
  v.window = WindowRule::kGemma3;
  return BuildDecoder(r, std::move(s), v);
}

// modeling_phi3.py: fused qkv_proj and gate_up_proj (same counts as llama); sliding_window.
Result<ModelShape> Phi3(const ConfigReader& r, ModelShape s) {
  Variant v;
  v.window = WindowRule::kAll;
  return BuildDecoder(r, std::move(s), v);
}

// modeling_phimoe.py: LayerNorms with bias, attention_bias on q/k/v/o, Mixtral experts,
// an lm_head bias when lm_head_bias.
Result<ModelShape> PhiMoe(const ConfigReader& r, ModelShape s) {
  Variant v;
  GPUPROBE_ASSIGN_OR_RETURN(v, WithAttentionBias(r, v));
  GPUPROBE_ASSIGN_OR_RETURN(v.lm_head_bias, r.BoolOr("lm_head_bias", false));
  v.norm = NormKind::kLayer;
  v.window = WindowRule::kAll;
  v.moe = MoeRule::kMixtral;
  return BuildDecoder(r, std::move(s), v);
}

// modeling_olmo.py: OlmoLayerNorm has no parameters at all (non-parametric layer norm).
Result<ModelShape> Olmo(const ConfigReader& r, ModelShape s) {
  Variant v;
  GPUPROBE_ASSIGN_OR_RETURN(v, WithAttentionBias(r, v));
  v.norm = NormKind::kNone;
  return BuildDecoder(r, std::move(s), v);
}

// modeling_olmo2.py: post-attention and post-feedforward RMSNorms; q_norm over a*d and
// k_norm over k*d (whole projections, not per head).
Result<ModelShape> Olmo2(const ConfigReader& r, ModelShape s) {
  Variant v;
  GPUPROBE_ASSIGN_OR_RETURN(v, WithAttentionBias(r, v));
  v.qk_norm = QkNorm::kFullWidth;
  return BuildDecoder(r, std::move(s), v);
}

// modeling_olmoe.py: olmo2-style q/k norms over the whole projections; every layer MoE with
// num_experts experts of intermediate_size, router h x E, no shared expert.
Result<ModelShape> Olmoe(const ConfigReader& r, ModelShape s) {
  Variant v;
  GPUPROBE_ASSIGN_OR_RETURN(v, WithAttentionBias(r, v));
  v.qk_norm = QkNorm::kFullWidth;
  v.moe = MoeRule::kOlmoe;
  return BuildDecoder(r, std::move(s), v);
}

// modeling_granite.py: llama with multipliers (no parameters); attention_bias, mlp_bias.
Result<ModelShape> Granite(const ConfigReader& r, ModelShape s) {
  Variant v;
  GPUPROBE_ASSIGN_OR_RETURN(v, WithAttentionBias(r, v));
  GPUPROBE_ASSIGN_OR_RETURN(v.mlp_bias, r.BoolOr("mlp_bias", false));
  return BuildDecoder(r, std::move(s), v);
}

// modeling_granitemoe.py: experts as input_linear (2f x h) + output_linear (h x f) per expert,
// router Linear(h, E) without bias; granitemoeshared adds a shared MLP of shared_intermediate_size.
Result<ModelShape> GraniteMoe(const ConfigReader& r, ModelShape s) {
  Variant v;
  GPUPROBE_ASSIGN_OR_RETURN(v, WithAttentionBias(r, v));
  v.moe = MoeRule::kMixtral;
  return BuildDecoder(r, std::move(s), v);
}

// MiniCPM (openbmb remote code, modeling_minicpm.py): a llama decoder with scale_emb /
// scale_depth / dim_model_base multipliers, which hold no parameters.
Result<ModelShape> MiniCpm(const ConfigReader& r, ModelShape s) {
  Variant v;
  GPUPROBE_ASSIGN_OR_RETURN(v, WithAttentionBias(r, v));
  v.moe = MoeRule::kMixtralOptional;
  return BuildDecoder(r, std::move(s), v);
}

// InternLM2 (remote code, modeling_internlm2.py): fused wqkv and wo with `bias`; w1/w3/w2.
Result<ModelShape> InternLm2(const ConfigReader& r, ModelShape s) {
  Variant v;
  GPUPROBE_ASSIGN_OR_RETURN(v, WithAttentionBias(r, v, "bias"));
  return BuildDecoder(r, std::move(s), v);
}

// Baichuan / Baichuan2 (remote code): fused W_pack (3 h x h) without bias, o_proj, gated MLP,
// NormHead lm_head (V x h); ALiBi or RoPE positions hold no parameters.
Result<ModelShape> Baichuan(const ConfigReader& r, ModelShape s) {
  return BuildDecoder(r, std::move(s), Variant{});
}

// modeling_cohere.py: one bias-free LayerNorm per layer (attention and MLP run in parallel),
// optional q/k LayerNorms over (heads, head_dim), tied embeddings by default.
Result<ModelShape> Cohere(const ConfigReader& r, ModelShape s) {
  Variant v;
  GPUPROBE_ASSIGN_OR_RETURN(v, WithAttentionBias(r, v));
  bool qk = false;
  GPUPROBE_ASSIGN_OR_RETURN(qk, r.BoolOr("use_qk_norm", false));
  v.qk_norm = qk ? QkNorm::kFullWidth : QkNorm::kNone;
  v.norms_per_layer = 1;
  v.tie_default = true;
  return BuildDecoder(r, std::move(s), v);
}

// modeling_stablelm.py (and stablelm_epoch remote code): LayerNorms with bias, use_qkv_bias on
// q/k/v only, gated MLP; use_parallel_residual drops the post-attention norm; qk_layernorm
// adds bias-free per-head LayerNorms ((a + k) d weights).
Result<ModelShape> StableLm(const ConfigReader& r, ModelShape s) {
  Variant v;
  v.norm = NormKind::kLayer;
  GPUPROBE_ASSIGN_OR_RETURN(v.qkv_bias, r.BoolOr("use_qkv_bias", false));
  bool parallel = false, qk = false;
  GPUPROBE_ASSIGN_OR_RETURN(parallel, r.BoolOr("use_parallel_residual", false));
  GPUPROBE_ASSIGN_OR_RETURN(qk, r.BoolOr("qk_layernorm", false));
  v.norms_per_layer = parallel ? 1 : 2;
  v.qk_norm = qk ? QkNorm::kFullWidth : QkNorm::kNone;
  return BuildDecoder(r, std::move(s), v);
}

// modeling_starcoder2.py: LayerNorms with bias, use_bias on q/k/v/o and on the plain
// c_fc/c_proj MLP, sliding_window on every layer, tied embeddings by default.
Result<ModelShape> Starcoder2(const ConfigReader& r, ModelShape s) {
  Variant v;
  bool bias = true;
  GPUPROBE_ASSIGN_OR_RETURN(bias, r.BoolOr("use_bias", true));
  v.qkv_bias = v.o_bias = v.mlp_bias = bias;
  v.norm = NormKind::kLayer;
  v.gated = false;
  v.tie_default = true;
  v.window = WindowRule::kAll;
  return BuildDecoder(r, std::move(s), v);
}

// modeling_glm.py: attention_bias (default true) on q/k/v only, fused gate_up_proj.
Result<ModelShape> Glm(const ConfigReader& r, ModelShape s) {
  Variant v;
  GPUPROBE_ASSIGN_OR_RETURN(v.qkv_bias, r.BoolOr("attention_bias", true));
  return BuildDecoder(r, std::move(s), v);
}

// modeling_glm4.py: glm plus post-self-attention and post-MLP RMSNorms (four per layer).
Result<ModelShape> Glm4(const ConfigReader& r, ModelShape s) {
  Variant v;
  GPUPROBE_ASSIGN_OR_RETURN(v.qkv_bias, r.BoolOr("attention_bias", true));
  v.norms_per_layer = 4;
  return BuildDecoder(r, std::move(s), v);
}

// ChatGLM2/3 and GLM-4 remote code (modeling_chatglm.py): query_key_value of a*d + 2*g*d
// outputs (g = multi_query_group_num) with add_qkv_bias, dense without bias unless
// add_bias_linear, dense_h_to_4h of 2 x ffn_hidden_size (SwiGLU), RMSNorm when rmsnorm,
// a final norm when post_layer_norm, an untied output_layer of padded_vocab_size.
Result<ModelShape> ChatGlm(const ConfigReader& r, ModelShape s) {
  GPUPROBE_ASSIGN_OR_RETURN(s.hidden_size, r.RequiredInt({"hidden_size"}, kMaxHidden));
  GPUPROBE_ASSIGN_OR_RETURN(s.num_layers, r.RequiredInt({"num_layers", "num_hidden_layers"}, kMaxLayers));
  GPUPROBE_ASSIGN_OR_RETURN(s.num_heads, r.RequiredInt({"num_attention_heads"}, kMaxHeads));
  GPUPROBE_ASSIGN_OR_RETURN(s.vocab_size, r.RequiredInt({"padded_vocab_size", "vocab_size"}, kMaxVocab));
  GPUPROBE_ASSIGN_OR_RETURN(s.intermediate_size, r.RequiredInt({"ffn_hidden_size"}, kMaxIntermediate));
  std::optional<std::int64_t> kv_channels;
  GPUPROBE_ASSIGN_OR_RETURN(kv_channels, r.OptionalInt("kv_channels", kMaxHidden));
  if (!kv_channels && s.hidden_size % s.num_heads != 0) return r.Missing({"kv_channels"});
  s.head_dim = kv_channels.value_or(s.hidden_size / s.num_heads);
  bool mqa = false;
  GPUPROBE_ASSIGN_OR_RETURN(mqa, r.BoolOr("multi_query_attention", false));
  s.num_kv_heads = s.num_heads;
  if (mqa) GPUPROBE_ASSIGN_OR_RETURN(s.num_kv_heads, r.RequiredInt({"multi_query_group_num"}, kMaxHeads));
  GPUPROBE_ASSIGN_OR_RETURN(s.max_position_embeddings, r.IntOr({"seq_length"}, kMaxPositions, 0));
  Variant v;
  GPUPROBE_ASSIGN_OR_RETURN(v.qkv_bias, r.BoolOr("add_qkv_bias", false));
  GPUPROBE_ASSIGN_OR_RETURN(v.o_bias, r.BoolOr("add_bias_linear", false));
  v.mlp_bias = v.o_bias;
  bool rms = true;
  GPUPROBE_ASSIGN_OR_RETURN(rms, r.BoolOr("rmsnorm", true));
  v.norm = rms ? NormKind::kRms : NormKind::kLayer;
  GPUPROBE_ASSIGN_OR_RETURN(v.final_norm, r.BoolOr("post_layer_norm", true));
  return FinishDecoder(r, std::move(s), v);
}

// Qwen (first generation, remote code modeling_qwen.py): c_attn (3h x h) with bias, c_proj
// without (no_bias), w1/w2 of intermediate_size / 2 each and c_proj back: a gated MLP.
Result<ModelShape> QwenV1(const ConfigReader& r, ModelShape s) {
  Variant v;
  v.qkv_bias = true;
  v.intermediate_divisor = 2;
  return BuildDecoder(r, std::move(s), v);
}

Result<ModelShape> GenericDecoder(const ConfigReader& r, ModelShape s) {
  // Only a config that names the decoder's dimensions is planned; which of the llama
  // defaults were taken is recorded so the user sees every assumption.
  for (auto fields : {std::initializer_list<const char*>{"hidden_size"}, {"num_hidden_layers", "num_layers"},
                      {"num_attention_heads", "num_heads"}, {"vocab_size"}, {"intermediate_size"}}) {
    bool found = false;
    for (const char* f : fields) found = found || r.Has(f);
    if (!found) return r.Missing(fields, "needed to plan an unknown model_type as a generic decoder");
  }
  // Fields of structures a llama layer cannot stand for (experts of an unknown layout, latent
  // attention, state-space mixers): planning them as dense attention would be silently wrong.
  for (const char* field : {"num_experts", "n_routed_experts", "moe_intermediate_size", "num_experts_per_tok",
                            "kv_lora_rank", "state_size", "mamba_d_state", "ssm_cfg"}) {
    if (r.Has(field) && !(std::string(field) == "num_experts_per_tok" && r.Has("num_local_experts"))) {
      return r.Problem(field, "generic_structure",
                       "belongs to a layer structure (experts, latent attention or state space) that a generic decoder cannot size", {});
    }
  }
  if (!r.Has("num_key_value_heads")) s.assumed_fields.push_back("num_key_value_heads=num_attention_heads");
  if (!r.Has("head_dim")) s.assumed_fields.push_back("head_dim=hidden_size/num_attention_heads");
  if (!r.Has("tie_word_embeddings")) s.assumed_fields.push_back("tie_word_embeddings=false");
  s.assumed_fields.push_back("mlp=gate+up+down");
  s.assumed_fields.push_back("norm=RMSNorm");
  if (!r.Has("attention_bias")) s.assumed_fields.push_back("attention_bias=false");
  Variant v;
  GPUPROBE_ASSIGN_OR_RETURN(v, WithAttentionBias(r, v));
  GPUPROBE_ASSIGN_OR_RETURN(v.mlp_bias, r.BoolOr("mlp_bias", false));
  v.window = WindowRule::kAll;
  v.moe = MoeRule::kMixtralOptional;
  auto shape = BuildDecoder(r, std::move(s), v);
  if (!shape.ok()) return shape;
  std::string fields;
  for (const auto& f : shape->assumed_fields) fields += (fields.empty() ? "" : ", ") + f;
  shape->notes.push_back({"generic_decoder", fields});
  return shape;
}

}  // namespace gpuprobe::model::families
