#include "model/model_shape.h"

#include <algorithm>
#include <cmath>

namespace gpuprobe::model {

ParamCount CountParameters(const ModelShape& s) {
  ParamCount c;
  const std::int64_t h = s.hidden_size, L = s.num_layers, a = s.num_heads, k = s.num_kv_heads;
  const std::int64_t d = s.head_dim, f = s.intermediate_size, V = s.vocab_size;
  const std::int64_t norm_params = s.norm == NormKind::kRms ? h : 2 * h;

  c.embedding = V * h + s.learned_positions * h + s.token_type_vocab * h +
                (s.embedding_norm ? norm_params : 0);

  // Attention: Q h x (a d), K and V h x (k d) each, O (a d) x h, plus biases where present.
  std::int64_t attention = h * a * d + 2 * h * k * d + a * d * h;
  if (s.qkv_bias) attention += a * d + 2 * k * d;
  if (s.o_bias) attention += h;
  c.attention = L * attention;

  // MLP: gated = gate + up + down (3 h f); plain = up + down (2 h f).
  std::int64_t mlp = (s.gated_mlp ? 3 : 2) * h * f;
  if (s.mlp_bias) mlp += (s.gated_mlp ? 2 * f : f) + h;
  std::int64_t experts = s.num_experts > 0 ? s.num_experts : 1;
  std::int64_t active_experts = s.num_experts > 0 ? std::min(s.experts_per_token, s.num_experts) : 1;
  c.mlp = L * mlp * experts;
  c.mlp_active = L * mlp * active_experts;
  c.router = s.num_experts > 0 ? L * h * s.num_experts : 0;

  std::int64_t layer_norms = s.norms_per_layer * norm_params + (s.qk_norm ? 2 * d : 0);
  c.norms = L * layer_norms + (s.final_norm ? norm_params : 0);
  c.lm_head = (s.has_lm_head && !s.tied_embeddings) ? V * h : 0;
  c.pooler = s.pooler ? h * h + h : 0;

  c.total = c.embedding + c.attention + c.mlp + c.router + c.norms + c.lm_head + c.pooler;
  c.active = c.total - c.mlp + c.mlp_active;
  c.kept_16bit = c.embedding + c.lm_head + c.norms + c.router;
  c.linear = c.total - c.kept_16bit;

  if (s.params_override > 0 && c.total > 0) {
    // The user's total wins; scale every part so they still add up to it.
    double scale = s.params_override / static_cast<double>(c.total);
    auto scaled = [&](std::int64_t v) { return static_cast<std::int64_t>(std::llround(v * scale)); };
    ParamCount o;
    o.embedding = scaled(c.embedding);
    o.attention = scaled(c.attention);
    o.mlp = scaled(c.mlp);
    o.mlp_active = scaled(c.mlp_active);
    o.router = scaled(c.router);
    o.norms = scaled(c.norms);
    o.lm_head = scaled(c.lm_head);
    o.pooler = scaled(c.pooler);
    o.total = static_cast<std::int64_t>(std::llround(s.params_override));
    o.active = scaled(c.active);
    o.kept_16bit = scaled(c.kept_16bit);
    o.linear = o.total - o.kept_16bit;
    return o;
  }
  return c;
}

double KvBytesPerToken(const ModelShape& shape, double bytes_per_element, int tensor_parallel) {
  int tp = std::max(1, tensor_parallel);
  // Each rank holds max(1, k / tp) KV heads: below one head per rank they are replicated.
  double heads_per_rank = std::max(1.0, static_cast<double>(shape.num_kv_heads) / tp);
  double heads_total = heads_per_rank * tp;
  return 2.0 * static_cast<double>(shape.num_layers) * heads_total *
         static_cast<double>(shape.head_dim) * bytes_per_element;
}

}  // namespace gpuprobe::model
