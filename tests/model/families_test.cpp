// Every family recipe against real config.json files (tests/fixtures/configs, copied verbatim;
// index.json cites each total) and, for families with no public copy, synthetic configs that
// carry the published config values (synthetic-*.json; index.json says what each follows).
// KV bytes per token are worked out by hand in each comment: 2 (K and V) x layers x KV heads
// x head_dim x 2 B for attention, layers x (kv_lora_rank + qk_rope_head_dim) x 2 B for MLA.
#include <cmath>

#include <gtest/gtest.h>

#include "model/families/recipes.h"
#include "model/fixture.h"
#include "model/hf_config.h"

namespace gpuprobe::model {
namespace {

using gpuprobe::testing::ReadFixture;

ModelShape Load(const std::string& file) {
  auto shape = ParseHfConfig(ReadFixture("configs/" + file), file);
  EXPECT_TRUE(shape.ok()) << file << ": " << shape.status().ToString();
  return shape.ok() ? *shape : ModelShape{};
}

struct Exact {
  const char* file;
  std::int64_t total;   // the checkpoint's own count (index.json total_params, exact kinds)
  double kv_per_token;  // 16-bit KV cache, bytes per token, by hand
};

class ExactCount : public ::testing::TestWithParam<Exact> {};

TEST_P(ExactCount, MatchesTheCheckpointToTheParameter) {
  const Exact& e = GetParam();
  ModelShape shape = Load(e.file);
  ParamCount c = CountParameters(shape);
  EXPECT_EQ(c.total, e.total) << e.file;
  EXPECT_DOUBLE_EQ(KvBytesPerToken(shape, 2.0), e.kv_per_token) << e.file;
  EXPECT_EQ(c.embedding + c.attention + c.mlp + c.router + c.norms + c.lm_head + c.pooler + c.vision, c.total);
}

INSTANTIATE_TEST_SUITE_P(
    RealConfigs, ExactCount,
    ::testing::Values(
        // RefinedWebModel, multi_query: 1 KV head of 4544/71 = 64: 2 x 32 x 1 x 64 x 2 = 8,192.
        Exact{"tiiuae--falcon-7b.config.json", 7217189760, 8192},
        // RefinedWeb (new decoder architecture), n_head_kv 8, d 64: 2 x 60 x 8 x 64 x 2 = 122,880.
        Exact{"tiiuae--falcon-40b.config.json", 41835970560, 122880},
        // falcon, num_kv_heads 8, d 14848/232 = 64: 2 x 80 x 8 x 64 x 2 = 163,840.
        Exact{"tiiuae--falcon-180b-chat.config.json", 179522565120, 163840},
        // 2 x 32 x 8 x 128 x 2 = 131,072.
        Exact{"meta-llama--llama-3.1-8b.config.json", 8030261248, 131072},
        // 2 x 80 x 8 x 128 x 2 = 327,680.
        Exact{"meta-llama--llama-3.1-70b.config.json", 70553706496, 327680},
        // 2 x 32 x 32 x 128 x 2 = 524,288.
        Exact{"meta-llama--llama-2-7b-hf.config.json", 6738415616, 524288},
        // llama layout, vocab 32008: 2 x 32 x 32 x 128 x 2 = 524,288.
        Exact{"instructlab--granite-7b-lab.config.json", 6738481152, 524288},
        // mistral, head_dim 128 given (5120 / 32 = 160 would be wrong): 2 x 40 x 8 x 128 x 2 = 163,840.
        Exact{"mistralai--devstral-small-2507.config.json", 23572403200, 163840},
        // 2 x 32 x 8 x 128 x 2 = 131,072 (before the 4096-token window caps a sequence).
        Exact{"mistralai--mistral-7b-v0.1-resharded-fp32.config.json", 7241732096, 131072},
        // MLA: 27 x (512 + 64) x 2 = 31,104; 1 dense + 26 MoE layers (64 routed + 2 shared).
        Exact{"deepseek-ai--deepseek-v2-lite-chat.config.json", 15706484224, 31104},
        // MQA, head_dim 256: 2 x 18 x 1 x 256 x 2 = 18,432.
        Exact{"google--gemma-2b-it.config.json", 2506172416, 18432},
        // 2 x 26 x 4 x 256 x 2 = 106,496 (half the layers later capped at 4096 tokens).
        Exact{"google--gemma-2-2b-it.config.json", 2614341888, 106496},
        // decoder + SigLIP tower (27 layers, 1152 wide) + projector; 2 x 62 x 16 x 128 x 2 = 507,904.
        Exact{"google--medgemma-27b-it.config.json", 27432406640, 507904},
        // phi: d 2560/32 = 80: 2 x 32 x 32 x 80 x 2 = 327,680.
        Exact{"microsoft--phi-2.config.json", 2779683840, 327680},
        // d 3072/32 = 96: 2 x 32 x 32 x 96 x 2 = 393,216.
        Exact{"microsoft--phi-3.5-mini-instruct.config.json", 3821079552, 393216},
        // 2 x 12 x 12 x 64 x 2 = 36,864.
        Exact{"openai-community--gpt2.config.json", 124439808, 36864},
        // BertModel (encoder + pooler): 2 x 12 x 12 x 64 x 2 = 36,864.
        Exact{"google-bert--bert-base-uncased.config.json", 109482240, 36864},
        // gpt_neox: 2 x 32 x 32 x 128 x 2 = 524,288.
        Exact{"togethercomputer--redpajama-incite-7b-base.config.json", 6857302016, 524288},
        // internlm2, 8 KV heads: 2 x 32 x 8 x 128 x 2 = 131,072.
        Exact{"internlm--internlm2-chat-7b.config.json", 7737708544, 131072},
        // chatglm, multi_query_group_num 2, kv_channels 128: 2 x 28 x 2 x 128 x 2 = 28,672.
        Exact{"thudm--chatglm3-6b.config.json", 6243584000, 28672},
        // baichuan, MHA: 2 x 40 x 40 x 128 x 2 = 819,200.
        Exact{"baichuan-inc--baichuan2-13b-chat.config.json", 13896668160, 819200},
        // stablelm_epoch: 2 x 32 x 32 x 80 x 2 = 327,680.
        Exact{"stabilityai--stable-code-3b.config.json", 2795443200, 327680}));

// Model cards round: a card's "3.3B" stands for any count that rounds or truncates to it at
// the card's last digit, i.e. [X - unit/2, X + unit). 0.1% cannot be checked against a
// two-digit figure; this interval is the tightest statement the card supports.
bool CardAgrees(double ours, double card, double unit) { return ours >= card - unit / 2 && ours < card + unit; }

struct Card {
  const char* file;
  double total, total_unit;
  double active, active_unit;   // 0: not a MoE
  bool active_excludes_embedding;  // DeepSeek-V2-Lite's card counts without the input embedding
  double kv_per_token;
};

class CardCount : public ::testing::TestWithParam<Card> {};

TEST_P(CardCount, AgreesWithTheRoundedCardFigures) {
  const Card& e = GetParam();
  ModelShape shape = Load(e.file);
  ParamCount c = CountParameters(shape);
  EXPECT_TRUE(CardAgrees(static_cast<double>(c.total), e.total, e.total_unit)) << e.file << " total " << c.total;
  if (e.active > 0) {
    double active = static_cast<double>(e.active_excludes_embedding ? c.active - c.embedding : c.active);
    EXPECT_TRUE(CardAgrees(active, e.active, e.active_unit)) << e.file << " active " << active;
    EXPECT_LT(c.active, c.total);
  }
  EXPECT_DOUBLE_EQ(KvBytesPerToken(shape, 2.0), e.kv_per_token) << e.file;
}

INSTANTIATE_TEST_SUITE_P(
    RealConfigs, CardCount,
    ::testing::Values(
        // "30.5B in total and 3.3B activated": 30,532,122,624 and 3,353,032,704. 2 x 48 x 4 x 128 x 2 = 98,304.
        Card{"qwen--qwen3-30b-a3b.config.json", 30.5e9, 0.1e9, 3.3e9, 0.1e9, false, 98304},
        Card{"qwen--qwen3-30b-a3b-fp8.config.json", 30.5e9, 0.1e9, 3.3e9, 0.1e9, false, 98304},
        // 235B / 22B: 2 x 94 x 4 x 128 x 2 = 192,512.
        Card{"qwen--qwen3-235b-a22b.config.json", 235e9, 1e9, 22e9, 1e9, false, 192512},
        // 8.2B: 2 x 36 x 8 x 128 x 2 = 147,456.
        Card{"qwen--qwen3-8b.config.json", 8.2e9, 0.1e9, 0, 0, false, 147456},
        // 0.6B: 2 x 28 x 8 x 128 x 2 = 114,688.
        Card{"qwen--qwen3-0.6b.config.json", 0.6e9, 0.1e9, 0, 0, false, 114688},
        // 46.7B / 12.9B: 2 x 32 x 8 x 128 x 2 = 131,072.
        Card{"mistralai--mixtral-8x7b-v0.1.config.json", 46.7e9, 0.1e9, 12.9e9, 0.1e9, false, 131072},
        // 141B / 39B: 2 x 56 x 8 x 128 x 2 = 229,376.
        Card{"mistralai--mixtral-8x22b-v0.1.config.json", 141e9, 1e9, 39e9, 1e9, false, 229376},
        // 671B main model / 37B activated; MLA 61 x (512 + 64) x 2 = 70,272.
        Card{"deepseek-ai--deepseek-v3-base.config.json", 671e9, 1e9, 37e9, 1e9, false, 70272},
        Card{"deepseek-ai--deepseek-r1.config.json", 671e9, 1e9, 37e9, 1e9, false, 70272},
        // 15.7B / "2.4B activated" (counted without the input embedding: 2,451,435,008).
        Card{"deepseek-ai--deepseek-v2-lite-chat.config.json", 15.7e9, 0.1e9, 2.4e9, 0.1e9, true, 31104},
        // 1.3B / 400M: 2 x 24 x 8 x 64 x 2 = 49,152.
        Card{"ibm-granite--granite-3.1-1b-a400m-instruct.config.json", 1.3e9, 0.1e9, 400e6, 100e6, false, 49152},
        // Phi-tiny-MoE "3.8B total, 1.1B activated": 3,755,220,288; active without the input
        // embedding 1,157,635,392 (1,288,969,536 with it). 2 x 32 x 4 x 128 x 2 = 65,536.
        Card{"microsoft--phi-tiny-moe-instruct.config.json", 3.8e9, 0.1e9, 1.1e9, 0.1e9, true, 65536},
        // Qwen2.5-7B "7.61B": 2 x 28 x 4 x 128 x 2 = 57,344.
        Card{"qwen--qwen2.5-7b.config.json", 7.61e9, 0.01e9, 0, 0, false, 57344}));

struct Synthetic {
  const char* file;
  double total, total_unit, active, active_unit;
  double kv_per_token;
};

class SyntheticFamily : public ::testing::TestWithParam<Synthetic> {};

// Families with no public config copy: synthetic configs carrying the published values
// (tests/fixtures/configs/index.json, synthetic_files), against the model cards' figures.
TEST_P(SyntheticFamily, AgreesWithTheCard) {
  const Synthetic& e = GetParam();
  ModelShape shape = Load(e.file);
  ParamCount c = CountParameters(shape);
  EXPECT_TRUE(CardAgrees(static_cast<double>(c.total), e.total, e.total_unit)) << e.file << " total " << c.total;
  if (e.active > 0) {
    EXPECT_TRUE(CardAgrees(static_cast<double>(c.active), e.active, e.active_unit)) << e.file << " active " << c.active;
  }
  EXPECT_DOUBLE_EQ(KvBytesPerToken(shape, 2.0), e.kv_per_token) << e.file;
}

INSTANTIATE_TEST_SUITE_P(
    Families, SyntheticFamily,
    ::testing::Values(
        // Qwen1.5-MoE-A2.7B 14.3B / 2.7B; 2 x 24 x 16 x 128 x 2 = 196,608.
        Synthetic{"synthetic-qwen2-moe.json", 14.3e9, 0.1e9, 2.7e9, 0.1e9, 196608},
        // OLMoE-1B-7B 6.9B / 1.3B; 2 x 16 x 16 x 128 x 2 = 131,072.
        Synthetic{"synthetic-olmoe.json", 6.9e9, 0.1e9, 1.3e9, 0.1e9, 131072},
        // OLMo-7B 6.9B; 2 x 32 x 32 x 128 x 2 = 524,288.
        Synthetic{"synthetic-olmo.json", 6.9e9, 0.1e9, 0, 0, 524288},
        // OLMo-2-7B 7.3B; 524,288.
        Synthetic{"synthetic-olmo2.json", 7.3e9, 0.1e9, 0, 0, 524288},
        // SantaCoder 1.1B, multi-query: 2 x 24 x 1 x 128 x 2 = 12,288.
        Synthetic{"synthetic-gpt-bigcode.json", 1.1e9, 0.1e9, 0, 0, 12288},
        // StarCoder2-3B 3B: 2 x 30 x 2 x 128 x 2 = 30,720.
        Synthetic{"synthetic-starcoder2.json", 3e9, 1e9, 0, 0, 30720},
        // Command R 35B: 2 x 40 x 64 x 128 x 2 = 1,310,720.
        Synthetic{"synthetic-cohere.json", 35e9, 1e9, 0, 0, 1310720},
        // MiniCPM-2B 2.7B with embeddings: 2 x 40 x 36 x 64 x 2 = 368,640.
        Synthetic{"synthetic-minicpm.json", 2.7e9, 0.1e9, 0, 0, 368640},
        // Granite-3.0-2B 2.5B: 2 x 40 x 8 x 64 x 2 = 81,920.
        Synthetic{"synthetic-granite.json", 2.5e9, 0.1e9, 0, 0, 81920},
        // StableLM-2-1.6B 1.6B: 2 x 24 x 32 x 64 x 2 = 196,608.
        Synthetic{"synthetic-stablelm.json", 1.6e9, 0.1e9, 0, 0, 196608},
        // GLM-4-9B 9.4B: 2 x 40 x 2 x 128 x 2 = 40,960.
        Synthetic{"synthetic-glm.json", 9.4e9, 0.1e9, 0, 0, 40960},
        // mamba-130m: no per-token cache.
        Synthetic{"synthetic-mamba.json", 130e6, 10e6, 0, 0, 0},
        // Mamba-Codestral 7.3B: no per-token cache.
        Synthetic{"synthetic-mamba2.json", 7.3e9, 0.1e9, 0, 0, 0},
        // Jamba-v0.1 52B / 12B; attention on 4 of 32 layers: 2 x 4 x 8 x 128 x 2 = 16,384.
        Synthetic{"synthetic-jamba.json", 52e9, 1e9, 12e9, 1e9, 16384}));

TEST(Families, MambaCodestralMatchesItsPublishedCountExactly) {
  // Mamba-Codestral-7B-v0.1's card: 7,285,403,648 parameters.
  EXPECT_EQ(CountParameters(Load("synthetic-mamba2.json")).total, 7285403648);
}

TEST(Families, MambaLayersHoldAFixedStatePerSequence) {
  ModelShape mamba = Load("synthetic-mamba.json");
  // vLLM's state: (conv_kernel - 1) x 1536 + 1536 x 16 = 29,184 elements per layer, 24 layers, 2 B.
  double one = KvCacheBytes(mamba, 2, 2, 1000, 1);
  EXPECT_DOUBLE_EQ(one, 24.0 * (3 * 1536 + 1536 * 16) * 2);
  EXPECT_DOUBLE_EQ(KvCacheBytes(mamba, 2, 2, 100000, 1), one) << "the state does not grow with the context";
}

TEST(Families, DeepSeekV3CountsTheMtpModuleApartAndLayersByKind) {
  ModelShape v3 = Load("deepseek-ai--deepseek-v3-base.config.json");
  ParamCount c = CountParameters(v3);
  // 671B main model; the checkpoint also stores the MTP layer with its own embedding and head
  // copies (DeepSeek: 685B on the Hub, which also counts ~0.04B of fp8 scale tensors).
  EXPECT_TRUE(CardAgrees(static_cast<double>(c.total), 671e9, 1e9));
  EXPECT_GT(c.mtp, 13e9);
  EXPECT_LT(c.mtp, 14e9);
  EXPECT_EQ(c.checkpoint_total, c.total + c.mtp);
  int dense = 0, moe = 0;
  for (const auto& l : v3.layers) (l.experts > 0 ? moe : dense)++;
  EXPECT_EQ(dense, 3) << "first_k_dense_replace";
  EXPECT_EQ(moe, 58);
  ASSERT_TRUE(v3.quant.has_value());
  EXPECT_EQ(v3.quant->method, "fp8");
  EXPECT_DOUBLE_EQ(v3.quant->BytesPerWeight(), (8 + 32.0 / (128 * 128)) / 8);
}

TEST(Families, Gemma3WindowsFollowLayerTypesAndCapTheCache) {
  ModelShape g = Load("google--medgemma-27b-it.config.json");
  int sliding = 0;
  for (const auto& l : g.layers) sliding += l.mixer == MixerKind::kSlidingAttention;
  EXPECT_EQ(sliding, 52) << "62 layers, one global layer in six";
  // At 32k tokens: 10 global layers keep 32768 tokens, 52 local layers 1024.
  double per_layer_token = 2.0 * 16 * 128 * 2;
  EXPECT_DOUBLE_EQ(KvCacheBytes(g, 2, 2, 32768, 1), per_layer_token * (10 * 32768.0 + 52 * 1024.0));
}

TEST(Families, Qwen2MoeSharedExpertAndGateAreActive) {
  ModelShape q = Load("synthetic-qwen2-moe.json");
  const LayerShape& l = q.layers.front();
  EXPECT_EQ(l.experts, 60);
  EXPECT_DOUBLE_EQ(l.shared_expert_params, 3.0 * 2048 * 5632 + 2048) << "shared expert + its sigmoid gate";
  EXPECT_DOUBLE_EQ(l.router_params, 2048.0 * 60);
}

TEST(Families, Qwen3MoeMlpOnlyLayersStayDense) {
  std::string text = ReadFixture("configs/qwen--qwen3-30b-a3b.config.json");
  text.replace(text.find("\"mlp_only_layers\": []"), 21, "\"mlp_only_layers\": [0, 47]");
  auto shape = ParseHfConfig(text, "q.json");
  ASSERT_TRUE(shape.ok()) << shape.status().ToString();
  EXPECT_EQ(shape->layers[0].experts, 0);
  EXPECT_DOUBLE_EQ(shape->layers[0].dense_mlp_params, 3.0 * 2048 * 6144);
  EXPECT_EQ(shape->layers[1].experts, 128);
  EXPECT_EQ(shape->layers[47].experts, 0);
}

TEST(Families, UnknownTypeWithLlamaFieldsIsAGenericDecoderThatSaysWhatItAssumed) {
  const char* config = R"({"model_type": "my_llama", "hidden_size": 1024, "num_hidden_layers": 2,
    "num_attention_heads": 8, "intermediate_size": 4096, "vocab_size": 1000})";
  auto shape = ParseHfConfig(config, "mine.json");
  ASSERT_TRUE(shape.ok()) << shape.status().ToString();
  EXPECT_EQ(shape->family, "generic");
  ASSERT_EQ(shape->notes.size(), 1u);
  EXPECT_EQ(shape->notes[0].id, "generic_decoder");
  EXPECT_NE(shape->notes[0].detail.find("num_key_value_heads"), std::string::npos);
  EXPECT_EQ(CountParameters(*shape).total, 1000 * 1024 * 2 + 2 * (4 * 1024 * 1024 + 3 * 1024 * 4096 + 2 * 1024) + 1024);
}

TEST(Families, GenericDecoderRefusesExpertsItCannotPlace) {
  auto shape = ParseHfConfig(ReadFixture("configs/cyankiwi--gemma-4-26b-a4b-it-awq.config.json"), "g4.json");
  ASSERT_FALSE(shape.ok());
  EXPECT_NE(shape.status().message().find("text_config.num_experts"), std::string::npos) << shape.status().message();
  EXPECT_NE(shape.status().message().find("gemma4_text"), std::string::npos);
}

TEST(Families, PartialVisionConfigIsNotCountedAndSaysSo) {
  auto shape = ParseHfConfig(ReadFixture("hf_configs/llava-1.5-7b.json"), "llava.json");
  ASSERT_TRUE(shape.ok());
  ASSERT_FALSE(shape->notes.empty());
  EXPECT_EQ(shape->notes[0].id, "vision_not_counted");
  EXPECT_NE(shape->notes[0].detail.find("intermediate_size"), std::string::npos);
}

TEST(Families, QuantizationConfigsGiveBytesPerWeight) {
  ModelShape gptq = Load("thebloke--llama-2-13b-chat-gptq.config.json");
  ASSERT_TRUE(gptq.quant.has_value());
  // 4 bits + (16-bit scale + 4-bit zero) per 128 weights.
  EXPECT_DOUBLE_EQ(gptq.quant->BytesPerWeight(), (4 + 20.0 / 128) / 8);
  ModelShape nf4 = Load("reubzdubz--molmo-7b-d-0924-nf4.config.json");
  ASSERT_TRUE(nf4.quant.has_value());
  EXPECT_EQ(nf4.quant->method, "bitsandbytes");
  ModelShape mlx = Load("roshinpv--qwen2.5-14b-mlx-3bit.config.json");
  ASSERT_TRUE(mlx.quant.has_value());
  EXPECT_EQ(mlx.quant->method, "mlx");
  EXPECT_TRUE(mlx.quant->embeddings_quantized);
  EXPECT_DOUBLE_EQ(mlx.quant->bits, 3);
}

TEST(Families, QuantizationConfigKindsAreRead) {
  auto quant = [](const std::string& q) {
    std::string config = R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 1,
      "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 10, "quantization_config": )" + q + "}";
    auto shape = ParseHfConfig(config, "q.json");
    EXPECT_TRUE(shape.ok()) << shape.status().ToString();
    return shape.ok() && shape->quant ? *shape->quant : WeightQuant{};
  };
  // AutoAWQ: w_bit 4, q_group_size 128, fp16 scale + 4-bit zero per group.
  WeightQuant awq = quant(R"({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": true})");
  EXPECT_DOUBLE_EQ(awq.BytesPerWeight(), (4 + 20.0 / 128) / 8);
  // compressed-tensors, symmetric int4 groups of 32 (no zero point): 4 + 16 / 32 bits.
  WeightQuant ct = quant(R"({"quant_method": "compressed-tensors", "format": "pack-quantized", "config_groups":
    {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int", "strategy": "group",
    "group_size": 32, "symmetric": true}}}})");
  EXPECT_DOUBLE_EQ(ct.BytesPerWeight(), (4 + 16.0 / 32) / 8);
  WeightQuant int8 = quant(R"({"quant_method": "bitsandbytes", "load_in_8bit": true})");
  EXPECT_DOUBLE_EQ(int8.BytesPerWeight(), 1.0);
  WeightQuant nf4dq = quant(R"({"quant_method": "bitsandbytes", "load_in_4bit": true, "bnb_4bit_use_double_quant": true})");
  EXPECT_DOUBLE_EQ(nf4dq.BytesPerWeight(), 4.127 / 8);
  WeightQuant fp8 = quant(R"({"quant_method": "fp8", "activation_scheme": "dynamic"})");
  EXPECT_DOUBLE_EQ(fp8.BytesPerWeight(), 1.0);
  // compressed-tensors NVFP4 (nvfp4-pack-quantized): e2m1 values, an fp8 scale per 16.
  WeightQuant ct4 = quant(R"({"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized", "config_groups":
    {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "float", "strategy": "tensor_group",
    "group_size": 16, "symmetric": true}}}, "ignore": ["lm_head"]})");
  EXPECT_DOUBLE_EQ(ct4.BytesPerWeight(), (4 + 8.0 / 16) / 8);
  // ModelOpt writes the format in quant_algo.
  WeightQuant nvfp4 = quant(R"({"quant_method": "modelopt", "quant_algo": "NVFP4", "config_groups":
    {"group_0": {"weights": {"num_bits": 4, "type": "float", "group_size": 16}}}})");
  EXPECT_DOUBLE_EQ(nvfp4.BytesPerWeight(), (4 + 8.0 / 16) / 8);
  WeightQuant mo_fp8 = quant(R"({"quant_method": "modelopt", "quant_algo": "FP8"})");
  EXPECT_DOUBLE_EQ(mo_fp8.BytesPerWeight(), 1.0);
  WeightQuant mo_new = quant(R"({"quant_method": "modelopt", "quant_algo": "W2A2_FUTURE"})");
  EXPECT_EQ(mo_new.method, "unknown:modelopt W2A2_FUTURE") << "said, not guessed";
  // gpt-oss's MXFP4: e2m1 values, an e8m0 scale per 32.
  WeightQuant mx = quant(R"({"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn"]})");
  EXPECT_DOUBLE_EQ(mx.BytesPerWeight(), (4 + 8.0 / 32) / 8);
  EXPECT_TRUE(QuantKept::Covers(mx.kept.attention, 0));
  WeightQuant unknown = quant(R"({"quant_method": "hqq", "nbits": 4})");
  EXPECT_EQ(unknown.method, "unknown:hqq") << "said, not guessed";
}

TEST(Families, EveryTableEntryHasARecipeThatRuns) {
  EXPECT_GE(SupportedModelTypes().size(), 40u);
}

// One row per family: each architecture class name finds the row that lists it (no row's
// prefix shadows another's), and every row's recipe is reachable by its model_type.
TEST(FamilyTable, EachArchitectureFindsItsOwnRow) {
  for (const auto& entry : families::FamilyTable()) {
    EXPECT_EQ(families::FindFamily(entry.model_type)->recipe, entry.recipe) << entry.model_type;
    for (const char* prefix : entry.architectures) {
      EXPECT_EQ(families::ModelTypeFromArchitecture(std::string(prefix) + "CausalLM"), entry.model_type) << prefix;
    }
  }
  EXPECT_EQ(families::ModelTypeFromArchitecture("RWForCausalLM"), "falcon");
  EXPECT_EQ(families::ModelTypeFromArchitecture("Qwen2MoeForCausalLM"), "qwen2_moe");
  EXPECT_EQ(families::ModelTypeFromArchitecture("T5ForConditionalGeneration"), "");
}

}  // namespace
}  // namespace gpuprobe::model
