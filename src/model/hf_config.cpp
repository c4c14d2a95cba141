#include "model/hf_config.h"
#include "model/quantity.h"

#include <cmath>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/spelling.h"
#include "model/config_reader.h"
#include "model/families/recipes.h"
#include "model/hf_template_shape.h"
#include "model/quantization.h"

namespace gpuprobe::model {
namespace {

using core::Result;
using core::Status;
using nlohmann::json;

std::string SupportedList() {
  std::string out;
  for (const auto& t : SupportedModelTypes()) out += (out.empty() ? "" : ", ") + t;
  return out;
}

std::string StringAt(const json& object, const char* field) {
  auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Counts the vision tower of a multimodal config when its config states it fully; otherwise
// notes that it is not counted (the plan then covers the decoder only).
Status AddVisionTower(const json& root, const std::string& label, ModelShape& shape) {
  auto it = root.find("vision_config");
  if (it == root.end() || it->is_null()) return Status::Ok();
  if (!it->is_object()) return ConfigReader(root, label).Problem("vision_config", "not_object", "must be an object", {{"value", it->type_name()}});
  ConfigReader vision(*it, label, "vision_config.");
  auto params = families::VisionTowerParams(vision, StringAt(root, "model_type"), shape.hidden_size);
  if (params.ok()) {
    shape.vision_params = *params;
    shape.notes.push_back({"vision_counted", fmt::format("{:.0f}", *params)});
    return Status::Ok();
  }
  if (params.status().code() != core::StatusCode::kUnavailable) return params.status();
  shape.notes.push_back({"vision_not_counted", params.status().message()});
  return Status::Ok();
}

}  // namespace

const std::vector<std::string>& SupportedModelTypes() {
  static const std::vector<std::string> kTypes = [] {
    std::vector<std::string> types;
    for (const auto& f : families::FamilyTable()) types.push_back(f.model_type);
    return types;
  }();
  return kTypes;
}

namespace {

Result<json> ParseRoot(std::string_view json_text, const std::string& label) {
  auto parsed = ParseConfigJson(json_text, label);
  if (!parsed.ok()) {
    // The JSON reader's own keyed message (syntax, depth, number range), with this hint.
    return Status::ParseError(parsed.status().message(), "a Hugging Face config.json is a JSON object")
        .WithKeys(parsed.status().message_key(), parsed.status().message_args(),
                  parsed.status().message_key().empty() ? "" : "error.hf.json_object.hint");
  }
  if (!parsed->is_object()) {
    return Status::ParseError(fmt::format("{}: expected a JSON object, got {}", label, parsed->type_name()))
        .WithKeys("error.hf.not_object", {{"file", label}, {"type", parsed->type_name()}}, "error.hf.json_object.hint");
  }
  return parsed;
}

// The quantisation and the checks every reader's shape goes through.
Result<ModelShape> Finish(const json& root, const std::string& label, ModelShape shape) {
  // quantization_config sits at the top level (also for multimodal configs).
  auto quant = ParseQuantizationConfig(root, label);
  if (!quant.ok()) return quant.status();
  shape.quant = *quant;
  GPUPROBE_RETURN_IF_ERROR(ValidateShape(shape, label));
  return shape;
}

// The recipes of model/families/, then the generic decoder.
Result<ModelShape> RecipeShape(const json& root, const std::string& label) {
  std::string architecture;
  auto arch = root.find("architectures");
  if (arch != root.end() && arch->is_array() && !arch->empty() && (*arch)[0].is_string()) {
    architecture = (*arch)[0].get<std::string>();
  }
  // Multimodal configs (llava, mllama, gemma3, mistral3) nest the decoder in text_config.
  const json* config = &root;
  std::string prefix;
  auto text = root.find("text_config");
  if (text != root.end() && !text->is_null()) {
    if (!text->is_object()) return ConfigReader(root, label).Problem("text_config", "not_object", "must be an object", {{"value", text->type_name()}});
    config = &*text;
    prefix = "text_config.";
  }
  ConfigReader r(*config, label, prefix);
  std::string model_type = r.String("model_type");
  if (model_type.empty()) model_type = StringAt(root, "model_type");
  if (model_type.empty()) model_type = families::ModelTypeFromArchitecture(architecture);

  ModelShape shape;
  shape.architecture = architecture;
  shape.model_type = model_type;
  shape.torch_dtype = r.String("torch_dtype");
  if (shape.torch_dtype.empty()) shape.torch_dtype = r.String("dtype");
  if (shape.torch_dtype.empty()) shape.torch_dtype = StringAt(root, "torch_dtype");
  if (shape.torch_dtype.empty()) shape.torch_dtype = StringAt(root, "dtype");

  const families::FamilyEntry* family = families::FindFamily(model_type);
  Result<ModelShape> result = Status::Internal("no recipe");
  if (family != nullptr) {
    shape.family = family->family;
    result = family->recipe(r, shape);
  } else {
    // An unknown model_type is planned as a generic decoder when its config names the
    // decoder's dimensions; otherwise it is refused with the supported list.
    shape.family = "generic";
    result = families::GenericDecoder(r, shape);
    if (!result.ok()) {
      std::string what = model_type.empty() ? "no 'model_type' or known 'architectures' entry"
                                            : fmt::format("model_type '{}'", model_type);
      if (!architecture.empty()) what += fmt::format(" (architecture '{}')", architecture);
      std::string suggestion;
      if (!model_type.empty()) {
        auto close = core::ClosestMatches(model_type, SupportedModelTypes());
        if (!close.empty()) suggestion = fmt::format(" Did you mean '{}'?", close.front());
      }
      const char* what_key = model_type.empty() ? (architecture.empty() ? "hf.what.no_type" : "hf.what.no_type_arch")
                                                : (architecture.empty() ? "hf.what.type" : "hf.what.type_arch");
      auto close = model_type.empty() ? std::vector<std::string>{} : core::ClosestMatches(model_type, SupportedModelTypes());
      return Status::InvalidArgument(
                 fmt::format("{}: {} is not supported, and the config does not describe a decoder ({}).{} Supported model "
                             "types: {}", label, what, result.status().message(), suggestion, SupportedList()),
                 "plan it by size instead: gpuprobe plan --params 7B --layers 32 --hidden 4096 --heads 32 --kv-heads 8")
          .WithKeys("error.hf.unsupported",
                    {{"file", label}, {"what_key", what_key}, {"model_type", model_type}, {"architecture", architecture},
                     {"why", result.status().message()}, {"suggestion_key", close.empty() ? "hf.suggest.none" : "hf.suggest.one"},
                     {"close", close.empty() ? "" : close.front()}, {"list", SupportedList()}},
                    "error.hf.unsupported.hint");
    }
  }
  if (!result.ok()) return result;
  if (config != &root) GPUPROBE_RETURN_IF_ERROR(AddVisionTower(root, label, *result));
  return Finish(root, label, std::move(*result));
}

// A recipe's refusal that is about a value the file gives, not a field it leaves out or a type
// the recipes do not know (the recipes' own messages: config_reader.h, families/).
bool IsBadValue(const Status& status) {
  if (status.code() != core::StatusCode::kInvalidArgument) return false;
  const std::string& m = status.message();
  return m.find("required field") == std::string::npos && m.find("is not supported") == std::string::npos &&
         m.find("does not describe") == std::string::npos && m.find("belongs to a layer structure") == std::string::npos;
}

bool HasRecipe(const json& root) {
  std::string type = StringAt(root, "model_type");
  auto text = root.find("text_config");
  if (text != root.end() && text->is_object() && !StringAt(*text, "model_type").empty()) type = StringAt(*text, "model_type");
  if (families::FindFamily(type) != nullptr) return true;
  auto arch = root.find("architectures");
  if (type.empty() && arch != root.end() && arch->is_array() && !arch->empty() && (*arch)[0].is_string()) {
    return families::FindFamily(families::ModelTypeFromArchitecture((*arch)[0].get<std::string>())) != nullptr;
  }
  return false;
}

}  // namespace

Result<ModelShape> ParseHfConfig(std::string_view json_text, const std::string& label) {
  json root;
  GPUPROBE_ASSIGN_OR_RETURN(root, ParseRoot(json_text, label));
  return RecipeShape(root, label);
}

Result<ModelShape> ParseHfConfig(std::string_view json_text, const std::string& label, const HfKnowledge& knowledge) {
  json root;
  GPUPROBE_ASSIGN_OR_RETURN(root, ParseRoot(json_text, label));
  std::string type, alias;
  const json* tpl = FindTemplate(knowledge, root, &type, &alias);
  bool exact = tpl != nullptr && StringAt(*tpl, "status") == "exact";
  // A value the file states that the recipe of its family refuses (a string where a number
  // goes, a negative size, KV heads that do not divide the heads, a layer list of the wrong
  // length or kind, top-k above the experts) is the file's error, named as the recipe names it,
  // whatever the structure would make of it. A field the file leaves out is not: transformers
  // takes the class default, and so does the structure below.
  std::optional<Result<ModelShape>> recipe;
  if (HasRecipe(root)) {
    recipe = RecipeShape(root, label);
    if (!recipe->ok() && IsBadValue(recipe->status())) return recipe->status();
  }
  Status template_error;
  if (exact || (tpl != nullptr && !HasRecipe(root))) {
    auto shape = ShapeFromTemplate(root, type, alias, *tpl, knowledge, label);
    if (shape.ok()) {
      // transformers builds the served model without the multi-token-prediction layers a
      // checkpoint stores (DeepSeek-V3's layer 61); the recipe knows their size.
      if (recipe && recipe->ok() && (*recipe)->mtp_params > 0 && shape->mtp_params == 0) {
        shape->mtp_params = (*recipe)->mtp_params;
        for (const auto& note : (*recipe)->notes) {
          if (note.id == "mtp_stored") shape->notes.push_back(note);
        }
      }
      return Finish(root, label, std::move(*shape));
    }
    template_error = shape.status();
  }
  if (!recipe) recipe = RecipeShape(root, label);
  if (recipe->ok() && !template_error.ok()) {
    // The structure could not be evaluated for this file; the recipe's count is said to be one.
    (*recipe)->notes.push_back({"structure_failed", template_error.message()});
  }
  if (!recipe->ok() && !template_error.ok()) return template_error;
  return std::move(*recipe);
}

core::Status ValidateShape(const ModelShape& s, const std::string& label) {
  // `what` is the dimension's text key (shape.what.*): the same words in en and zh.
  auto positive = [&](std::int64_t value, const char* name, const char* what, std::int64_t max) -> Status {
    core::MessageArgs args = {{"file", label}, {"what_key", what}, {"value", std::to_string(value)}, {"max", std::to_string(max)}};
    if (value <= 0) {
      return Status::InvalidArgument(fmt::format("{}: {} must be positive, got {}", label, name, value))
          .WithKeys("error.shape.not_positive", std::move(args));
    }
    if (value > max) {
      return Status::InvalidArgument(fmt::format("{}: {} is {}, beyond any real model (limit {})", label, name, value, max))
          .WithKeys("error.shape.beyond", std::move(args));
    }
    return Status::Ok();
  };
  GPUPROBE_RETURN_IF_ERROR(positive(s.hidden_size, "hidden size", "shape.what.hidden", kMaxHidden));
  GPUPROBE_RETURN_IF_ERROR(positive(s.num_layers, "number of layers", "shape.what.layers", kMaxLayers));
  GPUPROBE_RETURN_IF_ERROR(positive(s.num_heads, "number of attention heads", "shape.what.heads", kMaxHeads));
  GPUPROBE_RETURN_IF_ERROR(positive(s.num_kv_heads, "number of KV heads", "shape.what.kv_heads", kMaxHeads));
  GPUPROBE_RETURN_IF_ERROR(positive(s.head_dim, "head dimension", "shape.what.head_dim", kMaxHidden));
  GPUPROBE_RETURN_IF_ERROR(positive(s.vocab_size, "vocabulary size", "shape.what.vocab", kMaxVocab));
  if (s.params_override <= 0) {
    GPUPROBE_RETURN_IF_ERROR(positive(s.intermediate_size, "intermediate size", "shape.what.intermediate", kMaxIntermediate));
  }
  if (s.num_kv_heads > s.num_heads || s.num_heads % s.num_kv_heads != 0) {
    return Status::InvalidArgument(fmt::format(
                                       "{}: {} KV heads cannot serve {} attention heads (query heads must be a multiple of KV heads)",
                                       label, s.num_kv_heads, s.num_heads))
        .WithKeys("error.shape.kv_heads",
                  {{"file", label}, {"kv", std::to_string(s.num_kv_heads)}, {"heads", std::to_string(s.num_heads)}});
  }
  // Sum in floating point first so an absurd shape cannot overflow the exact count: below
  // 1e15 every figure is an integer that double holds exactly (docs/plan.md, 'Limits').
  double estimate = 0;
  if (s.layers.empty()) {
    double h = static_cast<double>(s.hidden_size), L = static_cast<double>(s.num_layers);
    double f = static_cast<double>(std::max<std::int64_t>(s.intermediate_size, 1));
    double E = static_cast<double>(std::max<std::int64_t>(s.num_experts, 1));
    double ad = static_cast<double>(s.num_heads) * static_cast<double>(s.head_dim);
    estimate = L * (4.0 * h * ad + 3.0 * h * f * E) + 2.0 * static_cast<double>(s.vocab_size) * h;
  } else {
    estimate = s.embedding_params + s.final_norm_params + s.lm_head_params + s.pooler_params + s.mtp_params +
               s.vision_params + s.audio_params + s.other_params;
    for (const LayerShape& l : s.layers) {
      estimate += l.mixer_params + l.norm_params + l.dense_mlp_params + l.shared_expert_params + l.router_params +
                  static_cast<double>(l.experts) * l.expert_params + l.KvElementsPerToken() + l.ssm_state_elements;
    }
  }
  if (!std::isfinite(estimate) || estimate > kMaxParams) {
    return Status::InvalidArgument(fmt::format(
        "{}: these dimensions describe about {:.3g} parameters, beyond any real model (limit {:.0e}): hidden_size {} x "
        "num_hidden_layers {} x intermediate_size {} x experts {}, vocab_size {}", label, estimate, kMaxParams,
        s.hidden_size, s.num_layers, s.intermediate_size, std::max<std::int64_t>(s.num_experts, 1), s.vocab_size))
        .WithKeys("error.shape.too_many_params",
                  {{"file", label}, {"estimate", fmt::format("{:.3g}", estimate)}, {"limit", fmt::format("{:.0e}", kMaxParams)},
                   {"hidden", std::to_string(s.hidden_size)}, {"layers", std::to_string(s.num_layers)},
                   {"intermediate", std::to_string(s.intermediate_size)},
                   {"experts", std::to_string(std::max<std::int64_t>(s.num_experts, 1))}, {"vocab", std::to_string(s.vocab_size)}});
  }
  return Status::Ok();
}

Result<ModelShape> ShapeFromParameterCount(double params, const ShapeFlags& flags) {
  GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kParams, params, "--params"));
  struct Reference {
    const char* name;
    double params;
    std::int64_t layers, hidden, heads, kv_heads, intermediate, vocab;
    bool tied;
  };
  // Llama-family shapes by size: the commonest layouts of open models of each size.
  static const Reference kReferences[] = {
      {"Llama-3.2-1B", 1.24e9, 16, 2048, 32, 8, 8192, 128256, true},
      {"Llama-3.2-3B", 3.21e9, 28, 3072, 24, 8, 8192, 128256, true},
      {"Llama-2-7B", 6.74e9, 32, 4096, 32, 32, 11008, 32000, false},
      {"Llama-3-8B", 8.03e9, 32, 4096, 32, 8, 14336, 128256, false},
      {"Llama-2-13B", 13.0e9, 40, 5120, 40, 40, 13824, 32000, false},
      {"CodeLlama-34B", 33.7e9, 48, 8192, 64, 8, 22016, 32000, false},
      {"Llama-2-70B", 69.0e9, 80, 8192, 64, 8, 28672, 32000, false},
      {"Llama-3.1-405B", 406e9, 126, 16384, 128, 8, 53248, 128256, false},
  };
  const Reference* best = &kReferences[0];
  for (const auto& ref : kReferences) {
    if (std::fabs(std::log(ref.params / params)) < std::fabs(std::log(best->params / params))) best = &ref;
  }
  ModelShape shape;
  shape.family = "llama";
  shape.num_layers = flags.layers.value_or(best->layers);
  shape.hidden_size = flags.hidden.value_or(best->hidden);
  shape.num_heads = flags.heads.value_or(flags.hidden ? std::max<std::int64_t>(1, *flags.hidden / 128) : best->heads);
  shape.num_kv_heads = flags.kv_heads.value_or(flags.heads || flags.hidden ? shape.num_heads : best->kv_heads);
  shape.vocab_size = flags.vocab.value_or(best->vocab);
  shape.intermediate_size = flags.intermediate.value_or(best->intermediate);
  shape.tied_embeddings = best->tied;
  shape.params_override = params;
  if (shape.num_heads <= 0 || shape.hidden_size % shape.num_heads != 0) {
    return Status::InvalidArgument(fmt::format("--heads {} does not divide --hidden {}", shape.num_heads, shape.hidden_size))
        .WithKeys("error.shape.heads_divide", {{"heads", std::to_string(shape.num_heads)}, {"hidden", std::to_string(shape.hidden_size)}});
  }
  shape.head_dim = shape.hidden_size / shape.num_heads;
  bool all_given = flags.layers && flags.hidden && flags.heads;
  if (!all_given) {
    shape.assumed_reference = best->name;
  }
  GPUPROBE_RETURN_IF_ERROR(ValidateShape(shape, "--params"));
  return shape;
}

}  // namespace gpuprobe::model
