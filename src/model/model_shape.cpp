#include "model/model_shape.h"

#include <algorithm>
#include <cmath>

namespace gpuprobe::model {
namespace {

std::int64_t Exact(double value) { return static_cast<std::int64_t>(std::llround(value)); }

// vLLM's rule: each tensor-parallel rank keeps max(1, k / tp) KV heads; below one head per
// rank the heads are replicated. Returned summed over the tp ranks.
double KvHeadsOverRanks(std::int64_t kv_heads, int tp) {
  double per_rank = std::max(1.0, static_cast<double>(kv_heads) / tp);
  return per_rank * tp;
}

// Per-token cache elements of one layer, summed over `tp` ranks.
double LayerTokenElements(const LayerShape& layer, int tp) {
  switch (layer.mixer) {
    case MixerKind::kFullAttention:
    case MixerKind::kSlidingAttention:
      return KvHeadsOverRanks(layer.kv_heads, tp) * static_cast<double>(layer.k_head_dim + layer.v_head_dim);
    case MixerKind::kMla:
      return static_cast<double>(layer.latent_dim) * tp;  // the latent is replicated on every rank
    case MixerKind::kSsm:
    case MixerKind::kNone:
      return 0;
  }
  return 0;
}

double RoundUp(double tokens, std::int64_t block) {
  if (block <= 1) return tokens;
  double b = static_cast<double>(block);
  return std::ceil(tokens / b) * b;
}

}  // namespace

const char* MixerKindName(MixerKind kind) {
  switch (kind) {
    case MixerKind::kFullAttention: return "full_attention";
    case MixerKind::kSlidingAttention: return "sliding_attention";
    case MixerKind::kMla: return "mla";
    case MixerKind::kSsm: return "ssm";
    case MixerKind::kNone: return "none";
  }
  return "?";
}

double LayerShape::KvElementsPerToken() const { return LayerTokenElements(*this, 1); }

void BuildUniformLayers(ModelShape& s) {
  const double h = static_cast<double>(s.hidden_size), a = static_cast<double>(s.num_heads);
  const double k = static_cast<double>(s.num_kv_heads), d = static_cast<double>(s.head_dim);
  const double f = static_cast<double>(s.intermediate_size), V = static_cast<double>(s.vocab_size);
  const double norm = s.norm == NormKind::kRms ? h : s.norm == NormKind::kLayer ? 2 * h : 0;

  LayerShape layer;
  layer.mixer = s.sliding_window > 0 ? MixerKind::kSlidingAttention : MixerKind::kFullAttention;
  layer.window = s.sliding_window;
  layer.kv_heads = s.num_kv_heads;
  layer.k_head_dim = layer.v_head_dim = s.head_dim;
  // Attention: Q h x (a d), K and V h x (k d) each, O (a d) x h, plus biases where present.
  layer.mixer_params = h * a * d + 2 * h * k * d + a * d * h + (s.qkv_bias ? a * d + 2 * k * d : 0) +
                       (s.o_bias ? h : 0);
  layer.norm_params = s.norms_per_layer * norm + (s.qk_norm ? 2 * d : 0);
  layer.vector_params = (s.qkv_bias ? a * d + 2 * k * d : 0) + (s.o_bias ? h : 0);
  // MLP: gated = gate + up + down (3 h f); plain = up + down (2 h f).
  double mlp = (s.gated_mlp ? 3 : 2) * h * f + (s.mlp_bias ? (s.gated_mlp ? 2 * f : f) + h : 0);
  const double mlp_bias = s.mlp_bias ? (s.gated_mlp ? 2 * f : f) + h : 0;
  layer.vector_params += s.num_experts > 0 ? mlp_bias * static_cast<double>(s.num_experts) : mlp_bias;
  if (s.num_experts > 0) {
    layer.experts = s.num_experts;
    layer.experts_per_token = s.experts_per_token;
    layer.expert_params = mlp;
    layer.router_params = h * static_cast<double>(s.num_experts);
  } else {
    layer.dense_mlp_params = mlp;
  }
  s.layers.assign(static_cast<size_t>(std::max<std::int64_t>(s.num_layers, 0)), layer);
  s.embedding_params = V * h + static_cast<double>(s.learned_positions) * h +
                       static_cast<double>(s.token_type_vocab) * h + (s.embedding_norm ? norm : 0);
  s.final_norm_params = s.final_norm ? norm : 0;
  s.lm_head_params = (s.has_lm_head && !s.tied_embeddings) ? V * h : 0;
  s.pooler_params = s.pooler ? h * h + h : 0;
}

const ModelShape& WithLayers(const ModelShape& shape, ModelShape* storage) {
  if (!shape.layers.empty() || shape.layers_counted) return shape;
  *storage = shape;
  BuildUniformLayers(*storage);
  return *storage;
}

ParamCount CountParameters(const ModelShape& shape) {
  ModelShape uniform;
  const ModelShape* s = &WithLayers(shape, &uniform);
  double attention = 0, mlp = 0, mlp_active = 0, experts = 0, router = 0, norms = 0, vectors = 0;
  for (const LayerShape& l : s->layers) {
    vectors += l.vector_params;
    attention += l.mixer_params;
    norms += l.norm_params;
    router += l.router_params;
    double routed = static_cast<double>(l.experts) * l.expert_params;
    double routed_active = static_cast<double>(std::min(l.experts_per_token, l.experts)) * l.expert_params;
    experts += routed;
    mlp += l.dense_mlp_params + routed + l.shared_expert_params;
    mlp_active += l.dense_mlp_params + routed_active + l.shared_expert_params;
  }
  norms += s->final_norm_params;

  ParamCount c;
  c.embedding = Exact(s->embedding_params);
  c.attention = Exact(attention);
  c.mlp = Exact(mlp);
  c.mlp_active = Exact(mlp_active);
  c.experts = Exact(experts);
  c.router = Exact(router);
  c.vectors = Exact(vectors);
  c.norms = Exact(norms);
  c.lm_head = Exact(s->lm_head_params);
  c.pooler = Exact(s->pooler_params);
  c.vision = Exact(s->vision_params);
  c.audio = Exact(s->audio_params);
  c.other = Exact(s->other_params);
  c.total = c.embedding + c.attention + c.mlp + c.router + c.norms + c.lm_head + c.pooler + c.vision + c.audio + c.other;
  c.active = c.total - c.mlp + c.mlp_active;
  c.mtp = Exact(s->mtp_params);
  c.checkpoint_total = c.total + c.mtp;
  c.kept_16bit = c.embedding + c.lm_head + c.norms + c.router + c.vectors;
  c.linear = c.total - c.kept_16bit;

  if (shape.params_override > 0 && c.total > 0) {
    // The user's total wins; scale every part so they still add up to it.
    double scale = shape.params_override / static_cast<double>(c.total);
    auto scaled = [&](std::int64_t v) { return static_cast<std::int64_t>(std::llround(v * scale)); };
    ParamCount o;
    o.embedding = scaled(c.embedding);
    o.attention = scaled(c.attention);
    o.mlp = scaled(c.mlp);
    o.mlp_active = scaled(c.mlp_active);
    o.experts = scaled(c.experts);
    o.router = scaled(c.router);
    o.norms = scaled(c.norms);
    o.lm_head = scaled(c.lm_head);
    o.pooler = scaled(c.pooler);
    o.total = static_cast<std::int64_t>(std::llround(shape.params_override));
    o.active = scaled(c.active);
    o.checkpoint_total = o.total;
    o.kept_16bit = scaled(c.kept_16bit);
    o.linear = o.total - o.kept_16bit;
    return o;
  }
  return c;
}

double KvBytesPerToken(const ModelShape& shape, double bytes_per_element, int tensor_parallel) {
  int tp = std::max(1, tensor_parallel);
  if (shape.layers.empty() && !shape.layers_counted) {
    return 2.0 * static_cast<double>(shape.num_layers) * KvHeadsOverRanks(shape.num_kv_heads, tp) *
           static_cast<double>(shape.head_dim) * bytes_per_element;
  }
  double elements = 0;
  for (const LayerShape& l : shape.layers) elements += LayerTokenElements(l, tp);
  return elements * bytes_per_element;
}

double KvCacheBytes(const ModelShape& shape, double bytes_per_element, double state_bytes_per_element,
                    std::int64_t seq, std::int64_t batch, int tensor_parallel, std::int64_t block_tokens) {
  int tp = std::max(1, tensor_parallel);
  const double s = static_cast<double>(seq), b = static_cast<double>(batch);
  if (shape.layers.empty() && !shape.layers_counted) return KvBytesPerToken(shape, bytes_per_element, tp) * RoundUp(s, block_tokens) * b;
  double bytes = 0;
  for (const LayerShape& l : shape.layers) {
    // Fixed per sequence: a recurrent state, and cross-attention K/V of the encoder output.
    bytes += l.cross_kv_elements * bytes_per_element;
    if (l.mixer == MixerKind::kSsm || l.mixer == MixerKind::kNone) {
      bytes += l.ssm_state_elements * state_bytes_per_element;
      continue;
    }
    double tokens = s;
    if (l.mixer == MixerKind::kSlidingAttention && l.window > 0) tokens = std::min(s, static_cast<double>(l.window));
    bytes += LayerTokenElements(l, tp) * bytes_per_element * RoundUp(tokens, block_tokens);
  }
  return bytes * b;
}

}  // namespace gpuprobe::model
