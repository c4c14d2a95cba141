// The shared builder behind the llama-like recipes: a decoder of L identical layers (q, k, v,
// o attention; gated or plain MLP; the family's norms and biases), then the family's
// per-layer differences: sliding-window layers, MoE layers, q/k norms, a head bias.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>

#include "core/status.h"
#include "model/config_reader.h"
#include "model/model_shape.h"

namespace gpuprobe::model::families {

enum class QkNorm { kNone, kPerHead, kFullWidth };
/// Which layers use the config's sliding_window when no layer_types list is given.
enum class WindowRule { kNone, kAll, kQwen, kAlternate, kGemma3 };
/// How MoE is written: Mixtral's num_local_experts (optional or required), Qwen-MoE's
/// num_experts + moe_intermediate_size (+ shared expert), OLMoE's num_experts over intermediate_size.
enum class MoeRule { kNone, kMixtralOptional, kMixtral, kQwen, kOlmoe };

struct Variant {
  bool tie_default = false;
  NormKind norm = NormKind::kRms;
  int norms_per_layer = 2;
  bool final_norm = true;
  QkNorm qk_norm = QkNorm::kNone;
  bool qkv_bias = false, o_bias = false, mlp_bias = false;
  bool gated = true;
  bool lm_head_bias = false;
  WindowRule window = WindowRule::kNone;
  MoeRule moe = MoeRule::kNone;
  /// The config stores the two MLP branches together (Qwen v1): f = intermediate_size / 2.
  std::int64_t intermediate_divisor = 1;
};

/// Reads hidden_size, layers, heads, KV heads (vLLM's fallback order), head_dim (given or
/// h / a), vocab_size, intermediate_size and max_position_embeddings into `shape`.
core::Status ReadDecoderBasics(const ConfigReader& config, ModelShape& shape, const Variant& variant);

/// Builds the layers from the summary and `variant`, then applies windows, MoE, q/k norms,
/// the head bias and the tie (tie_word_embeddings, else the variant's default).
core::Result<ModelShape> FinishDecoder(const ConfigReader& config, ModelShape shape, const Variant& variant);

/// ReadDecoderBasics + FinishDecoder.
core::Result<ModelShape> BuildDecoder(const ConfigReader& config, ModelShape shape, const Variant& variant);

/// Applies a `layer_types` list when the config has one (each entry full_attention or
/// sliding_attention), else `rule`, to shape.layers. Errors name the field.
core::Status ApplyWindows(const ConfigReader& config, ModelShape& shape, WindowRule rule);

}  // namespace gpuprobe::model::families
