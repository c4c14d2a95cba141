#include "model/hf_config.h"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace gpuprobe::model {
namespace {

using core::Result;
using core::Status;
using nlohmann::json;

// Limits far beyond any real model, so a typo or a corrupted file is caught, not computed.
constexpr std::int64_t kMaxHidden = 1 << 20;
constexpr std::int64_t kMaxLayers = 100000;
constexpr std::int64_t kMaxHeads = 1 << 16;
constexpr std::int64_t kMaxVocab = 100000000;
constexpr std::int64_t kMaxIntermediate = 10000000;
constexpr std::int64_t kMaxExperts = 100000;
constexpr std::int64_t kMaxPositions = 100000000;
constexpr double kMaxParams = 1e15;

struct Reader {
  const json& object;
  const std::string& label;

  Status Error(const std::string& field, const std::string& what) const {
    return Status::InvalidArgument(fmt::format("{}: field '{}' {}", label, field, what));
  }

  bool Has(const char* field) const {
    auto it = object.find(field);
    return it != object.end() && !it->is_null();
  }

  // An integer field; absent/null gives nullopt. Floats must be integral.
  Result<std::optional<std::int64_t>> OptionalInt(const char* field, std::int64_t max) const {
    auto it = object.find(field);
    if (it == object.end() || it->is_null()) return std::optional<std::int64_t>();
    if (it->is_boolean() || !it->is_number()) {
      return Error(field, fmt::format("must be a number, got {}", it->dump().substr(0, 40)));
    }
    double value = it->get<double>();
    if (!std::isfinite(value) || value != std::floor(value)) {
      return Error(field, fmt::format("must be a whole number, got {}", it->dump()));
    }
    if (value <= 0) return Error(field, fmt::format("must be positive, got {}", it->dump()));
    if (value > static_cast<double>(max)) {
      return Error(field, fmt::format("is {}, beyond any real model (limit {})", it->dump(), max));
    }
    return std::optional<std::int64_t>(static_cast<std::int64_t>(value));
  }

  // The first present field of `fields`; InvalidArgument naming them all when none is.
  Result<std::int64_t> RequiredInt(std::initializer_list<const char*> fields, std::int64_t max) const {
    for (const char* field : fields) {
      auto value = OptionalInt(field, max);
      if (!value.ok()) return value.status();
      if (value->has_value()) return **value;
    }
    std::string names;
    for (const char* field : fields) names += (names.empty() ? "'" : " or '") + std::string(field) + "'";
    return Status::InvalidArgument(fmt::format("{}: required field {} is missing", label, names));
  }

  Result<std::optional<bool>> OptionalBool(const char* field) const {
    auto it = object.find(field);
    if (it == object.end() || it->is_null()) return std::optional<bool>();
    if (!it->is_boolean()) return Error(field, fmt::format("must be true or false, got {}", it->dump()));
    return std::optional<bool>(it->get<bool>());
  }

  std::string String(const char* field) const {
    auto it = object.find(field);
    if (it == object.end() || !it->is_string()) return {};
    return it->get<std::string>();
  }
};

enum class Recipe { kLlama, kGpt2, kBert };

struct FamilyInfo {
  const char* model_type;
  Recipe recipe;
  bool tie_default;
};

const FamilyInfo kFamilies[] = {
    {"llama", Recipe::kLlama, false},  {"mistral", Recipe::kLlama, false},
    {"qwen2", Recipe::kLlama, false},  {"qwen3", Recipe::kLlama, false},
    {"gemma", Recipe::kLlama, true},   {"gemma2", Recipe::kLlama, true},
    {"phi3", Recipe::kLlama, false},   {"mixtral", Recipe::kLlama, false},
    {"gpt2", Recipe::kGpt2, true},     {"bert", Recipe::kBert, true},
};

// Maps architecture class names to a model_type when the config lacks one.
std::string ModelTypeFromArchitecture(const std::string& architecture) {
  struct Entry { const char* prefix; const char* model_type; };
  static const Entry kEntries[] = {
      {"LlamaFor", "llama"}, {"MistralFor", "mistral"}, {"Qwen2For", "qwen2"},
      {"Qwen3For", "qwen3"}, {"GemmaFor", "gemma"},     {"Gemma2For", "gemma2"},
      {"Phi3For", "phi3"},   {"MixtralFor", "mixtral"}, {"GPT2", "gpt2"},
      {"BertFor", "bert"},   {"BertModel", "bert"},
  };
  for (const auto& e : kEntries) {
    if (architecture.rfind(e.prefix, 0) == 0) return e.model_type;
  }
  return {};
}

std::string SupportedList() {
  std::string out;
  for (const auto& t : SupportedModelTypes()) out += (out.empty() ? "" : ", ") + t;
  return out;
}

Result<ModelShape> ParseLlamaLike(const Reader& r, const FamilyInfo& family, ModelShape shape) {
  GPUPROBE_ASSIGN_OR_RETURN(shape.hidden_size, r.RequiredInt({"hidden_size"}, kMaxHidden));
  GPUPROBE_ASSIGN_OR_RETURN(shape.num_layers, r.RequiredInt({"num_hidden_layers", "num_layers"}, kMaxLayers));
  GPUPROBE_ASSIGN_OR_RETURN(shape.num_heads, r.RequiredInt({"num_attention_heads", "num_heads"}, kMaxHeads));
  GPUPROBE_ASSIGN_OR_RETURN(shape.vocab_size, r.RequiredInt({"vocab_size"}, kMaxVocab));
  GPUPROBE_ASSIGN_OR_RETURN(shape.intermediate_size, r.RequiredInt({"intermediate_size"}, kMaxIntermediate));

  // KV heads: vLLM's fallback order; a missing or null value means no GQA (k = a).
  std::optional<std::int64_t> kv;
  for (const char* field : {"num_key_value_heads", "n_head_kv", "num_kv_heads", "multi_query_group_num"}) {
    GPUPROBE_ASSIGN_OR_RETURN(kv, r.OptionalInt(field, kMaxHeads));
    if (kv) break;
  }
  shape.num_kv_heads = kv.value_or(shape.num_heads);

  std::optional<std::int64_t> head_dim;
  GPUPROBE_ASSIGN_OR_RETURN(head_dim, r.OptionalInt("head_dim", kMaxHidden));
  if (!head_dim) {
    if (shape.hidden_size % shape.num_heads != 0) {
      return r.Error("num_attention_heads",
                     fmt::format("({}) does not divide hidden_size ({}) and no head_dim is given",
                                 shape.num_heads, shape.hidden_size));
    }
    head_dim = shape.hidden_size / shape.num_heads;
  }
  shape.head_dim = *head_dim;

  const std::string type = family.model_type;
  shape.gated_mlp = true;
  shape.norm = NormKind::kRms;
  shape.norms_per_layer = type == "gemma2" ? 4 : 2;
  shape.qk_norm = type == "qwen3";

  std::optional<bool> attention_bias, mlp_bias;
  GPUPROBE_ASSIGN_OR_RETURN(attention_bias, r.OptionalBool("attention_bias"));
  GPUPROBE_ASSIGN_OR_RETURN(mlp_bias, r.OptionalBool("mlp_bias"));
  if (type == "qwen2") {
    // Qwen2 has q/k/v biases by architecture (not in the config) and no o bias.
    shape.qkv_bias = true;
    shape.o_bias = false;
  } else {
    // Llama's attention_bias covers q, k, v and o alike.
    shape.qkv_bias = attention_bias.value_or(false);
    shape.o_bias = attention_bias.value_or(false);
  }
  shape.mlp_bias = mlp_bias.value_or(false);

  // MoE: Mixtral's num_local_experts (also accepted on llama-style configs).
  std::optional<std::int64_t> experts, per_token;
  GPUPROBE_ASSIGN_OR_RETURN(experts, r.OptionalInt("num_local_experts", kMaxExperts));
  if (type == "mixtral" && !experts) {
    return Status::InvalidArgument(fmt::format("{}: required field 'num_local_experts' is missing (mixtral is a mixture of experts)", r.label));
  }
  if (experts) {
    GPUPROBE_ASSIGN_OR_RETURN(per_token, r.OptionalInt("num_experts_per_tok", kMaxExperts));
    if (!per_token) {
      return Status::InvalidArgument(fmt::format("{}: required field 'num_experts_per_tok' is missing (needed with num_local_experts)", r.label));
    }
    if (*per_token > *experts) {
      return r.Error("num_experts_per_tok", fmt::format("({}) is larger than num_local_experts ({})", *per_token, *experts));
    }
    shape.num_experts = *experts;
    shape.experts_per_token = *per_token;
  }

  std::optional<std::int64_t> window, positions;
  GPUPROBE_ASSIGN_OR_RETURN(window, r.OptionalInt("sliding_window", kMaxPositions));
  std::optional<bool> use_window;
  GPUPROBE_ASSIGN_OR_RETURN(use_window, r.OptionalBool("use_sliding_window"));
  if (window && use_window.value_or(true)) shape.sliding_window = *window;
  GPUPROBE_ASSIGN_OR_RETURN(positions, r.OptionalInt("max_position_embeddings", kMaxPositions));
  shape.max_position_embeddings = positions.value_or(0);

  std::optional<bool> tied;
  GPUPROBE_ASSIGN_OR_RETURN(tied, r.OptionalBool("tie_word_embeddings"));
  shape.tied_embeddings = tied.value_or(family.tie_default);
  return shape;
}

Result<ModelShape> ParseGpt2(const Reader& r, ModelShape shape) {
  GPUPROBE_ASSIGN_OR_RETURN(shape.hidden_size, r.RequiredInt({"n_embd", "hidden_size"}, kMaxHidden));
  GPUPROBE_ASSIGN_OR_RETURN(shape.num_layers, r.RequiredInt({"n_layer", "num_hidden_layers"}, kMaxLayers));
  GPUPROBE_ASSIGN_OR_RETURN(shape.num_heads, r.RequiredInt({"n_head", "num_attention_heads"}, kMaxHeads));
  GPUPROBE_ASSIGN_OR_RETURN(shape.vocab_size, r.RequiredInt({"vocab_size"}, kMaxVocab));
  GPUPROBE_ASSIGN_OR_RETURN(shape.learned_positions, r.RequiredInt({"n_positions", "n_ctx"}, kMaxPositions));
  std::optional<std::int64_t> inner;
  GPUPROBE_ASSIGN_OR_RETURN(inner, r.OptionalInt("n_inner", kMaxIntermediate));
  shape.intermediate_size = inner.value_or(4 * shape.hidden_size);  // n_inner null means 4h
  if (shape.hidden_size % shape.num_heads != 0) {
    return r.Error("n_head", fmt::format("({}) does not divide n_embd ({})", shape.num_heads, shape.hidden_size));
  }
  shape.num_kv_heads = shape.num_heads;
  shape.head_dim = shape.hidden_size / shape.num_heads;
  shape.gated_mlp = false;
  shape.norm = NormKind::kLayer;
  shape.norms_per_layer = 2;
  shape.qkv_bias = shape.o_bias = shape.mlp_bias = true;
  std::optional<bool> tied;
  GPUPROBE_ASSIGN_OR_RETURN(tied, r.OptionalBool("tie_word_embeddings"));
  shape.tied_embeddings = tied.value_or(true);
  shape.max_position_embeddings = shape.learned_positions;
  return shape;
}

Result<ModelShape> ParseBert(const Reader& r, ModelShape shape) {
  GPUPROBE_ASSIGN_OR_RETURN(shape.hidden_size, r.RequiredInt({"hidden_size"}, kMaxHidden));
  GPUPROBE_ASSIGN_OR_RETURN(shape.num_layers, r.RequiredInt({"num_hidden_layers"}, kMaxLayers));
  GPUPROBE_ASSIGN_OR_RETURN(shape.num_heads, r.RequiredInt({"num_attention_heads"}, kMaxHeads));
  GPUPROBE_ASSIGN_OR_RETURN(shape.vocab_size, r.RequiredInt({"vocab_size"}, kMaxVocab));
  GPUPROBE_ASSIGN_OR_RETURN(shape.intermediate_size, r.RequiredInt({"intermediate_size"}, kMaxIntermediate));
  GPUPROBE_ASSIGN_OR_RETURN(shape.learned_positions, r.RequiredInt({"max_position_embeddings"}, kMaxPositions));
  std::optional<std::int64_t> types;
  GPUPROBE_ASSIGN_OR_RETURN(types, r.OptionalInt("type_vocab_size", kMaxVocab));
  shape.token_type_vocab = types.value_or(2);
  if (shape.hidden_size % shape.num_heads != 0) {
    return r.Error("num_attention_heads", fmt::format("({}) does not divide hidden_size ({})", shape.num_heads, shape.hidden_size));
  }
  shape.num_kv_heads = shape.num_heads;
  shape.head_dim = shape.hidden_size / shape.num_heads;
  shape.gated_mlp = false;
  shape.norm = NormKind::kLayer;
  shape.norms_per_layer = 2;
  shape.qkv_bias = shape.o_bias = shape.mlp_bias = true;
  shape.embedding_norm = true;
  shape.final_norm = false;     // BERT normalises inside each layer only
  shape.has_lm_head = false;    // counted as BertModel: encoder + pooler, no MLM head
  shape.pooler = true;
  shape.max_position_embeddings = shape.learned_positions;
  return shape;
}

}  // namespace

const std::vector<std::string>& SupportedModelTypes() {
  static const std::vector<std::string> kTypes = [] {
    std::vector<std::string> types;
    for (const auto& f : kFamilies) types.push_back(f.model_type);
    return types;
  }();
  return kTypes;
}

Result<ModelShape> ParseHfConfig(std::string_view json_text, const std::string& label) {
  json root = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    return Status::ParseError(fmt::format("{}: not valid JSON (truncated or corrupted?)", label),
                              "a Hugging Face config.json is a JSON object");
  }
  if (!root.is_object()) {
    return Status::ParseError(fmt::format("{}: expected a JSON object, got {}", label, root.type_name()));
  }
  // Multimodal configs (llava, mllama, gemma3, mistral3) nest the decoder in text_config.
  const json* config = &root;
  std::string architecture;
  if (root.contains("architectures") && root["architectures"].is_array() && !root["architectures"].empty() &&
      root["architectures"][0].is_string()) {
    architecture = root["architectures"][0].get<std::string>();
  }
  if (root.contains("text_config") && root["text_config"].is_object()) config = &root["text_config"];

  Reader r{*config, label};
  std::string model_type = r.String("model_type");
  if (model_type.empty() && config != &root && root.contains("model_type") && root["model_type"].is_string()) {
    model_type = root["model_type"].get<std::string>();
  }
  if (model_type.empty()) model_type = ModelTypeFromArchitecture(architecture);

  const FamilyInfo* family = nullptr;
  for (const auto& f : kFamilies) {
    if (model_type == f.model_type) family = &f;
  }
  if (family == nullptr) {
    std::string what = model_type.empty() ? "no 'model_type' or known 'architectures' entry"
                                          : fmt::format("model_type '{}'", model_type);
    if (!architecture.empty()) what += fmt::format(" (architecture '{}')", architecture);
    return Status::InvalidArgument(
        fmt::format("{}: {} is not supported. Supported model types: {}", label, what, SupportedList()),
        "plan it by size instead: gpuprobe plan --params 7B --layers 32 --hidden 4096 --heads 32 --kv-heads 8");
  }

  ModelShape shape;
  shape.architecture = architecture;
  shape.family = family->model_type;
  shape.torch_dtype = r.String("torch_dtype");
  if (shape.torch_dtype.empty()) shape.torch_dtype = r.String("dtype");
  if (shape.torch_dtype.empty() && config != &root && root.contains("torch_dtype") && root["torch_dtype"].is_string()) {
    shape.torch_dtype = root["torch_dtype"].get<std::string>();
  }

  Result<ModelShape> parsed = Status::Internal("no recipe");
  switch (family->recipe) {
    case Recipe::kLlama: parsed = ParseLlamaLike(r, *family, shape); break;
    case Recipe::kGpt2: parsed = ParseGpt2(r, shape); break;
    case Recipe::kBert: parsed = ParseBert(r, shape); break;
  }
  if (!parsed.ok()) return parsed;
  GPUPROBE_RETURN_IF_ERROR(ValidateShape(*parsed, label));
  return parsed;
}

core::Status ValidateShape(const ModelShape& s, const std::string& label) {
  auto positive = [&](std::int64_t value, const char* name, std::int64_t max) -> Status {
    if (value <= 0) return Status::InvalidArgument(fmt::format("{}: {} must be positive, got {}", label, name, value));
    if (value > max) {
      return Status::InvalidArgument(fmt::format("{}: {} is {}, beyond any real model (limit {})", label, name, value, max));
    }
    return Status::Ok();
  };
  GPUPROBE_RETURN_IF_ERROR(positive(s.hidden_size, "hidden size", kMaxHidden));
  GPUPROBE_RETURN_IF_ERROR(positive(s.num_layers, "number of layers", kMaxLayers));
  GPUPROBE_RETURN_IF_ERROR(positive(s.num_heads, "number of attention heads", kMaxHeads));
  GPUPROBE_RETURN_IF_ERROR(positive(s.num_kv_heads, "number of KV heads", kMaxHeads));
  GPUPROBE_RETURN_IF_ERROR(positive(s.head_dim, "head dimension", kMaxHidden));
  GPUPROBE_RETURN_IF_ERROR(positive(s.vocab_size, "vocabulary size", kMaxVocab));
  if (s.params_override <= 0) {
    GPUPROBE_RETURN_IF_ERROR(positive(s.intermediate_size, "intermediate size", kMaxIntermediate));
  }
  if (s.num_kv_heads > s.num_heads || s.num_heads % s.num_kv_heads != 0) {
    return Status::InvalidArgument(fmt::format(
        "{}: {} KV heads cannot serve {} attention heads (query heads must be a multiple of KV heads)",
        label, s.num_kv_heads, s.num_heads));
  }
  // Estimate in floating point first so an absurd shape cannot overflow the exact count.
  double h = static_cast<double>(s.hidden_size), L = static_cast<double>(s.num_layers);
  double f = static_cast<double>(std::max<std::int64_t>(s.intermediate_size, 1));
  double E = static_cast<double>(std::max<std::int64_t>(s.num_experts, 1));
  double ad = static_cast<double>(s.num_heads) * static_cast<double>(s.head_dim);
  double estimate = L * (4.0 * h * ad + 3.0 * h * f * E) + 2.0 * static_cast<double>(s.vocab_size) * h;
  if (estimate > kMaxParams) {
    return Status::InvalidArgument(fmt::format(
        "{}: these dimensions describe about {:.3g} parameters, beyond any real model (limit {:.0e})", label,
        estimate, kMaxParams));
  }
  return Status::Ok();
}

Result<ModelShape> ShapeFromParameterCount(double params, const ShapeFlags& flags) {
  if (!std::isfinite(params) || params < 1e6) {
    return Status::InvalidArgument(fmt::format("--params {:.3g} is too small for a transformer (at least 1M)", params));
  }
  if (params > kMaxParams) {
    return Status::InvalidArgument(fmt::format("--params {:.3g} is beyond any real model (limit {:.0e})", params, kMaxParams));
  }
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
    return Status::InvalidArgument(fmt::format("--heads {} does not divide --hidden {}", shape.num_heads, shape.hidden_size));
  }
  shape.head_dim = shape.hidden_size / shape.num_heads;
  bool all_given = flags.layers && flags.hidden && flags.heads;
  if (!all_given) {
    shape.assumed_note = fmt::format(
        "shape not given: assumed a {}-like layout ({} layers, hidden {}, {} heads, {} KV heads, vocab {}); "
        "pass --layers --hidden --heads --kv-heads --vocab for your model's exact KV cache",
        best->name, shape.num_layers, shape.hidden_size, shape.num_heads, shape.num_kv_heads, shape.vocab_size);
  }
  GPUPROBE_RETURN_IF_ERROR(ValidateShape(shape, "--params"));
  return shape;
}

}  // namespace gpuprobe::model
