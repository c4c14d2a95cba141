// A ModelShape from transformers' own structure: the config.json is read as transformers
// reads it (hf_config_env.h), the model_type's parameter template (hf_structure.h) is
// evaluated tensor by tensor, and the cache template gives each layer's KV. This is how
// `plan` counts every model type transformers knows, without a recipe per family; the
// recipes of model/families/ remain for remote-code models transformers does not ship.
//
// Thread safety: pure functions; HfKnowledge is immutable after construction.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "model/hf_config_env.h"
#include "model/model_shape.h"

namespace gpuprobe::model {

/// The knowledge generated from transformers (data/models/hf/): parameter and cache templates
/// per model_type, the config classes' defaults, and the version it came from. Templates are
/// fetched through `model_template` so the owner parses only the one a config needs.
struct HfKnowledge {
  /// model_type -> {"class": "LlamaForCausalLM", "status": "exact"}: every generated type.
  nlohmann::json templates = nlohmann::json::object();
  /// The template of a model_type (FORMAT.md section 4), or nullptr.
  std::function<const nlohmann::json*(const std::string& model_type)> model_template;
  HfDefaults defaults;         ///< class defaults + the structure's null_derivations
  std::string transformers_version;
  /// Model class name -> model_type ("DeepseekV3ForCausalLM" -> "deepseek_v3"), for configs
  /// whose model_type transformers does not know (kimi_k2).
  std::map<std::string, std::string> class_to_type;

  /// Knowledge over two whole parsed files (hf_structure.json and hf_config_defaults.json as
  /// the generator writes them), for tests and tools; both must outlive the result.
  /// ParseError when either is not the generated format.
  static core::Result<HfKnowledge> FromJson(const nlohmann::json& structure, const nlohmann::json& defaults);
  /// Knowledge over the split form (data/models/hf/index.json and one file per template and
  /// per class, read through the two loaders). ParseError when the index is not the format.
  static core::Result<HfKnowledge> FromIndex(
      const nlohmann::json& index, std::function<const nlohmann::json*(const std::string&)> template_loader,
      std::function<const nlohmann::json*(const std::string&)> class_loader);
};

/// The template entry for a config: its own model_type when transformers knows it, else the
/// type whose model class the config's `architectures` names. `alias_of` is set to the
/// config's own model_type when an alias was used. nullptr when neither is known.
const nlohmann::json* FindTemplate(const HfKnowledge& knowledge, const nlohmann::json& root, std::string* model_type,
                                   std::string* alias_of);

/// The shape of `root` from `tpl` (an entry of knowledge.models for `model_type`). Fills
/// every parameter field so CountParameters(shape).total equals transformers' count, the
/// per-layer KV from the cache template, the summary fields from the language model's config
/// level, and notes: "structure_exact" / "structure_approximate" (with the reasons), the keys
/// taken from class defaults ("class_defaults"), towers left out of the file and taken whole
/// from their defaults ("tower_defaulted"), an alias ("model_type_alias"), a cache that is not
/// known and assumed ("kv_assumed"). InvalidArgument naming the file and the key when the
/// template cannot be evaluated for this config.
core::Result<ModelShape> ShapeFromTemplate(const nlohmann::json& root, const std::string& model_type,
                                           const std::string& alias_of, const nlohmann::json& tpl,
                                           const HfKnowledge& knowledge, const std::string& label);

}  // namespace gpuprobe::model
