// Parameter recipes, one per model family, written from the structure of each family's
// modelling code (transformers' modeling_<family>.py, or the checkpoint's own remote code):
// which linear layers exist, which carry biases, which norms (with or without bias), tied
// embeddings, and how layers differ (dense vs MoE, sliding vs full attention, SSM vs
// attention). docs/plan.md lists each recipe with its source and a real model's count.
//
// A recipe receives the config object (the text_config for multimodal configs) and a shape
// with architecture, family, model_type and torch_dtype set; it fills the summary fields and
// the per-layer list. Errors name the file and the field.
//
// Thread safety: pure functions; the table is immutable.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "model/config_reader.h"
#include "model/model_shape.h"

namespace gpuprobe::model::families {

using Recipe = core::Result<ModelShape> (*)(const ConfigReader& config, ModelShape shape);

struct FamilyEntry {
  const char* model_type;  ///< as written in config.json
  const char* family;      ///< recipe name shown to users (several model_types share one)
  Recipe recipe;
  /// Prefixes of the architecture class names ("LlamaFor" of "LlamaForCausalLM") that mean
  /// this model_type in a config.json without one; empty when no class name maps here.
  std::vector<const char*> architectures;
};

/// Every supported model_type, in display order.
const std::vector<FamilyEntry>& FamilyTable();
/// The entry for `model_type` (exact match), or nullptr.
const FamilyEntry* FindFamily(const std::string& model_type);
/// A model_type for an architecture class name ("LlamaForCausalLM" -> "llama"); empty if unknown.
std::string ModelTypeFromArchitecture(const std::string& architecture);

// llama_like.cpp
core::Result<ModelShape> Llama(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> Mistral(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> Mixtral(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> Qwen2(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> Qwen2Moe(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> Qwen3(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> Qwen3Moe(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> Gemma(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> Gemma2(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> Gemma3Text(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> Phi3(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> PhiMoe(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> Olmo(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> Olmo2(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> Olmoe(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> Granite(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> GraniteMoe(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> MiniCpm(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> InternLm2(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> Baichuan(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> Cohere(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> StableLm(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> Starcoder2(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> Glm(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> Glm4(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> ChatGlm(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> QwenV1(const ConfigReader& c, ModelShape s);
/// An unknown model_type with llama-like fields: planned as a llama decoder; every field it
/// had to assume is listed in shape.assumed_fields and a "generic_decoder" note.
core::Result<ModelShape> GenericDecoder(const ConfigReader& c, ModelShape s);

// deepseek.cpp
core::Result<ModelShape> DeepSeek(const ConfigReader& c, ModelShape s);

// gpt_like.cpp
core::Result<ModelShape> Gpt2(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> GptBigCode(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> GptNeoX(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> Falcon(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> Phi(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> Bert(const ConfigReader& c, ModelShape s);

// ssm.cpp
core::Result<ModelShape> Mamba(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> Mamba2(const ConfigReader& c, ModelShape s);
core::Result<ModelShape> Jamba(const ConfigReader& c, ModelShape s);

// vision.cpp
/// Parameters of a vision tower described by `vision_config` (SigLIP / CLIP vision
/// transformers) plus, for Gemma 3, its projector into `text_hidden`. InvalidArgument naming
/// the field for a bad value; Unavailable (message: what is missing, as data) when the tower
/// or projector has no recipe or the config does not state every dimension.
core::Result<double> VisionTowerParams(const ConfigReader& vision, const std::string& outer_model_type,
                                       std::int64_t text_hidden);

}  // namespace gpuprobe::model::families
