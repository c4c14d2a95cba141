// The explicit list of supported model_types (STYLE rule 5: registered in one list).
#include <algorithm>

#include "model/families/recipes.h"

namespace gpuprobe::model::families {

const std::vector<FamilyEntry>& FamilyTable() {
  static const std::vector<FamilyEntry> kTable = {
      {"llama", "llama", Llama},
      {"mistral", "mistral", Mistral},
      {"mixtral", "mixtral", Mixtral},
      {"qwen2", "qwen2", Qwen2},
      {"qwen2_moe", "qwen2_moe", Qwen2Moe},
      {"qwen3", "qwen3", Qwen3},
      {"qwen3_moe", "qwen3_moe", Qwen3Moe},
      {"qwen", "qwen", QwenV1},
      {"gemma", "gemma", Gemma},
      {"gemma2", "gemma2", Gemma2},
      {"gemma3", "gemma3", Gemma3Text},
      {"gemma3_text", "gemma3", Gemma3Text},
      {"phi", "phi", Phi},
      {"phi3", "phi3", Phi3},
      {"phimoe", "phimoe", PhiMoe},
      {"deepseek_v2", "deepseek_v2", DeepSeek},
      {"deepseek_v3", "deepseek_v3", DeepSeek},
      {"olmo", "olmo", Olmo},
      {"olmo2", "olmo2", Olmo2},
      {"olmoe", "olmoe", Olmoe},
      {"falcon", "falcon", Falcon},
      {"RefinedWeb", "falcon", Falcon},
      {"RefinedWebModel", "falcon", Falcon},
      {"gpt2", "gpt2", Gpt2},
      {"gpt_neox", "gpt_neox", GptNeoX},
      {"gpt_bigcode", "gpt_bigcode", GptBigCode},
      {"starcoder2", "starcoder2", Starcoder2},
      {"cohere", "cohere", Cohere},
      {"internlm2", "internlm2", InternLm2},
      {"glm", "glm", Glm},
      {"glm4", "glm4", Glm4},
      {"chatglm", "chatglm", ChatGlm},
      {"baichuan", "baichuan", Baichuan},
      {"minicpm", "minicpm", MiniCpm},
      {"granite", "granite", Granite},
      {"granitemoe", "granitemoe", GraniteMoe},
      {"granitemoeshared", "granitemoe", GraniteMoe},
      {"stablelm", "stablelm", StableLm},
      {"stablelm_epoch", "stablelm", StableLm},
      {"bert", "bert", Bert},
      {"mamba", "mamba", Mamba},
      {"mamba2", "mamba2", Mamba2},
      {"jamba", "jamba", Jamba},
  };
  return kTable;
}

const FamilyEntry* FindFamily(const std::string& model_type) {
  for (const auto& entry : FamilyTable()) {
    if (model_type == entry.model_type) return &entry;
  }
  return nullptr;
}

std::string ModelTypeFromArchitecture(const std::string& architecture) {
  struct Entry {
    const char* prefix;
    const char* model_type;
  };
  // Longest prefixes first where one class name begins another ("Qwen2Moe" before "Qwen2").
  static const Entry kEntries[] = {
      {"LlamaFor", "llama"},         {"MistralFor", "mistral"},       {"MixtralFor", "mixtral"},
      {"Qwen2MoeFor", "qwen2_moe"},  {"Qwen2For", "qwen2"},           {"Qwen3MoeFor", "qwen3_moe"},
      {"Qwen3For", "qwen3"},         {"QWenLMHeadModel", "qwen"},     {"GemmaFor", "gemma"},
      {"Gemma2For", "gemma2"},       {"Gemma3For", "gemma3"},         {"PhiFor", "phi"},
      {"Phi3For", "phi3"},           {"PhiMoEFor", "phimoe"},         {"DeepseekV2For", "deepseek_v2"},
      {"DeepseekV3For", "deepseek_v3"}, {"OlmoFor", "olmo"},          {"Olmo2For", "olmo2"},
      {"OlmoeFor", "olmoe"},         {"FalconFor", "falcon"},         {"RWForCausalLM", "falcon"},
      {"GPT2", "gpt2"},              {"GPTNeoXFor", "gpt_neox"},      {"GPTBigCodeFor", "gpt_bigcode"},
      {"Starcoder2For", "starcoder2"}, {"CohereFor", "cohere"},       {"InternLM2For", "internlm2"},
      {"GlmFor", "glm"},             {"Glm4For", "glm4"},             {"ChatGLM", "chatglm"},
      {"BaichuanFor", "baichuan"},   {"MiniCPMFor", "minicpm"},       {"GraniteForCausalLM", "granite"},
      {"GraniteMoeFor", "granitemoe"}, {"StableLmFor", "stablelm"},   {"StableLMEpochFor", "stablelm_epoch"},
      {"BertFor", "bert"},           {"BertModel", "bert"},           {"MambaFor", "mamba"},
      {"Mamba2For", "mamba2"},       {"JambaFor", "jamba"},
  };
  for (const auto& e : kEntries) {
    if (architecture.rfind(e.prefix, 0) == 0) return e.model_type;
  }
  return {};
}

}  // namespace gpuprobe::model::families
