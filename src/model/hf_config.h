// Reads a Hugging Face config.json (its text; the caller reads the file) into a ModelShape,
// following docs/plan.md ('Parameter count', 'Config fields'): one recipe per family
// (model/families/), text_config descent with the vision tower counted when its config is
// complete, KV-head and head_dim fallbacks, tie defaults by model_type, quantization_config.
// An unknown model_type with a decoder's fields is planned as a generic decoder and says
// which fields it assumed; SupportedModelTypes() lists the rest.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "model/model_shape.h"

namespace gpuprobe::model {

/// The model_type values this reader has recipes for, in display order.
const std::vector<std::string>& SupportedModelTypes();

/// Parses config text. `label` names the source in messages (the file path). Errors:
/// ParseError for malformed or too deeply nested JSON; InvalidArgument naming the field for
/// missing, non-numeric, zero, negative or absurd values (any product past 1e15 parameters),
/// and naming the model_type when it is unknown and the config does not describe a decoder.
core::Result<ModelShape> ParseHfConfig(std::string_view json_text, const std::string& label);

struct HfKnowledge;

/// ParseHfConfig that counts every model type transformers knows from its generated structure
/// (model/hf_template_shape.h) before the recipes: a template the type's generator validated
/// as exact wins; a recipe comes next (remote-code models transformers does not ship); then an
/// approximate template; then the generic decoder. JSON is read as Python writes it (NaN,
/// Infinity). The shape's notes say which was used and what was assumed.
core::Result<ModelShape> ParseHfConfig(std::string_view json_text, const std::string& label, const HfKnowledge& knowledge);

/// Shape flags a user can give instead of (or on top of) a config.
struct ShapeFlags {
  std::optional<std::int64_t> layers, hidden, heads, kv_heads, vocab, intermediate;
};

/// A shape for a bare parameter count: the user's dimensions where given, the rest from the
/// nearest reference llama-style model (ModelShape::assumed_reference names it). The total stays
/// the user's figure. InvalidArgument for absurd counts or inconsistent dimensions.
core::Result<ModelShape> ShapeFromParameterCount(double params, const ShapeFlags& flags);

/// Checks limits on a shape (positive, consistent, not absurd). `label` prefixes messages.
core::Status ValidateShape(const ModelShape& shape, const std::string& label);

}  // namespace gpuprobe::model
