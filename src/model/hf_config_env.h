// The values a Hugging Face config.json stands for, the way transformers reads it: nested
// sub-configs flattened to dotted keys ("text_config.hidden_size"), every key the file leaves
// out filled with the default of its config class, aliases of a class's attribute_map resolved
// both ways (num_experts / num_local_experts), and keys whose default is computed from others
// (head_dim = hidden_size // num_attention_heads) derived. The class defaults, aliases and
// derivations are data generated from transformers itself (data/models/hf_config_defaults.json,
// tools/hf_oracle/FORMAT.md section 1); nothing here knows a model family.
//
// Thread safety: pure functions; HfDefaults is immutable after construction.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "model/hf_expression.h"

namespace gpuprobe::model {

/// The generated defaults (one entry per config class: tools/hf_oracle/FORMAT.md section 5)
/// and the structure data's null_derivations. The class entries are looked up through
/// `class_entry`, so the owner can parse each class's file only when a config needs it
/// (data/models/hf/defaults/<Class>.json); it returns nullptr for an unknown class. Shared
/// read-only; the lookup must be safe to call from one thread at a time.
struct HfDefaults {
  nlohmann::json model_types = nlohmann::json::object();  ///< model_type -> config class
  std::function<const nlohmann::json*(const std::string& config_class)> class_entry;
  nlohmann::json null_derivations = nlohmann::json::object();  ///< key -> expression, at every level
  std::string transformers_version;  ///< the version the data was generated from

  /// Defaults held in one parsed table ({"model_types": ..., "classes": ...}), for tests and
  /// tools; `table` must outlive the result.
  static HfDefaults FromTable(const nlohmann::json& table);
};

/// A config.json read as its values.
struct ConfigEnv {
  ConfigValues values;
  std::string model_type;            ///< the top level's model_type (or the alias resolved)
  std::string config_class;          ///< "LlamaConfig"; empty when the type is unknown
  /// Keys taken from class defaults because the file left them out (names only, dotted),
  /// limited to the ones that decide a shape (sizes, counts, tying, layer patterns).
  std::vector<std::string> defaulted;
  /// Sub-configs the file leaves out entirely, filled whole from their class defaults
  /// ("vision_config"): the weights they stand for are the class default tower's.
  std::vector<std::string> defaulted_subconfigs;
};

/// Builds the environment of `root` (a parsed config.json object). `model_type` is the type
/// whose class defaults apply at the top (the file's own, or the known type an alias resolved
/// to). Unknown types get no defaults (config_class stays empty). Never fails on a key it does
/// not understand; the caller's expressions fail instead where a key they need is missing.
ConfigEnv BuildConfigEnv(const nlohmann::json& root, const std::string& model_type, const HfDefaults& defaults);

/// The config class transformers uses for `model_type`, or empty.
std::string ConfigClassOf(const HfDefaults& defaults, const std::string& model_type);

}  // namespace gpuprobe::model
