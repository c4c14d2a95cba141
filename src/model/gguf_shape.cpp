#include "model/gguf_shape.h"

#include <fmt/format.h>

#include "model/hf_config.h"

namespace gpuprobe::model {

using core::Result;
using core::Status;
using nlohmann::json;

namespace {

// llama.cpp architecture names whose config model_type differs (llama-arch.cpp LLM_ARCH_NAMES).
std::string ModelTypeForArch(const std::string& arch) {
  static const std::pair<const char*, const char*> kRenames[] = {
      {"qwen2moe", "qwen2_moe"}, {"qwen3moe", "qwen3_moe"}, {"gptneox", "gpt_neox"}, {"starcoder", "gpt_bigcode"},
      {"command-r", "cohere"},   {"stablelm", "stablelm"},  {"olmo2", "olmo2"},
  };
  for (const auto& [from, to] : kRenames) {
    if (arch == from) return to;
  }
  return arch;
}

}  // namespace

Result<json> GgufToConfig(const GgufFile& file, const std::string& label) {
  auto text = [&](const std::string& key) -> std::string {
    auto it = file.metadata.find(key);
    return it != file.metadata.end() && it->second.type == 8 ? it->second.text : std::string();
  };
  const std::string arch = text("general.architecture");
  if (arch.empty()) {
    return Status::InvalidArgument(fmt::format("{}: GGUF metadata has no general.architecture", label))
        .WithKeys("error.gguf.no_arch", {{"file", label}});
  }
  json config = json::object();
  config["model_type"] = ModelTypeForArch(arch);
  auto number = [&](const std::string& key, const char* field) {
    auto it = file.metadata.find(arch + "." + key);
    if (it != file.metadata.end() && !it->second.is_array && it->second.type != 8) config[field] = it->second.number;
  };
  number("embedding_length", "hidden_size");
  number("block_count", "num_hidden_layers");
  number("attention.head_count", "num_attention_heads");
  number("attention.head_count_kv", "num_key_value_heads");
  number("feed_forward_length", "intermediate_size");
  number("context_length", "max_position_embeddings");
  number("attention.key_length", "head_dim");
  number("attention.sliding_window", "sliding_window");
  number("vocab_size", "vocab_size");
  number("expert_count", arch == "qwen2moe" || arch == "qwen3moe" || arch == "olmoe" ? "num_experts" : "num_local_experts");
  number("expert_used_count", "num_experts_per_tok");
  number("expert_feed_forward_length", "moe_intermediate_size");
  number("expert_shared_feed_forward_length", "shared_expert_intermediate_size");
  if (!config.contains("vocab_size")) {
    auto tokens = file.metadata.find("tokenizer.ggml.tokens");
    if (tokens != file.metadata.end() && tokens->second.is_array) {
      config["vocab_size"] = tokens->second.array_count;
    }
  }
  // With tensors present, a model without output.weight reuses token_embd for its head.
  if (!file.tensors.empty()) {
    bool has_output = false;
    for (const auto& t : file.tensors) has_output = has_output || t.name == "output.weight";
    config["tie_word_embeddings"] = !has_output;
  }
  return config;
}

Result<ModelShape> ShapeFromGguf(const GgufFile& file, const std::string& label) {
  json config;
  GPUPROBE_ASSIGN_OR_RETURN(config, GgufToConfig(file, label));
  return ParseHfConfig(config.dump(), label + " (GGUF metadata)");
}

}  // namespace gpuprobe::model
