// The expression and layer-rule language of the generated model-structure data: the C++
// evaluator must agree with the generator's reference evaluator (tools/hf_oracle/expr.py and
// template.py); these are the cases of tools/hf_oracle/test_expr.py, plus the hostile ones.
#include <gtest/gtest.h>

#include "model/hf_config_env.h"
#include "model/hf_expression.h"
#include "model/hf_structure.h"

namespace gpuprobe::model {
namespace {

using nlohmann::json;

ConfigValues Env() {
  ConfigValues v;
  json j = json::parse(R"({"hidden_size": 4096, "num_attention_heads": 32, "text_config.head_dim": 128, "a": 7,
    "b": 2, "tie_word_embeddings": false, "attention_bias": true, "layer_types": ["sliding", "full", "sliding"],
    "pattern": "M*-", "mlp_only_layers": [1], "first_k_dense_replace": 3, "k": null, "s": "gated-gelu",
    "f": 11008.0, "half": 0.5})");
  for (auto& [key, value] : j.items()) v.Set(key, value);
  return v;
}

TEST(HfExpression, IntegerExpressionsAgreeWithTheReference) {
  const ConfigValues env = Env();
  const std::pair<const char*, std::int64_t> cases[] = {
      {"hidden_size // num_attention_heads", 128}, {"2 * text_config.head_dim * num_attention_heads", 8192},
      {"a // b", 3}, {"-a // b", -4}, {"ceil_div(a, b)", 4}, {"min(a, b) + max(a, b)", 9}, {"a - b - 1", 4},
      {"(a - b) * 3", 15}, {"len(layer_types)", 3}, {"len(pattern) * 2", 6}, {"f", 11008}, {"42", 42}};
  for (const auto& [expr, want] : cases) {
    auto got = EvalIntExpression(expr, env);
    ASSERT_TRUE(got.ok()) << expr << ": " << got.status().message();
    EXPECT_EQ(*got, want) << expr;
  }
}

TEST(HfExpression, ConditionsAgreeWithTheReference) {
  const ConfigValues env = Env();
  const std::pair<const char*, bool> cases[] = {
      {"!tie_word_embeddings", true}, {"attention_bias && !tie_word_embeddings", true},
      {"tie_word_embeddings || attention_bias", true}, {"k == null", true}, {"k != null", false},
      {"missing", false}, {"!missing", true}, {"s == \"gated-gelu\"", true}, {"a == 7", true},
      {"hidden_size != num_attention_heads", true}, {"a == b", false}, {"", true}, {"(a == 7) && !(b == 7)", true}};
  for (const auto& [cond, want] : cases) {
    auto got = EvalCondition(cond, env);
    ASSERT_TRUE(got.ok()) << cond << ": " << got.status().message();
    EXPECT_EQ(*got, want) << cond;
  }
}

TEST(HfExpression, WhatCannotBeEvaluatedIsAnErrorNamingTheExpression) {
  const ConfigValues env = Env();
  for (const char* bad : {"missing + 1", "tie_word_embeddings * 2", "a //", "a // 0", "half * 2", "k + 1", "a $ b",
                          "99999999999999999999", "hidden_size * hidden_size * hidden_size * hidden_size * hidden_size * hidden_size",
                          "len(a)", "ceil_div(a, 0)", "(a", "a b"}) {
    auto got = EvalIntExpression(bad, env);
    ASSERT_FALSE(got.ok()) << bad;
    EXPECT_NE(got.status().message().find("expression '"), std::string::npos) << got.status().message();
  }
  EXPECT_FALSE(EvalCondition("a ==", env).ok());
  EXPECT_FALSE(EvalCondition("\"open", env).ok());
}

std::vector<std::string> Kinds(const json& rule, int n, const ConfigValues& env) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    auto k = LayerKind(rule, i, n, env);
    out.push_back(k.ok() ? *k : "error: " + k.status().message());
  }
  return out;
}

TEST(HfExpression, LayerRulesAgreeWithTheReference) {
  const ConfigValues env = Env();
  using V = std::vector<std::string>;
  EXPECT_EQ(Kinds(json::parse(R"({"rule":"period","period":"3","offset":"3 - 1","match":"F","other":"S"})"), 6, env),
            (V{"S", "S", "F", "S", "S", "F"}));
  EXPECT_EQ(Kinds(json::parse(R"({"rule":"first_k","key":"first_k_dense_replace","first":"d","rest":"m"})"), 6, env),
            (V{"d", "d", "d", "m", "m", "m"}));
  EXPECT_EQ(Kinds(json::parse(R"({"rule":"period","period":"1","offset":"0","match":"moe","other":"mlp",
                                  "except":{"key":"mlp_only_layers","kind":"mlp"}})"), 3, env),
            (V{"moe", "mlp", "moe"}));
  EXPECT_EQ(Kinds(json::parse(R"({"rule":"string","key":"pattern","map":{"M":"mamba","*":"attn","-":"mlp"}})"), 3, env),
            (V{"mamba", "attn", "mlp"}));
  EXPECT_EQ(Kinds(json::parse(R"({"rule":"indices","key":"mlp_only_layers","in":"x","out":"y"})"), 3, env),
            (V{"y", "x", "y"}));
  EXPECT_EQ(Kinds(json::parse(R"({"rule":"list","key":"layer_types","map":{"sliding":"s","full":"f"}})"), 3, env),
            (V{"s", "f", "s"}));
  EXPECT_EQ(Kinds(json::parse(R"({"rule":"list","key":"nope","map":{},"fallback":{"rule":"all","kind":"z"}})"), 1, env),
            (V{"z"}));
}

TEST(HfExpression, ALayerPatternThatDoesNotFitTheConfigIsAnError) {
  const ConfigValues env = Env();
  auto list = LayerKind(json::parse(R"({"rule":"list","key":"layer_types","map":{"sliding":"s","full":"f"}})"), 3, 4, env);
  ASSERT_FALSE(list.ok());
  EXPECT_NE(list.status().message().find("each of the 4 layers"), std::string::npos);
  auto unknown = LayerKind(json::parse(R"({"rule":"string","key":"pattern","map":{"M":"m"}})"), 1, 3, env);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("'*'"), std::string::npos);
}

// The config environment: a file's own keys win, aliases resolve both ways, missing keys take
// the class default, and a computed default is derived from this file's keys, not copied.
TEST(HfConfigEnv, DefaultsAliasesAndDerivations) {
  json table = json::parse(R"({"model_types": {"toy": "ToyConfig", "toy_vision": "ToyVisionConfig"},
    "classes": {
      "ToyConfig": {"signature": {"hidden_size": 64, "num_attention_heads": 4, "head_dim": null, "num_experts": 8,
                                  "tie_word_embeddings": true},
                    "post_init": {"head_dim": 16, "num_local_experts": 8},
                    "attribute_map": {"num_experts": "num_local_experts"},
                    "sub_configs": {"vision_config": "toy_vision"},
                    "derived": {"head_dim": "hidden_size // num_attention_heads", "num_local_experts": "num_experts"}},
      "ToyVisionConfig": {"signature": {"hidden_size": 32, "patch_size": 14}, "post_init": {}}}})");
  HfDefaults d = HfDefaults::FromTable(table);
  d.null_derivations = json::parse(R"({"num_key_value_heads": "num_attention_heads"})");
  json config = json::parse(R"({"model_type": "toy", "hidden_size": 128, "num_local_experts": 16})");
  ConfigEnv env = BuildConfigEnv(config, "toy", d);
  EXPECT_EQ(env.config_class, "ToyConfig");
  auto at = [&](const char* key) { return EvalIntExpression(key, env.values); };
  EXPECT_EQ(*at("hidden_size"), 128);
  EXPECT_EQ(*at("head_dim"), 32) << "derived from this file's hidden_size, not the default's 16";
  EXPECT_EQ(*at("num_experts"), 16) << "the alias takes the canonical key's value";
  EXPECT_EQ(*at("num_key_value_heads"), 4);
  EXPECT_EQ(*at("vision_config.patch_size"), 14) << "a left-out tower is the class default";
  EXPECT_TRUE(*EvalCondition("tie_word_embeddings", env.values));
  ASSERT_EQ(env.defaulted_subconfigs.size(), 1u);
  EXPECT_EQ(env.defaulted_subconfigs[0], "vision_config");
}

}  // namespace
}  // namespace gpuprobe::model
