// The checked-in model catalogue: every entry is sourced and reads, ids are unique, typos get
// suggestions, and names that are variants of an entry (-Instruct, -FP8, -GGUF, dates,
// re-uploads) resolve to it and say how, while other sizes and versions never do.
#include <chrono>
#include <cstdio>
#include <map>
#include <regex>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/embedded_data.h"
#include "knowledge/embedded_knowledge.h"
#include "model/config_reader.h"
#include "model/hf_config.h"
#include "model/model_catalog.h"

namespace gpuprobe::model {
namespace {

std::vector<CatalogEntry> Catalog() {
  auto text = core::EmbeddedFile("models/catalog.json");
  EXPECT_TRUE(text.ok());
  auto catalog = ParseModelCatalog(text.ok() ? *text : "", "catalog.json");
  EXPECT_TRUE(catalog.ok()) << catalog.status().ToString();
  return catalog.ok() ? *catalog : std::vector<CatalogEntry>{};
}

// Entries the recipe reader (ParseHfConfig without the generated structure knowledge) cannot
// count, by model_type: types it has no recipe for (encoder-decoders, MLA/MoE/hybrid layouts of
// 2025-2026, multimodal wrappers) and three layouts of known types it does not read yet (marked).
// The structure reader generated from transformers is meant to count them; an entry leaves this
// list when the recipes learn its layout (the test fails if a listed entry starts to parse, so
// the list stays exact).
const std::set<std::string>& NeedsStructureReader() {
  static const std::set<std::string> kIds = {
      // bart
      "facebook/bart-base", "facebook/bart-large",
      // bloom
      "bigscience/bloom", "bigscience/bloom-560m", "bigscience/bloomz-560m",
      // chatglm (ChatGLM-1: inner_hidden_size, no ffn_hidden_size)
      "THUDM/chatglm-6b",
      // deepseek_ref
      "sgl-project/DeepSeek-V4-Flash-FP8", "sgl-project/DeepSeek-V4-Pro-FP8",
      // deepseek_v32
      "deepseek-ai/DeepSeek-V3.2", "deepseek-ai/DeepSeek-V3.2-Exp", "nvidia/DeepSeek-V3.2-NVFP4",
      // deepseek_v4
      "deepseek-ai/DeepSeek-V4-Flash", "deepseek-ai/DeepSeek-V4-Pro", "nvidia/DeepSeek-V4-Flash-NVFP4",
      "nvidia/DeepSeek-V4-Pro-NVFP4",
      // distilbert
      "sentence-transformers/distiluse-base-multilingual-cased-v1",
      // fuyu
      "adept/fuyu-8b",
      // gemma3 (text_config lists only the keys that differ from the class defaults)
      "google/gemma-3-4b-it",
      // gemma4
      "google/gemma-4-26B-A4B", "nvidia/Gemma-4-26B-A4B-NVFP4",
      // glm4_moe
      "zai-org/GLM-4.5",
      // glm_moe_dsa
      "nvidia/GLM-5-NVFP4", "nvidia/GLM-5.1-NVFP4", "nvidia/GLM-5.2-NVFP4", "nvidia/GLM-5.3-NVFP4", "zai-org/GLM-5",
      "zai-org/GLM-5-FP8", "zai-org/GLM-5.1", "zai-org/GLM-5.1-FP8", "zai-org/GLM-5.2", "zai-org/GLM-5.2-FP8",
      "zai-org/GLM-5.3", "zai-org/GLM-5.3-FP8",
      // gptj
      "EleutherAI/gpt-j-6b",
      // kimi_k2
      "moonshotai/Kimi-K2-Instruct",
      // kimi_k25
      "moonshotai/Kimi-K2.5", "moonshotai/Kimi-K2.6",
      // kimi_k3
      "moonshotai/Kimi-K3",
      // lfm2_vl
      "LiquidAI/LFM2.5-VL-1.6B",
      // m2m_100
      "facebook/nllb-200-1.3B",
      // mimo_v2_flash
      "XiaomiMiMo/MiMo-V2-Flash",
      // minimax_m3
      "MiniMaxAI/MiniMax-M3",
      // mpt
      "mosaicml/mpt-7b-instruct",
      // mt5
      "google/mt5-large",
      // nemotron-nas
      "nvidia/Llama-3_3-Nemotron-Super-49B-v1",
      // nemotron_h
      "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4",
      "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8", "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4",
      "nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16", "nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-FP8",
      "nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-NVFP4", "nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4",
      // minicpm3 (no model_type; MLA)
      "openbmb/MiniCPM3-4B",
      // opt
      "facebook/opt-1.3b", "facebook/opt-125m",
      // qwen2_5_omni
      "Qwen/Qwen2.5-Omni-3B",
      // qwen2_audio
      "Qwen/Qwen2-Audio-7B-Instruct",
      // qwen3 (per-tensor FP8 quantization_config without bits)
      "Qwen/Qwen3-32B-FP8-Static-PerTensor",
      // qwen3_5
      "nvidia/Qwen3.6-27B-NVFP4", "Qwen/Qwen3.5-0.8B", "Qwen/Qwen3.5-27B", "Qwen/Qwen3.5-9B",
      // qwen3_5_moe
      "nvidia/Qwen3.5-122B-A10B-NVFP4", "nvidia/Qwen3.5-397B-A17B-NVFP4", "nvidia/Qwen3.6-35B-A3B-NVFP4",
      "Qwen/Qwen3.5-122B-A10B", "Qwen/Qwen3.5-35B-A3B", "Qwen/Qwen3.5-397B-A17B", "Qwen/Qwen3.6-35B-A3B",
      // qwen3_next
      "Qwen/Qwen3-Next-80B-A3B-Thinking",
      // qwen3_vl_moe
      "Qwen/Qwen3-VL-235B-A22B-Instruct", "Qwen/Qwen3-VL-30B-A3B-Instruct",
      // seamless_m4t_v2
      "facebook/seamless-m4t-v2-large",
      // step3p7
      "stepfun-ai/Step-3.7-Flash", "stepfun-ai/Step-3.7-Flash-FP8",
      // t5
      "google-t5/t5-base", "google/flan-t5-base", "google/flan-t5-large", "google/t5-v1_1-base",
      // whisper
      "openai/whisper-large-v3", "openai/whisper-medium",
  };
  return kIds;
}

// What the catalogue holds today; data/models/README.md says what is still missing.
constexpr size_t kMinEntries = 260;

// Entries copied from tests/fixtures/hf_configs, whose Hub revision was never recorded: the
// only ones whose source is not pinned to a commit.
const std::set<std::string> kUnpinned = {"meta-llama/Meta-Llama-3-8B", "meta-llama/Llama-3.2-1B", "Qwen/Qwen2-7B",
                                         "Qwen/Qwen2.5-0.5B",          "google/gemma-2b",         "google/gemma-7b",
                                         "google/gemma-2-9b",          "llava-hf/llava-1.5-7b-hf"};

TEST(ModelCatalog, HoldsSourcedEntriesWithUniqueIds) {
  auto catalog = Catalog();
  EXPECT_GE(catalog.size(), kMinEntries);
  std::set<std::string> ids;
  const std::regex pinned(R"(^https://(github\.com/[^/]+/[^/]+/blob/[0-9a-f]{40}/|huggingface\.co/[^/]+/[^/]+/blob/[0-9a-f]{40}/).+)");
  const std::regex month(R"(^(19|20)\d\d-(0[1-9]|1[0-2])$)");
  const std::regex hub_id(R"(^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$)");
  size_t unpinned = 0;
  for (const auto& entry : catalog) {
    unpinned += kUnpinned.count(entry.id);
    std::string lower;
    for (char c : entry.id) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    EXPECT_TRUE(ids.insert(lower).second) << "duplicate id (ignoring case) " << entry.id;
    EXPECT_TRUE(std::regex_match(entry.id, hub_id)) << entry.id;
    if (kUnpinned.count(entry.id) == 0) {
      EXPECT_TRUE(std::regex_match(entry.source, pinned)) << entry.id << ": source not pinned to a commit: " << entry.source;
    }
    EXPECT_FALSE(entry.licence.empty()) << entry.id;
    if (!entry.released.empty()) {
      EXPECT_TRUE(std::regex_match(entry.released, month)) << entry.id << ": " << entry.released;
    }
    auto config = ParseConfigJson(entry.config_json, entry.id);  // as Python writes it: NaN, Infinity
    ASSERT_TRUE(config.ok() && config->is_object()) << entry.id;
    EXPECT_TRUE(config->contains("model_type") || config->contains("architectures")) << entry.id;
  }
  EXPECT_EQ(unpinned, kUnpinned.size());
}

// Entries that `plan` (the structure generated from transformers first, then the recipes) still
// refuses: model types the generator has not produced an exact or approximate template for
// (gemma4, kimi K3, minimax_m3, mimo_v2_flash, nemotron-nas); layers of a kind a template never
// saw (DeepSeek-V4-Flash's sliding layers: the legacy compress_ratios now read, 0 = sliding);
// Nemotron-3's legacy 'mamba' kind and Step-3.7's mlp_layer_types; ChatGLM-1's
// inner_hidden_size; a compressed-tensors config without 'bits'. Each refusal exits 2 naming the
// field or the type. The list is exact: an entry that starts to read must leave it.
const std::set<std::string>& StillRefused() {
  static const std::set<std::string> kIds = {
      "deepseek-ai/DeepSeek-V4-Flash",
      "google/gemma-4-26B-A4B",
      "MiniMaxAI/MiniMax-M3",
      "moonshotai/Kimi-K3",
      "nvidia/DeepSeek-V4-Flash-NVFP4",
      "nvidia/Gemma-4-26B-A4B-NVFP4",
      "nvidia/Llama-3_3-Nemotron-Super-49B-v1",
      "nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16",
      "nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-FP8",
      "nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-NVFP4",
      "nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4",
      "Qwen/Qwen3-32B-FP8-Static-PerTensor",
      "sgl-project/DeepSeek-V4-Flash-FP8",
      "stepfun-ai/Step-3.7-Flash",
      "stepfun-ai/Step-3.7-Flash-FP8",
      "THUDM/chatglm-6b",
      "XiaomiMiMo/MiMo-V2-Flash"};
  return kIds;
}

TEST(ModelCatalog, EveryEntryReadsWithTransformersStructureOrIsListedAsRefused) {
  auto hf = knowledge::HfModels();
  ASSERT_TRUE(hf.ok()) << hf.status().ToString();
  auto catalog = Catalog();
  int read = 0;
  for (const auto& entry : catalog) {
    auto shape = ParseHfConfig(entry.config_json, entry.id, **hf);
    if (StillRefused().count(entry.id) != 0) {
      EXPECT_FALSE(shape.ok()) << entry.id << " now reads: take it off StillRefused()";
      continue;
    }
    EXPECT_TRUE(shape.ok()) << entry.id << ": " << shape.status().ToString();
    if (shape.ok()) {
      EXPECT_GT(CountParameters(*shape).total, 0) << entry.id;
      ++read;
    }
  }
  std::printf("catalogue: %d of %zu entries read with transformers' structure and the recipes\n", read, catalog.size());
}

TEST(ModelCatalog, EveryEntryReadsWithTheRecipesOrIsListedForTheStructureReader) {
  auto catalog = Catalog();
  std::set<std::string> ids;
  for (const auto& entry : catalog) {
    ids.insert(entry.id);
    auto shape = ParseHfConfig(entry.config_json, entry.id);
    if (NeedsStructureReader().count(entry.id) != 0) {
      EXPECT_FALSE(shape.ok()) << entry.id << " now reads with the recipes: take it off NeedsStructureReader()";
      continue;
    }
    EXPECT_TRUE(shape.ok()) << entry.id << ": " << shape.status().ToString();
    if (shape.ok()) {
      EXPECT_GT(CountParameters(*shape).total, 0) << entry.id;
    }
  }
  for (const auto& id : NeedsStructureReader()) EXPECT_TRUE(ids.count(id) != 0) << "listed but not in the catalogue: " << id;
}

TEST(ModelCatalog, FindsByIdOrNameIgnoringCaseAndSuggestsOnATypo) {
  auto catalog = Catalog();
  const CatalogEntry* qwen = FindCatalogEntry(catalog, "qwen/qwen3-30b-a3b");
  ASSERT_NE(qwen, nullptr);
  EXPECT_EQ(qwen->id, "Qwen/Qwen3-30B-A3B");
  ASSERT_NE(FindCatalogEntry(catalog, "Mixtral-8x7B-v0.1"), nullptr);
  EXPECT_EQ(FindCatalogEntry(catalog, "Qwen/Qwen3-30B-A3"), nullptr);
  auto close = SuggestCatalogIds(catalog, "Qwen/Qwen3-30B-A3");
  ASSERT_FALSE(close.empty());
  EXPECT_EQ(close.front(), "Qwen/Qwen3-30B-A3B");
}

TEST(ModelCatalog, CoversTheFamiliesPeopleServe) {
  auto catalog = Catalog();
  std::map<std::string, int> families;
  for (const auto& entry : catalog) {
    for (const char* family : {"Llama-2", "Llama-3", "Llama-4", "Qwen2", "Qwen3", "DeepSeek", "Mistral", "Mixtral", "gemma",
                               "Phi", "gpt-oss", "GLM", "Kimi", "MiniMax", "falcon", "Yi", "internlm", "Baichuan", "OLMo",
                               "granite", "Nemotron", "SmolLM", "whisper", "bert"}) {
      std::string id = entry.id, f = family;
      for (auto* s : {&id, &f}) {
        for (auto& c : *s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      }
      if (id.find(f) != std::string::npos) ++families[family];
    }
  }
  for (const char* family : {"Llama-3", "Qwen2", "Qwen3", "DeepSeek", "Mistral", "gemma", "Phi", "Nemotron"}) {
    EXPECT_GE(families[family], 3) << family;
  }
  for (const char* family : {"Llama-2", "Llama-4", "Mixtral", "gpt-oss", "GLM", "Kimi", "MiniMax", "falcon", "whisper"}) {
    EXPECT_GE(families[family], 1) << family;
  }
}

// --- Variant rules, on a small catalogue of their own ----------------------------------------

std::vector<CatalogEntry> Sample() {
  std::vector<CatalogEntry> out;
  for (const char* id :
       {"Qwen/Qwen3-8B", "Qwen/Qwen3-32B", "Qwen/Qwen3-32B-FP8", "Qwen/Qwen3-30B-A3B", "Qwen/Qwen3-30B-A3B-Instruct-2507",
        "Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-72B", "meta-llama/Llama-3.1-8B", "meta-llama/Llama-3.1-8B-Instruct",
        "meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Meta-Llama-3-8B", "meta-llama/Llama-2-7b-hf",
        "mistralai/Mistral-7B-v0.1", "mistralai/Mixtral-8x7B-v0.1", "mistralai/Devstral-Small-2507",
        "deepseek-ai/DeepSeek-R1", "google/gemma-2-9b", "google/gemma-2-2b-it", "google-bert/bert-base-uncased",
        "openai/whisper-base", "zai-org/GLM-4.5", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"}) {
    out.push_back({id, "https://example.invalid/", "licence", "", "{}"});
  }
  return out;
}

std::optional<CatalogMatch> Match(std::string_view id) {
  static const auto kSample = Sample();
  return MatchCatalogEntry(kSample, id);
}

std::string Resolved(std::string_view id) {
  auto m = Match(id);
  return m ? m->entry->id : std::string("(none)");
}

TEST(CatalogVariants, ExactIdsAndNamesAreNotVariants) {
  auto m = Match("QWEN/qwen3-8b");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kind, CatalogMatchKind::kExactId);
  EXPECT_EQ(m->Explain(), "Qwen/Qwen3-8B");
  EXPECT_TRUE(m->warnings.empty());
  m = Match("qwen3-32b-fp8");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kind, CatalogMatchKind::kName);
  EXPECT_EQ(m->entry->id, "Qwen/Qwen3-32B-FP8");
}

TEST(CatalogVariants, QuantisedVariantNamesTheEntryAndWarnsThatTheBytesDiffer) {
  auto m = Match("Qwen/Qwen3-8B-FP8");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kind, CatalogMatchKind::kVariant);
  EXPECT_EQ(m->Explain(), "Qwen/Qwen3-8B-FP8 -> Qwen/Qwen3-8B: same architecture, weights quantised differently (FP8)");
  EXPECT_TRUE(m->quantised);
  ASSERT_EQ(m->warnings.size(), 1u);
  EXPECT_NE(m->warnings[0].find("weight bytes differ"), std::string::npos);
  EXPECT_NE(m->warnings[0].find("quantization_config"), std::string::npos);
  for (const char* id : {"Qwen/Qwen3-8B-AWQ", "Qwen/Qwen3-8B-GPTQ-Int4", "Qwen/Qwen3-8B-GPTQ-Int8", "Qwen/Qwen3-8B-GGUF",
                         "Qwen/Qwen3-8B-MLX-4bit", "Qwen/Qwen3-8B-FP8-Dynamic", "Qwen/Qwen3-8B-bnb-4bit",
                         "Qwen/Qwen3-8B-W4A16", "Qwen/Qwen3-8B-NVFP4", "Qwen/Qwen3-8B-Q4_K_M-GGUF"}) {
    auto v = Match(id);
    ASSERT_TRUE(v) << id;
    EXPECT_EQ(v->entry->id, "Qwen/Qwen3-8B") << id;
    EXPECT_TRUE(v->quantised) << id;
    EXPECT_FALSE(v->warnings.empty()) << id;
  }
}

TEST(CatalogVariants, AQuantisedEntryIsUsedOnlyWhenNoPlainOneExistsAndThenWarns) {
  // Qwen3-32B and Qwen3-32B-FP8 are both entries: an AWQ copy resolves to the plain one.
  EXPECT_EQ(Resolved("Qwen/Qwen3-32B-AWQ"), "Qwen/Qwen3-32B");
  EXPECT_EQ(Resolved("Qwen/Qwen3-32B-Base"), "Qwen/Qwen3-32B");
  // Only the BF16 checkpoint is in: an FP8 copy resolves to it with both schemes named.
  auto m = Match("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-FP8");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->entry->id, "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16");
  EXPECT_TRUE(m->quantised);
  EXPECT_NE(m->Explain().find("FP8 here, BF16 in the entry"), std::string::npos) << m->Explain();
}

TEST(CatalogVariants, TuningSuffixesShareTheArchitecture) {
  EXPECT_EQ(Resolved("Qwen/Qwen3-8B-Base"), "Qwen/Qwen3-8B");
  EXPECT_EQ(Resolved("Qwen/Qwen2.5-72B-Instruct"), "Qwen/Qwen2.5-72B");
  EXPECT_EQ(Resolved("Qwen/Qwen2.5-7B"), "Qwen/Qwen2.5-7B-Instruct");
  EXPECT_EQ(Resolved("meta-llama/Llama-2-7b-chat-hf"), "meta-llama/Llama-2-7b-hf");
  EXPECT_EQ(Resolved("google/gemma-2-9b-it"), "google/gemma-2-9b");
  EXPECT_EQ(Resolved("google/gemma-2-2b"), "google/gemma-2-2b-it");
  EXPECT_EQ(Resolved("mistralai/Mixtral-8x7B-Instruct-v0.1"), "mistralai/Mixtral-8x7B-v0.1");
  EXPECT_EQ(Resolved("mistralai/Mistral-7B-Instruct-v0.1"), "mistralai/Mistral-7B-v0.1");
  auto m = Match("meta-llama/Llama-3.1-70B");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->Explain(), "meta-llama/Llama-3.1-70B -> meta-llama/Llama-3.1-70B-Instruct: same architecture, another tuning "
                          "of it (base vs Instruct)");
  EXPECT_FALSE(m->quantised);
  EXPECT_TRUE(m->warnings.empty());
}

TEST(CatalogVariants, ThePlainestOrClosestEntryWinsAmongSeveral) {
  // Both Llama-3.1-8B and -Instruct share the key: the request's own tuning decides.
  EXPECT_EQ(Resolved("meta-llama/Llama-3.1-8B-Instruct-FP8"), "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(Resolved("meta-llama/Llama-3.1-8B-FP8"), "meta-llama/Llama-3.1-8B");
  EXPECT_EQ(Resolved("Qwen/Qwen3-30B-A3B-Instruct-2507-FP8"), "Qwen/Qwen3-30B-A3B-Instruct-2507");
  EXPECT_EQ(Resolved("Qwen/Qwen3-30B-A3B-Base"), "Qwen/Qwen3-30B-A3B");
}

TEST(CatalogVariants, DatedReleasesResolveWithACaution) {
  auto m = Match("Qwen/Qwen3-30B-A3B-Thinking-2507");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->entry->id, "Qwen/Qwen3-30B-A3B-Instruct-2507");
  m = Match("deepseek-ai/DeepSeek-R1-0528");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->entry->id, "deepseek-ai/DeepSeek-R1");
  EXPECT_TRUE(m->dated_or_reupload);
  ASSERT_FALSE(m->warnings.empty());
  EXPECT_NE(m->warnings.back().find("dated releases usually do"), std::string::npos);
  EXPECT_NE(m->Explain().find("another dated release (0528 vs undated)"), std::string::npos) << m->Explain();
  EXPECT_EQ(Resolved("mistralai/Devstral-Small-2505"), "mistralai/Devstral-Small-2507");
}

TEST(CatalogVariants, ReuploadersAndRenamedOrganisationsResolve) {
  auto m = Match("unsloth/Llama-3.1-8B-Instruct-bnb-4bit");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->entry->id, "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_NE(m->Explain().find("re-uploaded by unsloth"), std::string::npos) << m->Explain();
  EXPECT_TRUE(m->quantised);
  EXPECT_EQ(Resolved("TheBloke/Llama-2-7B-Chat-GPTQ"), "meta-llama/Llama-2-7b-hf");
  EXPECT_EQ(Resolved("RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8-dynamic"), "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(Resolved("RedHatAI/Llama-3.1-70B-Instruct-quantized.w4a16"), "meta-llama/Llama-3.1-70B-Instruct");
  EXPECT_EQ(Resolved("neuralmagic/Mixtral-8x7B-Instruct-v0.1-FP8"), "mistralai/Mixtral-8x7B-v0.1");
  EXPECT_EQ(Resolved("bartowski/Qwen2.5-7B-Instruct-GGUF"), "Qwen/Qwen2.5-7B-Instruct");
  EXPECT_EQ(Resolved("lmstudio-community/Meta-Llama-3-8B-Instruct-GGUF"), "meta-llama/Meta-Llama-3-8B");
  EXPECT_EQ(Resolved("mlx-community/Qwen3-8B-4bit"), "Qwen/Qwen3-8B");
  m = Match("THUDM/GLM-4.5-FP8");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->entry->id, "zai-org/GLM-4.5");
  EXPECT_NE(m->Explain().find("THUDM is now zai-org"), std::string::npos) << m->Explain();
  // Without an organisation, the name alone is compared.
  EXPECT_EQ(Resolved("qwen3-8b-gguf"), "Qwen/Qwen3-8B");
}

TEST(CatalogVariants, NearMissesDoNotMatch) {
  // The 70B's only entry is its Instruct tuning: that one, never the 8B.
  EXPECT_EQ(Resolved("meta-llama/Llama-3.1-70B-FP8"), "meta-llama/Llama-3.1-70B-Instruct");
  for (const char* id : {
           "Qwen/Qwen3-14B",                       // another size
           "Qwen/Qwen3-80B-A3B",                   // another size
           "Qwen/Qwen3-30B",                       // the MoE's total without its active count
           "Qwen/Qwen3-30B-A3",                    // a typo
           "Qwen/Qwen3-8B-Coder",                  // another model
           "Qwen/Qwen3-VL-8B-Instruct",            // another architecture
           "Qwen/Qwen2-7B-Instruct",               // another version (Qwen2 is not Qwen2.5)
           "Qwen/Qwen2.5-14B-Instruct",            // another size
           "meta-llama/Llama-3.2-8B",              // another version
           "meta-llama/Llama-3.1-405B-Instruct",   // another size
           "mistralai/Mistral-7B-Instruct-v0.3",   // another version (vocabulary and rope differ)
           "mistralai/Mixtral-8x22B-v0.1",         // another size
           "google/gemma-2-27b-it",                // another size
           "google/gemma-3-9b",                    // another generation
           "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B",  // a distill: another architecture
           "deepseek-ai/DeepSeek-V3",              // another model
           "someone/Llama-3.1-8B-Instruct",        // an organisation that is not a known re-uploader
           "google-bert/bert-large-uncased",       // "large" is a size
           "openai/whisper",                       // no size: never guessed
           "FP8",                                  // nothing but a scheme
           "",                                     // nothing
       }) {
    EXPECT_EQ(Resolved(id), "(none)") << id;
  }
  // "base" is a size where there is no parameter count: bert-base is not bert.
  EXPECT_EQ(Resolved("google-bert/bert-uncased"), "(none)");
  EXPECT_EQ(Resolved("google-bert/bert-base-uncased-FP16"), "google-bert/bert-base-uncased");
}

TEST(CatalogVariants, AbsurdInputsAreAnsweredQuickly) {
  auto catalog = Catalog();
  ASSERT_GE(catalog.size(), kMinEntries);
  const std::string huge(1 << 20, 'a');
  std::string dashes;
  for (int i = 0; i < 2000; ++i) dashes += "-Instruct";
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(MatchCatalogEntry(catalog, huge));
  EXPECT_TRUE(SuggestCatalogIds(catalog, huge).empty());
  EXPECT_FALSE(MatchCatalogEntry(catalog, "Qwen/Qwen3-8B" + dashes));
  EXPECT_TRUE(SuggestCatalogIds(catalog, "Qwen/Qwen3-8B" + dashes).empty());
  for (int i = 0; i < 50; ++i) {
    EXPECT_TRUE(MatchCatalogEntry(catalog, "unsloth/Qwen3-8B-Instruct-2507-GGUF"));
    SuggestCatalogIds(catalog, "Qwen/Qwen3-8B-Instrukt");
  }
  auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 5.0);  // generous: a few milliseconds on any machine
}

TEST(CatalogVariants, RealCatalogueResolvesTheBriefsExamples) {
  auto catalog = Catalog();
  auto m = MatchCatalogEntry(catalog, "Qwen/Qwen3-8B-FP8");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->Explain(), "Qwen/Qwen3-8B-FP8 -> Qwen/Qwen3-8B: same architecture, weights quantised differently (FP8)");
  m = MatchCatalogEntry(catalog, "unsloth/Meta-Llama-3.1-8B-Instruct-bnb-4bit");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->entry->id, "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(FindCatalogEntry(catalog, "meta-llama/Llama-3.1-8B-Instruct-70B"), nullptr);
  for (const auto& [variant, entry] : std::map<std::string, std::string>{
           {"meta-llama/Meta-Llama-3-8B-Instruct", "meta-llama/Meta-Llama-3-8B"},
           {"google/gemma-2-9b-it", "google/gemma-2-9b"},
           {"bartowski/Qwen2.5-7B-Instruct-GGUF", "Qwen/Qwen2.5-7B-Instruct"},
           {"Qwen/Qwen2.5-72B-Instruct-AWQ", "Qwen/Qwen2.5-72B"},
           {"RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic", "(none)"},  // no Llama-3.3 entry: never the 3.1
           {"deepseek-ai/DeepSeek-R1-0528", "deepseek-ai/DeepSeek-R1"},
           {"Qwen/Qwen3-235B-A22B-Instruct-2507", "Qwen/Qwen3-235B-A22B"},
           {"mistralai/Mistral-7B-Instruct-v0.1", "mistralai/Mistral-7B-v0.1"},
           {"openai/gpt-oss-20b-MXFP4", "openai/gpt-oss-20b"},
       }) {
    const CatalogEntry* found = FindCatalogEntry(catalog, variant);
    EXPECT_EQ(found ? found->id : std::string("(none)"), entry) << variant;
  }
}

TEST(ModelCatalogParse, RejectsMalformedEntriesNamingThem) {
  EXPECT_FALSE(ParseModelCatalog("[]", "c.json").ok());
  EXPECT_FALSE(ParseModelCatalog(R"({"models": [{"id": "a/b"}]})", "c.json").ok());
  auto bad = ParseModelCatalog(R"({"models": [{"id": "a/b", "source": "s", "licence": 3, "config": {}}]})", "c.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().ToString().find("a/b"), std::string::npos);
  auto good = ParseModelCatalog(
      R"({"models": [{"id": "a/b", "source": "s", "licence": "MIT", "released": "2025-01", "config": {"x": 1}}]})", "c.json");
  ASSERT_TRUE(good.ok());
  EXPECT_EQ((*good)[0].licence, "MIT");
  EXPECT_EQ((*good)[0].released, "2025-01");
  EXPECT_EQ(nlohmann::json::parse((*good)[0].config_json), nlohmann::json::parse(R"({"x": 1})"));
  // Python's NaN and Infinity inside a config are kept as written (ParseHfConfig reads them).
  auto python = ParseModelCatalog(
      R"({"description": "d", "models": [{"id": "a/b", "source": "s", "config": {"t": [0.0, Infinity], "n": NaN}}]})",
      "c.json");
  ASSERT_TRUE(python.ok()) << python.status().ToString();
  EXPECT_EQ((*python)[0].config_json, R"({"t": [0.0, Infinity], "n": NaN})");
  EXPECT_FALSE(ParseModelCatalog(R"({"models": [{"id": "a/b", "source": "s", "config": {"x": 1}})", "c.json").ok());
  EXPECT_FALSE(ParseModelCatalog(R"({"models": [{"id": "a/b", "source": "s", "config": [1]}]})", "c.json").ok());
}

}  // namespace
}  // namespace gpuprobe::model
