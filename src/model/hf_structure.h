// Counting a model from its parameter template: every tensor a checkpoint of this model_type
// stores, as expressions over config.json (data/models/hf_structure/, generated from
// transformers by tools/hf_oracle/; the format is tools/hf_oracle/FORMAT.md section 4). The
// template was fitted on meta-device instantiations of the model class and validated on random
// configs it was not fitted on, so evaluating it for any config of the type gives what
// transformers would build: totals, towers (language model, vision, audio, projector), routed
// experts and active parameters, and what the KV cache keeps per layer.
//
// Thread safety: pure functions over immutable inputs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "model/hf_expression.h"

namespace gpuprobe::model {

/// One layer of the main decoder stack, counted by role.
struct StructureLayer {
  std::map<std::string, double> params_by_role;  ///< "attention", "mlp", "expert", "norm", ...
  double vector_params = 0;                       ///< 1-D parameters of its linear parts (biases, sinks)
  std::string kind;                               ///< the layer's kinds joined by '+' ("attention+moe")
};

struct StructureCount {
  double total_params = 0;                        ///< parameters, tied weights once (no buffers)
  double buffer_elements = 0;                     ///< persistent buffers the checkpoint also stores
  std::int64_t tensors = 0;                       ///< stored tensors (parameters and buffers)
  std::map<std::string, double> params_by_tower;  ///< language_model, vision, audio, projector, other
  std::map<std::string, double> params_by_role;   ///< every role of FORMAT.md
  std::map<std::string, double> language_by_role; ///< the same, language-model tower only
  /// MoE: routed experts per MoE layer and experts per token (0 when dense), the routed
  /// experts' parameters (all layers), and the active parameters per token.
  std::int64_t experts = 0;
  std::int64_t experts_per_token = 0;
  double routed_expert_params = 0;
  double active_params = 0;
  /// The language model's decoder stack (the container with the most entries), per layer.
  std::string stack_path;                         ///< "model.layers"
  std::vector<StructureLayer> stack;
  /// Config keys the template read (for saying which ones came from class defaults).
  std::vector<std::string> keys_read;
};

/// Evaluates `model_template` (one entry of hf_structure's "models") for `values`.
/// InvalidArgument naming the tensor or rule when an expression cannot be evaluated (a key
/// the template needs is missing), a layer-kind rule does not fit the config (a pattern
/// shorter than the layer count), or a count is absurd (over 1e15 parameters, 10^6 tensors
/// per container entry, 10^5 entries).
core::Result<StructureCount> CountStructure(const nlohmann::json& model_template, const ConfigValues& values);

/// What one layer's cache keeps, in elements (multiply by the cache dtype's bytes).
struct KvLayerShape {
  std::string kind;                 ///< full, sliding, chunked, cross, mla, state, none
  std::int64_t per_token = 0;       ///< K+V (or the MLA latent) per token of context
  std::int64_t hf_per_token = 0;    ///< MLA: what transformers' own cache stores per token
  std::int64_t window = 0;          ///< sliding / chunked: tokens kept (0: unbounded)
  std::int64_t state = 0;           ///< fixed state per sequence (SSM, linear attention)
  std::int64_t cross_per_token = 0; ///< cross-attention: per encoder position
  std::int64_t source_len = 0;      ///< encoder length when the config fixes it (whisper)
};

/// The cache layout of `kv_template` (a template's "kv") for `values`, one entry per cache
/// layer. InvalidArgument as for CountStructure.
core::Result<std::vector<KvLayerShape>> KvLayout(const nlohmann::json& kv_template, const ConfigValues& values);

/// The kind a layer-kind rule (FORMAT.md 'Layer-kind rules') gives layer `i` of `n`.
core::Result<std::string> LayerKind(const nlohmann::json& rule, std::int64_t i, std::int64_t n, const ConfigValues& values);

}  // namespace gpuprobe::model
