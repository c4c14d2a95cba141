#include "model/hf_config.h"

#include <gtest/gtest.h>

#include "model/dtype.h"
#include "model/fixture.h"

namespace gpuprobe::model {
namespace {

using gpuprobe::testing::ReadFixture;

struct Expected {
  const char* file;
  std::int64_t total;
  std::int64_t active;
  double kv_bytes_per_token_16bit;  // 2 L k d x 2 B
};

class PublishedCount : public ::testing::TestWithParam<Expected> {};

// Published totals (model cards / safetensors metadata without RoPE buffers).
TEST_P(PublishedCount, MatchesExactly) {
  const Expected& e = GetParam();
  auto shape = ParseHfConfig(ReadFixture(std::string("hf_configs/") + e.file), e.file);
  ASSERT_TRUE(shape.ok()) << shape.status().ToString();
  ParamCount count = CountParameters(*shape);
  EXPECT_EQ(count.total, e.total) << e.file;
  EXPECT_EQ(count.active, e.active) << e.file;
  EXPECT_DOUBLE_EQ(KvBytesPerToken(*shape, 2.0), e.kv_bytes_per_token_16bit) << e.file;
  EXPECT_EQ(count.embedding + count.attention + count.mlp + count.router + count.norms + count.lm_head + count.pooler,
            count.total);
}

INSTANTIATE_TEST_SUITE_P(
    Families, PublishedCount,
    ::testing::Values(
        Expected{"llama-2-7b.json", 6738415616, 6738415616, 2.0 * 32 * 32 * 128 * 2},
        Expected{"llama-2-13b.json", 13015864320, 13015864320, 2.0 * 40 * 40 * 128 * 2},
        Expected{"meta-llama-3-8b.json", 8030261248, 8030261248, 2.0 * 32 * 8 * 128 * 2},
        Expected{"llama-3.2-1b.json", 1235814400, 1235814400, 2.0 * 16 * 8 * 64 * 2},
        Expected{"mistral-7b-v0.1.json", 7241732096, 7241732096, 2.0 * 32 * 8 * 128 * 2},
        // Mixtral: active = non-expert weights + 2 of 8 experts (routers counted, they all run).
        Expected{"mixtral-8x7b-v0.1.json", 46702792704, 12879925248, 2.0 * 32 * 8 * 128 * 2},
        Expected{"qwen2-7b.json", 7615616512, 7615616512, 2.0 * 28 * 4 * 128 * 2},
        Expected{"qwen2.5-0.5b.json", 494032768, 494032768, 2.0 * 24 * 2 * 64 * 2},
        // Gemma: head_dim 256 is given and differs from hidden/heads (192 for 7B).
        Expected{"gemma-7b.json", 8537680896, 8537680896, 2.0 * 28 * 16 * 256 * 2},
        Expected{"gemma-2b.json", 2506172416, 2506172416, 2.0 * 18 * 1 * 256 * 2},
        Expected{"gemma-2-9b.json", 9241705984, 9241705984, 2.0 * 42 * 8 * 256 * 2},
        Expected{"phi-3-mini-4k-instruct.json", 3821079552, 3821079552, 2.0 * 32 * 32 * 96 * 2},
        Expected{"gpt2.json", 124439808, 124439808, 2.0 * 12 * 12 * 64 * 2},
        // BERT counted as BertModel (encoder + pooler), the 110M of the model card.
        Expected{"bert-base-uncased.json", 109482240, 109482240, 2.0 * 12 * 12 * 64 * 2},
        // llava: the decoder in text_config is what is counted.
        Expected{"llava-1.5-7b.json", 6738415616 + 2 * 64 * 4096, 6738415616 + 2 * 64 * 4096,
                 2.0 * 32 * 32 * 128 * 2}));

TEST(HfConfig, Llama2WorkedExampleBreaksDownAsPublished) {
  auto shape = ParseHfConfig(ReadFixture("hf_configs/llama-2-7b.json"), "llama-2-7b.json");
  ASSERT_TRUE(shape.ok());
  ParamCount c = CountParameters(*shape);
  EXPECT_EQ(c.embedding, 131072000);
  EXPECT_EQ(c.attention, 32LL * 67108864);
  EXPECT_EQ(c.mlp, 32LL * 135266304);
  EXPECT_EQ(c.norms, 32LL * 8192 + 4096);
  EXPECT_EQ(c.lm_head, 131072000);
  EXPECT_EQ(shape->torch_dtype, "float16");
}

TEST(HfConfig, ReadsFamilyDetails) {
  auto qwen = ParseHfConfig(ReadFixture("hf_configs/qwen2-7b.json"), "q");
  ASSERT_TRUE(qwen.ok());
  EXPECT_TRUE(qwen->qkv_bias);
  EXPECT_FALSE(qwen->o_bias);
  EXPECT_EQ(qwen->sliding_window, 0) << "use_sliding_window: false disables the window";
  auto mistral = ParseHfConfig(ReadFixture("hf_configs/mistral-7b-v0.1.json"), "m");
  ASSERT_TRUE(mistral.ok());
  EXPECT_EQ(mistral->sliding_window, 4096);
  auto gemma2 = ParseHfConfig(ReadFixture("hf_configs/gemma-2-9b.json"), "g");
  ASSERT_TRUE(gemma2.ok());
  EXPECT_EQ(gemma2->norms_per_layer, 4);
  EXPECT_TRUE(gemma2->tied_embeddings) << "gemma ties embeddings when the config does not say";
  auto mixtral = ParseHfConfig(ReadFixture("hf_configs/mixtral-8x7b-v0.1.json"), "x");
  ASSERT_TRUE(mixtral.ok());
  EXPECT_EQ(mixtral->num_experts, 8);
  EXPECT_EQ(mixtral->experts_per_token, 2);
}

TEST(HfConfig, Qwen3AddsQkNormsAndExplicitHeadDim) {
  const char* config = R"({"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 1024,
    "num_hidden_layers": 2, "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
    "intermediate_size": 3072, "vocab_size": 1000, "tie_word_embeddings": true})";
  auto shape = ParseHfConfig(config, "qwen3.json");
  ASSERT_TRUE(shape.ok()) << shape.status().ToString();
  ParamCount c = CountParameters(*shape);
  std::int64_t h = 1024, d = 128;
  std::int64_t attention = h * 16 * d + 2 * h * 8 * d + 16 * d * h;
  std::int64_t per_layer = attention + 3 * h * 3072 + 2 * h + 2 * d;
  EXPECT_EQ(c.total, 1000 * h + 2 * per_layer + h);
}

TEST(HfConfig, LlamaAttentionBiasCoversAllFourProjections) {
  const char* config = R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 1,
    "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 10, "attention_bias": true, "mlp_bias": true})";
  auto shape = ParseHfConfig(config, "tiny.json");
  ASSERT_TRUE(shape.ok()) << shape.status().ToString();
  ParamCount c = CountParameters(*shape);
  EXPECT_EQ(c.attention, 4 * 64 * 64 + 3 * 64 + 64);
  EXPECT_EQ(c.mlp, 3 * 64 * 128 + 2 * 128 + 64);
}

TEST(HfConfig, UnknownTypeWithoutDecoderFieldsIsNamedWithTheSupportedList) {
  const char* config = R"({"architectures": ["T5ForConditionalGeneration"], "model_type": "t5", "d_model": 512})";
  auto shape = ParseHfConfig(config, "t5.json");
  ASSERT_FALSE(shape.ok());
  EXPECT_EQ(shape.status().code(), core::StatusCode::kInvalidArgument);
  const std::string message = shape.status().message();
  EXPECT_NE(message.find("t5.json"), std::string::npos);
  EXPECT_NE(message.find("'t5'"), std::string::npos);
  EXPECT_NE(message.find("T5ForConditionalGeneration"), std::string::npos);
  EXPECT_NE(message.find("hidden_size"), std::string::npos) << "names the first missing decoder field";
  EXPECT_NE(message.find("llama, mistral"), std::string::npos);
  EXPECT_NE(shape.status().hint().find("--params"), std::string::npos);
}

struct BadConfig {
  const char* name;
  const char* json;
  const char* expect_in_message;
};

class RejectsBadConfig : public ::testing::TestWithParam<BadConfig> {};

TEST_P(RejectsBadConfig, WithAMessageNamingFileAndField) {
  const BadConfig& bad = GetParam();
  auto shape = ParseHfConfig(bad.json, "my/config.json");
  ASSERT_FALSE(shape.ok()) << bad.name;
  EXPECT_NE(shape.status().message().find("my/config.json"), std::string::npos) << shape.status().message();
  EXPECT_NE(shape.status().message().find(bad.expect_in_message), std::string::npos)
      << bad.name << ": " << shape.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, RejectsBadConfig,
    ::testing::Values(
        BadConfig{"truncated", R"({"model_type": "llama", "hidden_size": 40)", "not valid JSON"},
        BadConfig{"array", R"([1, 2, 3])", "expected a JSON object"},
        BadConfig{"missing_layers", R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
          "intermediate_size": 11008, "vocab_size": 32000})", "num_hidden_layers"},
        BadConfig{"string_hidden", R"({"model_type": "llama", "hidden_size": "4096", "num_hidden_layers": 32,
          "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 32000})", "'hidden_size' must be a number"},
        BadConfig{"negative", R"({"model_type": "llama", "hidden_size": -4096, "num_hidden_layers": 32,
          "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 32000})", "must be positive"},
        BadConfig{"zero_layers", R"({"model_type": "mistral", "hidden_size": 4096, "num_hidden_layers": 0,
          "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 32000})", "must be positive"},
        BadConfig{"fractional", R"({"model_type": "llama", "hidden_size": 4096.5, "num_hidden_layers": 32,
          "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 32000})", "whole number"},
        BadConfig{"absurd_hidden", R"({"model_type": "llama", "hidden_size": 1e12, "num_hidden_layers": 32,
          "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 32000})", "beyond any real model"},
        BadConfig{"absurd_total", R"({"model_type": "llama", "hidden_size": 1000000, "num_hidden_layers": 90000,
          "num_attention_heads": 1000, "intermediate_size": 9000000, "vocab_size": 32000})", "beyond any real model"},
        BadConfig{"heads_not_dividing", R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
          "num_attention_heads": 30, "intermediate_size": 11008, "vocab_size": 32000})", "does not divide"},
        BadConfig{"kv_heads_not_dividing", R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
          "num_attention_heads": 32, "num_key_value_heads": 5, "intermediate_size": 11008, "vocab_size": 32000})",
          "KV heads"},
        BadConfig{"bool_as_number", R"({"model_type": "gpt2", "n_embd": true, "n_layer": 12, "n_head": 12,
          "n_positions": 1024, "vocab_size": 50257})", "must be a number"},
        BadConfig{"mixtral_without_experts", R"({"model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 32,
          "num_attention_heads": 32, "intermediate_size": 14336, "vocab_size": 32000})", "num_local_experts"},
        BadConfig{"top_k_above_experts", R"({"model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 32,
          "num_attention_heads": 32, "intermediate_size": 14336, "vocab_size": 32000, "num_local_experts": 2,
          "num_experts_per_tok": 4})", "num_experts_per_tok"},
        BadConfig{"bad_tie", R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
          "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 32000, "tie_word_embeddings": "yes"})",
          "tie_word_embeddings"},
        BadConfig{"no_type", R"({"hidden_size": 4096})", "not supported"}));

TEST(ShapeFromParameterCount, AssumesTheNearestReferenceShapeAndSaysSo) {
  auto shape = ShapeFromParameterCount(8e9, {});
  ASSERT_TRUE(shape.ok());
  EXPECT_EQ(shape->num_kv_heads, 8);
  EXPECT_EQ(shape->assumed_reference, "Llama-3-8B");
  EXPECT_EQ(CountParameters(*shape).total, 8000000000LL);
}

TEST(ShapeFromParameterCount, UsesTheGivenDimensions) {
  ShapeFlags flags;
  flags.layers = 40;
  flags.hidden = 5120;
  flags.heads = 40;
  flags.kv_heads = 8;
  auto shape = ShapeFromParameterCount(13e9, flags);
  ASSERT_TRUE(shape.ok());
  EXPECT_TRUE(shape->assumed_reference.empty());
  EXPECT_DOUBLE_EQ(KvBytesPerToken(*shape, 2.0), 2.0 * 40 * 8 * 128 * 2);
}

TEST(ShapeFromParameterCount, RejectsAbsurdCounts) {
  EXPECT_FALSE(ShapeFromParameterCount(10, {}).ok());
  EXPECT_FALSE(ShapeFromParameterCount(1e20, {}).ok());
  ShapeFlags flags;
  flags.hidden = 4096;
  flags.heads = 7;
  EXPECT_FALSE(ShapeFromParameterCount(7e9, flags).ok());
}

}  // namespace
}  // namespace gpuprobe::model
