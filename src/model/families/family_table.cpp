// The explicit list of supported model_types (STYLE rule 5: registered in one list): one row
// per model_type with its recipe and the architecture class names that mean it, so a family is
// added in one place.
#include <algorithm>

#include "model/families/recipes.h"

namespace gpuprobe::model::families {

const std::vector<FamilyEntry>& FamilyTable() {
  static const std::vector<FamilyEntry> kTable = {
      {"llama", "llama", Llama, {"LlamaFor"}},
      {"mistral", "mistral", Mistral, {"MistralFor"}},
      {"mixtral", "mixtral", Mixtral, {"MixtralFor"}},
      {"qwen2", "qwen2", Qwen2, {"Qwen2For"}},
      {"qwen2_moe", "qwen2_moe", Qwen2Moe, {"Qwen2MoeFor"}},
      {"qwen3", "qwen3", Qwen3, {"Qwen3For"}},
      {"qwen3_moe", "qwen3_moe", Qwen3Moe, {"Qwen3MoeFor"}},
      {"qwen", "qwen", QwenV1, {"QWenLMHeadModel"}},
      {"gemma", "gemma", Gemma, {"GemmaFor"}},
      {"gemma2", "gemma2", Gemma2, {"Gemma2For"}},
      {"gemma3", "gemma3", Gemma3Text, {"Gemma3For"}},
      {"gemma3_text", "gemma3", Gemma3Text, {}},
      {"phi", "phi", Phi, {"PhiFor"}},
      {"phi3", "phi3", Phi3, {"Phi3For"}},
      {"phimoe", "phimoe", PhiMoe, {"PhiMoEFor"}},
      {"deepseek_v2", "deepseek_v2", DeepSeek, {"DeepseekV2For"}},
      {"deepseek_v3", "deepseek_v3", DeepSeek, {"DeepseekV3For"}},
      {"olmo", "olmo", Olmo, {"OlmoFor"}},
      {"olmo2", "olmo2", Olmo2, {"Olmo2For"}},
      {"olmoe", "olmoe", Olmoe, {"OlmoeFor"}},
      {"falcon", "falcon", Falcon, {"FalconFor", "RWForCausalLM"}},
      {"RefinedWeb", "falcon", Falcon, {}},
      {"RefinedWebModel", "falcon", Falcon, {}},
      {"gpt2", "gpt2", Gpt2, {"GPT2"}},
      {"gpt_neox", "gpt_neox", GptNeoX, {"GPTNeoXFor"}},
      {"gpt_bigcode", "gpt_bigcode", GptBigCode, {"GPTBigCodeFor"}},
      {"starcoder2", "starcoder2", Starcoder2, {"Starcoder2For"}},
      {"cohere", "cohere", Cohere, {"CohereFor"}},
      {"internlm2", "internlm2", InternLm2, {"InternLM2For"}},
      {"glm", "glm", Glm, {"GlmFor"}},
      {"glm4", "glm4", Glm4, {"Glm4For"}},
      {"chatglm", "chatglm", ChatGlm, {"ChatGLM"}},
      {"baichuan", "baichuan", Baichuan, {"BaichuanFor"}},
      {"minicpm", "minicpm", MiniCpm, {"MiniCPMFor"}},
      {"granite", "granite", Granite, {"GraniteForCausalLM"}},
      {"granitemoe", "granitemoe", GraniteMoe, {"GraniteMoeFor"}},
      {"granitemoeshared", "granitemoe", GraniteMoe, {}},
      {"stablelm", "stablelm", StableLm, {"StableLmFor"}},
      {"stablelm_epoch", "stablelm", StableLm, {"StableLMEpochFor"}},
      {"bert", "bert", Bert, {"BertFor", "BertModel"}},
      {"mamba", "mamba", Mamba, {"MambaFor"}},
      {"mamba2", "mamba2", Mamba2, {"Mamba2For"}},
      {"jamba", "jamba", Jamba, {"JambaFor"}},
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
  // The class names of the rows never begin one another ("Qwen2For", "Qwen2MoeFor"), so the
  // first row whose prefix matches is the one.
  for (const auto& entry : FamilyTable()) {
    for (const char* prefix : entry.architectures) {
      if (architecture.rfind(prefix, 0) == 0) return entry.model_type;
    }
  }
  return {};
}

}  // namespace gpuprobe::model::families
