// GPT-style decoders and BERT: LayerNorms with bias, plain (two-matrix) MLPs, fused or
// separate q/k/v with biases, learned positions where the family has them.
#include <fmt/format.h>

#include "model/families/recipes.h"

namespace gpuprobe::model::families {

using core::Result;
using core::Status;

namespace {

Status HeadDimFromHidden(const ConfigReader& r, ModelShape& s, const char* heads_field) {
  if (s.hidden_size % s.num_heads != 0) {
    return r.Problem(heads_field, "not_divide", fmt::format("({}) does not divide the hidden size ({})", s.num_heads, s.hidden_size),
                     {{"value", std::to_string(s.num_heads)}, {"other", "hidden_size"}, {"other_value", std::to_string(s.hidden_size)}});
  }
  s.head_dim = s.hidden_size / s.num_heads;
  return Status::Ok();
}

void GptDefaults(ModelShape& s) {
  s.gated_mlp = false;
  s.norm = NormKind::kLayer;
  s.norms_per_layer = 2;
  s.qkv_bias = s.o_bias = s.mlp_bias = true;
}

}  // namespace

// modeling_gpt2.py: wte + wpe, per layer ln_1, c_attn (3h) and c_proj with biases, ln_2,
// c_fc (n_inner, null = 4h) and c_proj with biases; ln_f; head tied to wte.
Result<ModelShape> Gpt2(const ConfigReader& r, ModelShape s) {
  GPUPROBE_ASSIGN_OR_RETURN(s.hidden_size, r.RequiredInt({"n_embd", "hidden_size"}, kMaxHidden));
  GPUPROBE_ASSIGN_OR_RETURN(s.num_layers, r.RequiredInt({"n_layer", "num_hidden_layers"}, kMaxLayers));
  GPUPROBE_ASSIGN_OR_RETURN(s.num_heads, r.RequiredInt({"n_head", "num_attention_heads"}, kMaxHeads));
  GPUPROBE_ASSIGN_OR_RETURN(s.vocab_size, r.RequiredInt({"vocab_size"}, kMaxVocab));
  GPUPROBE_ASSIGN_OR_RETURN(s.learned_positions, r.RequiredInt({"n_positions", "n_ctx"}, kMaxPositions));
  GPUPROBE_ASSIGN_OR_RETURN(s.intermediate_size, r.IntOr({"n_inner"}, kMaxIntermediate, 4 * s.hidden_size));
  GPUPROBE_RETURN_IF_ERROR(HeadDimFromHidden(r, s, "n_head"));
  s.num_kv_heads = s.num_heads;
  GptDefaults(s);
  GPUPROBE_ASSIGN_OR_RETURN(s.tied_embeddings, r.BoolOr("tie_word_embeddings", true));
  s.max_position_embeddings = s.learned_positions;
  BuildUniformLayers(s);
  return s;
}

// modeling_gpt_bigcode.py: GPT-2 with multi-query attention (multi_query, default true):
// c_attn outputs h + 2 d (one K and one V head).
Result<ModelShape> GptBigCode(const ConfigReader& r, ModelShape s) {
  auto shape = Gpt2(r, std::move(s));
  if (!shape.ok()) return shape;
  bool mqa = true;
  GPUPROBE_ASSIGN_OR_RETURN(mqa, r.BoolOr("multi_query", true));
  shape->num_kv_heads = mqa ? 1 : shape->num_heads;
  BuildUniformLayers(*shape);
  return shape;
}

// modeling_gpt_neox.py: fused query_key_value (3h) and dense with attention_bias (default
// true), two LayerNorms per layer, dense_h_to_4h/dense_4h_to_h with biases, an untied embed_out.
Result<ModelShape> GptNeoX(const ConfigReader& r, ModelShape s) {
  GPUPROBE_ASSIGN_OR_RETURN(s.hidden_size, r.RequiredInt({"hidden_size"}, kMaxHidden));
  GPUPROBE_ASSIGN_OR_RETURN(s.num_layers, r.RequiredInt({"num_hidden_layers"}, kMaxLayers));
  GPUPROBE_ASSIGN_OR_RETURN(s.num_heads, r.RequiredInt({"num_attention_heads"}, kMaxHeads));
  GPUPROBE_ASSIGN_OR_RETURN(s.vocab_size, r.RequiredInt({"vocab_size"}, kMaxVocab));
  GPUPROBE_ASSIGN_OR_RETURN(s.intermediate_size, r.RequiredInt({"intermediate_size"}, kMaxIntermediate));
  GPUPROBE_RETURN_IF_ERROR(HeadDimFromHidden(r, s, "num_attention_heads"));
  GPUPROBE_ASSIGN_OR_RETURN(s.max_position_embeddings, r.IntOr({"max_position_embeddings"}, kMaxPositions, 0));
  s.num_kv_heads = s.num_heads;
  GptDefaults(s);
  bool bias = true;
  GPUPROBE_ASSIGN_OR_RETURN(bias, r.BoolOr("attention_bias", true));
  s.qkv_bias = s.o_bias = bias;
  GPUPROBE_ASSIGN_OR_RETURN(s.tied_embeddings, r.BoolOr("tie_word_embeddings", false));
  BuildUniformLayers(s);
  return s;
}

// modeling_falcon.py (and the RefinedWeb/RefinedWebModel remote code before it): fused
// query_key_value of (a + 2 k) d outputs, dense, dense_h_to_4h / dense_4h_to_h of
// ffn_hidden_size (default 4h), all with `bias`; LayerNorms with bias. new_decoder_architecture
// (model_type RefinedWeb) has num_kv_heads KV heads and two LayerNorms (ln_attn, ln_mlp) or
// num_ln_in_parallel_attn; otherwise multi_query means one KV head and a parallel_attn layer
// has one LayerNorm (two when attention and MLP run in sequence). The published 7B, 40B and
// 180B checkpoints store lm_head.weight apart from the embedding, so untied is the default.
Result<ModelShape> Falcon(const ConfigReader& r, ModelShape s) {
  GPUPROBE_ASSIGN_OR_RETURN(s.hidden_size, r.RequiredInt({"hidden_size"}, kMaxHidden));
  GPUPROBE_ASSIGN_OR_RETURN(s.num_layers, r.RequiredInt({"num_hidden_layers", "n_layer"}, kMaxLayers));
  GPUPROBE_ASSIGN_OR_RETURN(s.num_heads, r.RequiredInt({"num_attention_heads", "n_head"}, kMaxHeads));
  GPUPROBE_ASSIGN_OR_RETURN(s.vocab_size, r.RequiredInt({"vocab_size"}, kMaxVocab));
  GPUPROBE_RETURN_IF_ERROR(HeadDimFromHidden(r, s, "num_attention_heads"));
  GPUPROBE_ASSIGN_OR_RETURN(s.intermediate_size, r.IntOr({"ffn_hidden_size"}, kMaxIntermediate, 4 * s.hidden_size));
  GPUPROBE_ASSIGN_OR_RETURN(s.max_position_embeddings, r.IntOr({"max_position_embeddings"}, kMaxPositions, 0));
  bool new_arch = s.model_type == "RefinedWeb", multi_query = true, parallel = true, bias = false;
  GPUPROBE_ASSIGN_OR_RETURN(new_arch, r.BoolOr("new_decoder_architecture", new_arch));
  GPUPROBE_ASSIGN_OR_RETURN(multi_query, r.BoolOr("multi_query", true));
  GPUPROBE_ASSIGN_OR_RETURN(parallel, r.BoolOr("parallel_attn", true));
  GPUPROBE_ASSIGN_OR_RETURN(bias, r.BoolOr("bias", false));
  if (new_arch) {
    GPUPROBE_ASSIGN_OR_RETURN(s.num_kv_heads, r.IntOr({"num_kv_heads", "n_head_kv"}, kMaxHeads, s.num_heads));
    std::int64_t lns = 2;
    GPUPROBE_ASSIGN_OR_RETURN(lns, r.IntOr({"num_ln_in_parallel_attn"}, 2, 2));
    s.norms_per_layer = static_cast<int>(lns);
  } else {
    s.num_kv_heads = multi_query ? 1 : s.num_heads;
    s.norms_per_layer = parallel ? 1 : 2;
  }
  if (s.num_kv_heads > s.num_heads || s.num_heads % s.num_kv_heads != 0) {
    return r.Problem("num_kv_heads", "not_divide", fmt::format("({}) does not divide the {} attention heads", s.num_kv_heads, s.num_heads),
                     {{"value", std::to_string(s.num_kv_heads)}, {"other", "num_attention_heads"}, {"other_value", std::to_string(s.num_heads)}});
  }
  s.gated_mlp = false;
  s.norm = NormKind::kLayer;
  s.qkv_bias = s.o_bias = s.mlp_bias = bias;
  GPUPROBE_ASSIGN_OR_RETURN(s.tied_embeddings, r.BoolOr("tie_word_embeddings", false));
  BuildUniformLayers(s);
  return s;
}

// modeling_phi.py (Phi-1/1.5/2): one LayerNorm per layer (attention and MLP in parallel),
// q/k/v/dense with biases, fc1/fc2 with biases, optional per-head q/k LayerNorms
// (qk_layernorm), final LayerNorm, lm_head with a bias.
Result<ModelShape> Phi(const ConfigReader& r, ModelShape s) {
  GPUPROBE_ASSIGN_OR_RETURN(s.hidden_size, r.RequiredInt({"hidden_size", "n_embd"}, kMaxHidden));
  GPUPROBE_ASSIGN_OR_RETURN(s.num_layers, r.RequiredInt({"num_hidden_layers", "n_layer"}, kMaxLayers));
  GPUPROBE_ASSIGN_OR_RETURN(s.num_heads, r.RequiredInt({"num_attention_heads", "n_head"}, kMaxHeads));
  GPUPROBE_ASSIGN_OR_RETURN(s.vocab_size, r.RequiredInt({"vocab_size"}, kMaxVocab));
  GPUPROBE_ASSIGN_OR_RETURN(s.intermediate_size,
                            r.IntOr({"intermediate_size", "n_inner"}, kMaxIntermediate, 4 * s.hidden_size));
  GPUPROBE_RETURN_IF_ERROR(HeadDimFromHidden(r, s, "num_attention_heads"));
  GPUPROBE_ASSIGN_OR_RETURN(s.num_kv_heads, r.IntOr({"num_key_value_heads"}, kMaxHeads, s.num_heads));
  GPUPROBE_ASSIGN_OR_RETURN(s.max_position_embeddings, r.IntOr({"max_position_embeddings"}, kMaxPositions, 0));
  if (s.num_kv_heads > s.num_heads || s.num_heads % s.num_kv_heads != 0) {
    return r.Problem("num_key_value_heads", "not_divide",
                     fmt::format("({}) does not divide the {} attention heads", s.num_kv_heads, s.num_heads),
                     {{"value", std::to_string(s.num_kv_heads)}, {"other", "num_attention_heads"}, {"other_value", std::to_string(s.num_heads)}});
  }
  GptDefaults(s);
  s.norms_per_layer = 1;
  bool qk = false;
  GPUPROBE_ASSIGN_OR_RETURN(qk, r.BoolOr("qk_layernorm", false));
  GPUPROBE_ASSIGN_OR_RETURN(s.tied_embeddings, r.BoolOr("tie_word_embeddings", false));
  BuildUniformLayers(s);
  if (qk) {
    for (LayerShape& layer : s.layers) layer.norm_params += 4 * static_cast<double>(s.head_dim);
  }
  if (s.lm_head_params > 0) s.lm_head_params += static_cast<double>(s.vocab_size);
  return s;
}

// modeling_bert.py, counted as BertModel (encoder + pooler, no MLM head): word, position and
// token-type embeddings with a LayerNorm; per layer q/k/v/o with biases, two LayerNorms,
// intermediate and output dense with biases.
Result<ModelShape> Bert(const ConfigReader& r, ModelShape s) {
  GPUPROBE_ASSIGN_OR_RETURN(s.hidden_size, r.RequiredInt({"hidden_size"}, kMaxHidden));
  GPUPROBE_ASSIGN_OR_RETURN(s.num_layers, r.RequiredInt({"num_hidden_layers"}, kMaxLayers));
  GPUPROBE_ASSIGN_OR_RETURN(s.num_heads, r.RequiredInt({"num_attention_heads"}, kMaxHeads));
  GPUPROBE_ASSIGN_OR_RETURN(s.vocab_size, r.RequiredInt({"vocab_size"}, kMaxVocab));
  GPUPROBE_ASSIGN_OR_RETURN(s.intermediate_size, r.RequiredInt({"intermediate_size"}, kMaxIntermediate));
  GPUPROBE_ASSIGN_OR_RETURN(s.learned_positions, r.RequiredInt({"max_position_embeddings"}, kMaxPositions));
  GPUPROBE_ASSIGN_OR_RETURN(s.token_type_vocab, r.IntOr({"type_vocab_size"}, kMaxVocab, 2));
  GPUPROBE_RETURN_IF_ERROR(HeadDimFromHidden(r, s, "num_attention_heads"));
  s.num_kv_heads = s.num_heads;
  GptDefaults(s);
  s.embedding_norm = true;
  s.final_norm = false;   // BERT normalises inside each layer only
  s.has_lm_head = false;  // counted as BertModel: encoder + pooler, no MLM head
  s.pooler = true;
  s.tied_embeddings = true;
  s.max_position_embeddings = s.learned_positions;
  BuildUniformLayers(s);
  return s;
}

}  // namespace gpuprobe::model::families
