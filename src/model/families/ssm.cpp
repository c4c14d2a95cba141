// State-space models: Mamba, Mamba-2, and Jamba's mix of Mamba and attention layers. A Mamba
// layer keeps a fixed-size state per sequence (conv window + SSM state) instead of a KV cache;
// the state is sized as vLLM sizes it: (conv_kernel - 1) x conv channels + the SSM state.
#include <cmath>

#include <fmt/format.h>

#include "model/families/recipes.h"

namespace gpuprobe::model::families {

using core::Result;
using core::Status;

namespace {

// time_step_rank / mamba_dt_rank: "auto" means ceil(h / 16) (MambaConfig, JambaConfig).
Result<std::int64_t> DtRank(const ConfigReader& r, const char* field, std::int64_t hidden) {
  const auto& object = r.object();
  auto it = object.find(field);
  if (it == object.end() || it->is_null() || (it->is_string() && it->get<std::string>() == "auto")) {
    return (hidden + 15) / 16;
  }
  return r.RequiredInt({field}, kMaxHidden);
}

struct MambaV1 {
  std::int64_t inner = 0, state = 0, conv = 0, dt_rank = 0;
  bool proj_bias = false, conv_bias = true;
  bool dt_norms = false;  // Jamba: RMSNorms on dt (R), B and C (N each)

  double Params(double h) const {
    const double I = static_cast<double>(inner), N = static_cast<double>(state);
    const double K = static_cast<double>(conv), R = static_cast<double>(dt_rank);
    return h * 2 * I + (proj_bias ? 2 * I : 0)  // in_proj
           + I * K + (conv_bias ? I : 0)         // depthwise conv1d
           + I * (R + 2 * N)                     // x_proj
           + R * I + I                           // dt_proj (always with bias)
           + I * N + I                           // A_log, D
           + I * h + (proj_bias ? h : 0)         // out_proj
           + (dt_norms ? R + 2 * N : 0);
  }
  double StateElements() const {
    return static_cast<double>(conv - 1) * static_cast<double>(inner) + static_cast<double>(inner * state);
  }
};

LayerShape SsmLayer(double params, double state, double h) {
  LayerShape layer;
  layer.mixer = MixerKind::kSsm;
  layer.mixer_params = params;
  layer.ssm_state_elements = state;
  layer.norm_params = h;
  return layer;
}

void Finish(ModelShape& s, bool tied) {
  const double h = static_cast<double>(s.hidden_size), V = static_cast<double>(s.vocab_size);
  s.tied_embeddings = tied;
  s.embedding_params = V * h;
  s.final_norm_params = h;
  s.lm_head_params = tied ? 0 : V * h;
}

}  // namespace

// modeling_mamba.py: per layer an RMSNorm and the mixer (in_proj, conv1d, x_proj, dt_proj,
// A_log, D, out_proj); intermediate = expand x h; head tied to the embedding by default.
Result<ModelShape> Mamba(const ConfigReader& r, ModelShape s) {
  GPUPROBE_ASSIGN_OR_RETURN(s.hidden_size, r.RequiredInt({"hidden_size", "d_model"}, kMaxHidden));
  GPUPROBE_ASSIGN_OR_RETURN(s.num_layers, r.RequiredInt({"num_hidden_layers", "n_layer"}, kMaxLayers));
  GPUPROBE_ASSIGN_OR_RETURN(s.vocab_size, r.RequiredInt({"vocab_size"}, kMaxVocab));
  MambaV1 m;
  std::int64_t expand = 2;
  GPUPROBE_ASSIGN_OR_RETURN(expand, r.IntOr({"expand"}, 64, 2));
  GPUPROBE_ASSIGN_OR_RETURN(m.inner, r.IntOr({"intermediate_size"}, kMaxIntermediate, expand * s.hidden_size));
  GPUPROBE_ASSIGN_OR_RETURN(m.state, r.IntOr({"state_size"}, 65536, 16));
  GPUPROBE_ASSIGN_OR_RETURN(m.conv, r.IntOr({"conv_kernel"}, 1024, 4));
  GPUPROBE_ASSIGN_OR_RETURN(m.dt_rank, DtRank(r, "time_step_rank", s.hidden_size));
  GPUPROBE_ASSIGN_OR_RETURN(m.proj_bias, r.BoolOr("use_bias", false));
  GPUPROBE_ASSIGN_OR_RETURN(m.conv_bias, r.BoolOr("use_conv_bias", true));
  bool tied = true;
  GPUPROBE_ASSIGN_OR_RETURN(tied, r.BoolOr("tie_word_embeddings", true));
  const double h = static_cast<double>(s.hidden_size);
  s.layers.assign(static_cast<size_t>(s.num_layers), SsmLayer(m.Params(h), m.StateElements(), h));
  s.num_heads = s.num_kv_heads = 1;
  s.head_dim = s.hidden_size;
  s.intermediate_size = m.inner;
  s.gated_mlp = false;
  Finish(s, tied);
  return s;
}

// modeling_mamba2.py: in_proj to 2I + 2 G N + H (gate, x, B, C, dt), conv1d over I + 2 G N
// channels, dt_bias, A_log and D per head, a gated RMSNorm over I, out_proj; state per layer
// (conv_kernel - 1) x conv channels + H x head_dim x N.
Result<ModelShape> Mamba2(const ConfigReader& r, ModelShape s) {
  GPUPROBE_ASSIGN_OR_RETURN(s.hidden_size, r.RequiredInt({"hidden_size", "d_model"}, kMaxHidden));
  GPUPROBE_ASSIGN_OR_RETURN(s.num_layers, r.RequiredInt({"num_hidden_layers", "n_layer"}, kMaxLayers));
  GPUPROBE_ASSIGN_OR_RETURN(s.vocab_size, r.RequiredInt({"vocab_size"}, kMaxVocab));
  std::int64_t expand = 2, state = 128, conv = 4, groups = 8, head_dim = 64;
  GPUPROBE_ASSIGN_OR_RETURN(expand, r.IntOr({"expand"}, 64, 2));
  GPUPROBE_ASSIGN_OR_RETURN(state, r.IntOr({"state_size"}, 65536, 128));
  GPUPROBE_ASSIGN_OR_RETURN(conv, r.IntOr({"conv_kernel"}, 1024, 4));
  GPUPROBE_ASSIGN_OR_RETURN(groups, r.IntOr({"n_groups"}, kMaxHeads, 8));
  GPUPROBE_ASSIGN_OR_RETURN(head_dim, r.IntOr({"head_dim"}, kMaxHidden, 64));
  const std::int64_t inner = expand * s.hidden_size;
  if (inner % head_dim != 0) {
    return r.Problem("head_dim", "not_divide", fmt::format("({}) does not divide expand x hidden_size ({})", head_dim, inner),
                     {{"value", std::to_string(head_dim)}, {"other", "expand x hidden_size"}, {"other_value", std::to_string(inner)}});
  }
  std::int64_t heads = inner / head_dim;
  GPUPROBE_ASSIGN_OR_RETURN(heads, r.IntOr({"num_heads"}, kMaxHeads, heads));
  if (heads * head_dim != inner) {
    return r.Problem("num_heads", "ssm_heads", fmt::format("({}) x head_dim ({}) must equal expand x hidden_size ({})", heads, head_dim, inner),
                     {{"value", std::to_string(heads)}, {"head_dim", std::to_string(head_dim)}, {"other_value", std::to_string(inner)}});
  }
  bool proj_bias = false, conv_bias = true, tied = false;
  GPUPROBE_ASSIGN_OR_RETURN(proj_bias, r.BoolOr("use_bias", false));
  GPUPROBE_ASSIGN_OR_RETURN(conv_bias, r.BoolOr("use_conv_bias", true));
  GPUPROBE_ASSIGN_OR_RETURN(tied, r.BoolOr("tie_word_embeddings", false));
  const double h = static_cast<double>(s.hidden_size), I = static_cast<double>(inner);
  const double GN = static_cast<double>(groups * state), H = static_cast<double>(heads);
  const double K = static_cast<double>(conv), conv_dim = I + 2 * GN;
  const double in_out = 2 * I + 2 * GN + H;
  double params = h * in_out + (proj_bias ? in_out : 0) + conv_dim * K + (conv_bias ? conv_dim : 0) + 3 * H + I +
                  I * h + (proj_bias ? h : 0);
  double state_elements = (K - 1) * conv_dim + H * static_cast<double>(head_dim) * static_cast<double>(state);
  s.layers.assign(static_cast<size_t>(s.num_layers), SsmLayer(params, state_elements, h));
  s.num_heads = s.num_kv_heads = heads;
  s.head_dim = head_dim;
  s.intermediate_size = inner;
  s.gated_mlp = false;
  Finish(s, tied);
  return s;
}

// modeling_jamba.py: attention where i % attn_layer_period == attn_layer_offset, else a Mamba
// mixer with dt/B/C RMSNorms; MoE (num_experts gated experts, router h x E) where
// i % expert_layer_period == expert_layer_offset, else a dense gated MLP; two RMSNorms per layer.
Result<ModelShape> Jamba(const ConfigReader& r, ModelShape s) {
  GPUPROBE_ASSIGN_OR_RETURN(s.hidden_size, r.RequiredInt({"hidden_size"}, kMaxHidden));
  GPUPROBE_ASSIGN_OR_RETURN(s.num_layers, r.RequiredInt({"num_hidden_layers"}, kMaxLayers));
  GPUPROBE_ASSIGN_OR_RETURN(s.num_heads, r.RequiredInt({"num_attention_heads"}, kMaxHeads));
  GPUPROBE_ASSIGN_OR_RETURN(s.vocab_size, r.RequiredInt({"vocab_size"}, kMaxVocab));
  GPUPROBE_ASSIGN_OR_RETURN(s.intermediate_size, r.RequiredInt({"intermediate_size"}, kMaxIntermediate));
  GPUPROBE_ASSIGN_OR_RETURN(s.num_kv_heads, r.IntOr({"num_key_value_heads"}, kMaxHeads, s.num_heads));
  GPUPROBE_ASSIGN_OR_RETURN(s.max_position_embeddings, r.IntOr({"max_position_embeddings"}, kMaxPositions, 0));
  if (s.hidden_size % s.num_heads != 0) {
    return r.Problem("num_attention_heads", "not_divide", fmt::format("({}) does not divide hidden_size ({})", s.num_heads, s.hidden_size),
                     {{"value", std::to_string(s.num_heads)}, {"other", "hidden_size"}, {"other_value", std::to_string(s.hidden_size)}});
  }
  if (s.num_kv_heads > s.num_heads || s.num_heads % s.num_kv_heads != 0) {
    return r.Problem("num_key_value_heads", "not_divide",
                     fmt::format("({}) does not divide the {} attention heads", s.num_kv_heads, s.num_heads),
                     {{"value", std::to_string(s.num_kv_heads)}, {"other", "num_attention_heads"}, {"other_value", std::to_string(s.num_heads)}});
  }
  s.head_dim = s.hidden_size / s.num_heads;
  std::int64_t attn_period = 8, attn_offset = 4, expert_period = 2, expert_offset = 1, experts = 16, top_k = 2;
  GPUPROBE_ASSIGN_OR_RETURN(attn_period, r.IntOr({"attn_layer_period"}, kMaxLayers, 8));
  GPUPROBE_ASSIGN_OR_RETURN(attn_offset, r.IntOr({"attn_layer_offset"}, kMaxLayers, 4, 0));
  GPUPROBE_ASSIGN_OR_RETURN(expert_period, r.IntOr({"expert_layer_period"}, kMaxLayers, 2));
  GPUPROBE_ASSIGN_OR_RETURN(expert_offset, r.IntOr({"expert_layer_offset"}, kMaxLayers, 1, 0));
  GPUPROBE_ASSIGN_OR_RETURN(experts, r.IntOr({"num_experts"}, kMaxExperts, 16));
  GPUPROBE_ASSIGN_OR_RETURN(top_k, r.IntOr({"num_experts_per_tok"}, kMaxExperts, 2));
  if (top_k > experts) {
    return r.Problem("num_experts_per_tok", "larger_than", fmt::format("({}) is larger than num_experts ({})", top_k, experts),
                     {{"value", std::to_string(top_k)}, {"other", "num_experts"}, {"other_value", std::to_string(experts)}});
  }
  MambaV1 m;
  std::int64_t expand = 2;
  GPUPROBE_ASSIGN_OR_RETURN(expand, r.IntOr({"mamba_expand"}, 64, 2));
  m.inner = expand * s.hidden_size;
  GPUPROBE_ASSIGN_OR_RETURN(m.state, r.IntOr({"mamba_d_state"}, 65536, 16));
  GPUPROBE_ASSIGN_OR_RETURN(m.conv, r.IntOr({"mamba_d_conv"}, 1024, 4));
  GPUPROBE_ASSIGN_OR_RETURN(m.dt_rank, DtRank(r, "mamba_dt_rank", s.hidden_size));
  GPUPROBE_ASSIGN_OR_RETURN(m.proj_bias, r.BoolOr("mamba_proj_bias", false));
  GPUPROBE_ASSIGN_OR_RETURN(m.conv_bias, r.BoolOr("mamba_conv_bias", true));
  m.dt_norms = true;
  bool tied = false;
  GPUPROBE_ASSIGN_OR_RETURN(tied, r.BoolOr("tie_word_embeddings", false));

  const double h = static_cast<double>(s.hidden_size), a = static_cast<double>(s.num_heads);
  const double k = static_cast<double>(s.num_kv_heads), d = static_cast<double>(s.head_dim);
  const double mlp = 3 * h * static_cast<double>(s.intermediate_size);
  s.layers.clear();
  for (std::int64_t i = 0; i < s.num_layers; ++i) {
    LayerShape layer;
    if (i % attn_period == attn_offset) {
      layer.kv_heads = s.num_kv_heads;
      layer.k_head_dim = layer.v_head_dim = s.head_dim;
      layer.mixer_params = 2 * h * a * d + 2 * h * k * d;
    } else {
      layer = SsmLayer(m.Params(h), m.StateElements(), 0);
    }
    layer.norm_params = 2 * h;
    if (i % expert_period == expert_offset) {
      layer.experts = experts;
      layer.experts_per_token = top_k;
      layer.expert_params = mlp;
      layer.router_params = h * static_cast<double>(experts);
    } else {
      layer.dense_mlp_params = mlp;
    }
    s.layers.push_back(layer);
  }
  s.num_experts = experts;
  s.experts_per_token = top_k;
  Finish(s, tied);
  return s;
}

}  // namespace gpuprobe::model::families
