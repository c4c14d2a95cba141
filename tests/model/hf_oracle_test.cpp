// `plan` held against an oracle that is not ours: transformers itself. Every row of
// tests/fixtures/transformers_oracle/oracle.json is a model type's default config written by
// save_pretrained and the figures transformers gives for it (parameters from a meta-device
// instantiation, the KV cache from real forward passes); real configs of 2025-2026 models with
// transformers' own counts are in tests/fixtures/real_configs_2025 (split by organisation: the
// train part is held exactly, the held-out part is scored). Counting goes through the embedded
// data (data/models/hf) exactly as `plan --model` does.
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/embedded_data.h"
#include "core/json_input.h"
#include "knowledge/embedded_knowledge.h"
#include "model/hf_config.h"
#include "model/hf_template_shape.h"
#include "model/memory_planner.h"
#include "model/model_shape.h"
#include "model/quantization.h"

namespace gpuprobe::model {
namespace {

using nlohmann::json;

std::string Fixture(const std::string& relative) {
  std::ifstream in(std::string(GPUPROBE_FIXTURES_DIR) + "/" + relative, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The embedded data through its one owner, exactly as `plan --model` reads it.
const HfKnowledge& Knowledge() {
  auto k = knowledge::HfModels();
  EXPECT_TRUE(k.ok()) << k.status().message();
  return **k;
}

// json::value() throws when the key holds null; the oracle writes null for "not known".
std::string Str(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}
double Num(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<double>() : 0.0;
}

struct Kv {
  double per_token = 0, state = 0, cross = 0;
};

Kv ShapeKv(const ModelShape& s) {
  Kv kv;
  kv.per_token = KvBytesPerToken(s, 1.0, 1);
  for (const LayerShape& l : s.layers) {
    kv.state += l.ssm_state_elements;
    kv.cross += l.cross_kv_elements;
  }
  return kv;
}

// Every model type whose template the generator validated as exact: transformers' own total at
// the class's default config, and the cache it keeps per token where its forward pass was probed.
TEST(HfOracle, EveryExactTemplateGivesTransformersOwnCount) {
  json oracle = json::parse(Fixture("transformers_oracle/oracle.json"));
  const HfKnowledge& k = Knowledge();
  int rows = 0, exact_templates = 0, counted = 0, kv_rows = 0, kv_exact = 0;
  for (const auto& [type, row] : oracle["rows"].items()) {
    ++rows;
    if (Str(row, "status") != "ok") continue;
    auto entry = k.templates.find(type);
    if (entry == k.templates.end() || Str(*entry, "status") != "exact") continue;
    ++exact_templates;
    if (!row.contains("config") || !row["config"].is_string()) continue;
    std::string label = "transformers_oracle/" + row["config"].get<std::string>();
    auto shape = ParseHfConfig(Fixture(label), label, k);
    if (!shape.ok()) {
      ADD_FAILURE() << type << ": " << shape.status().message();
      continue;
    }
    ParamCount p = CountParameters(*shape);
    EXPECT_EQ(p.total, row["total_params"].get<std::int64_t>()) << type;
    counted += p.total == row["total_params"].get<std::int64_t>();
    if (Str(row, "kv_source") == "forward" && row.contains("kv") && row["kv"].is_array()) {
      ++kv_rows;
      Kv want;
      for (const json& run : row["kv"]) {
        double layers = run["layers"][1].get<double>() - run["layers"][0].get<double>() + 1;
        std::string kind = Str(run, "kind");
        if (kind == "full" || kind == "sliding" || kind == "chunked" || kind == "mla") {
          want.per_token += layers * Num(run, "per_token");
        }
        want.state += layers * Num(run, "state");
        if (run.contains("cross_per_token") && run.contains("source_len") && run["source_len"].is_string()) {
          // The encoder length is read from the config, as the shape does.
          json config = json::parse(Fixture(label));
          std::string key = run["source_len"];
          if (config.contains(key) && config[key].is_number()) want.cross += layers * Num(run, "cross_per_token") * config[key].get<double>();
        }
      }
      Kv got = ShapeKv(*shape);
      bool same = got.per_token == want.per_token && got.state == want.state && got.cross == want.cross;
      EXPECT_TRUE(same) << type << ": KV per token " << got.per_token << " (oracle " << want.per_token << "), state "
                        << got.state << " (" << want.state << "), cross " << got.cross << " (" << want.cross << ")";
      kv_exact += same;
    }
  }
  std::cout << "transformers oracle: " << rows << " model types, " << exact_templates << " exact templates, "
            << counted << " counted exactly; KV probed " << kv_rows << ", exact " << kv_exact << "\n";
  EXPECT_GT(exact_templates, 150);
}

// Real configs of 2025-2026 models, with transformers' own counts (oracle.py beside them).
TEST(HfOracle, RealConfigsCountAsTransformersDoes) {
  json index = json::parse(Fixture("real_configs_2025/index.json"));
  const HfKnowledge& k = Knowledge();
  int train = 0, train_exact = 0, held = 0, held_exact = 0;
  for (const json& c : index["configs"]) {
    const json& o = c["oracle"];
    if (Str(o, "status") != "ok" || !o.contains("total_params") || !o["total_params"].is_number()) continue;
    std::string label = "real_configs_2025/" + c["file"].get<std::string>();
    auto shape = ParseHfConfig(Fixture(label), label, k);
    bool exact = shape.ok() && CountParameters(*shape).total == o["total_params"].get<std::int64_t>();
    if (c["split"] == "train") {
      ++train;
      train_exact += exact;
    } else {
      ++held;
      held_exact += exact;
    }
  }
  std::cout << "real configs: train " << train_exact << "/" << train << " exact, held-out " << held_exact << "/" << held
            << " exact\n";
  EXPECT_GT(train, 20);
}

// Quantised checkpoints weigh what their publishers say: the weights component from config.json
// alone (quantization_config and its ignore list), against a published checkpoint size.
TEST(HfOracle, QuantisedCheckpointsWeighWhatThePublisherSays) {
  const HfKnowledge& k = Knowledge();
  // gpt-oss model card (OpenAI, 2025-08, arXiv:2508.10925, Table 1; the figures as quoted at
  // https://www.fitmygpu.com/models/gpt-oss-120b and .../gpt-oss-20b): checkpoint 60.8 GiB and
  // 12.8 GiB, MXFP4 experts (e2m1 + an e8m0 scale per 32) and everything else bf16.
  struct Published {
    const char* file;
    double gib;
  };
  for (const Published& want : {Published{"openai--gpt-oss-120b.config.json", 60.8}, Published{"openai--gpt-oss-20b.config.json", 12.8}}) {
    std::string label = std::string("real_configs_2025/") + want.file;
    auto shape = ParseHfConfig(Fixture(label), label, k);
    ASSERT_TRUE(shape.ok()) << shape.status().ToString();
    ASSERT_TRUE(shape->quant.has_value()) << label;
    EXPECT_EQ(shape->quant->method, "mxfp4");
    Job job;
    job.weight_quant = shape->quant;
    auto memory = PlanMemory(*shape, job);
    ASSERT_TRUE(memory.ok()) << memory.status().ToString();
    EXPECT_NEAR(memory->weight_bytes_total / (1024.0 * 1024 * 1024), want.gib, 0.05) << label;
  }
}

// ModelOpt NVFP4 checkpoints: 4-bit e2m1 with an fp8 scale per 16 (4.5 bits), and what the
// ignore list keeps in 16 bits read by meaning (attention of every layer, a whole first layer,
// shared experts, the vision tower).
TEST(HfOracle, Nvfp4IgnoreListsKeepWhatTheyName) {
  const HfKnowledge& k = Knowledge();
  for (const char* file : {"nvidia--MiniMax-M2.5-NVFP4.config.json", "nvidia--Kimi-K2.6-NVFP4.config.json",
                           "nvidia--Gemma-4-31B-IT-NVFP4.config.json"}) {
    std::string label = std::string("real_configs_2025/") + file;
    auto shape = ParseHfConfig(Fixture(label), label, k);
    ASSERT_TRUE(shape.ok()) << shape.status().ToString();
    ASSERT_TRUE(shape->quant.has_value()) << label;
    const WeightQuant& q = *shape->quant;
    EXPECT_EQ(q.method, "modelopt") << label;
    EXPECT_DOUBLE_EQ(q.BytesPerWeight(), 4.5 / 8) << label;
    EXPECT_EQ(q.kept.unread, 0) << label;
    ParamCount count = CountParameters(*shape);
    QuantSplit split = SplitForQuant(*shape, count, q);
    EXPECT_DOUBLE_EQ(split.quantized + split.kept, static_cast<double>(count.total)) << label;
    // Attention is listed layer by layer in all three: every mixer stays 16-bit.
    EXPECT_GE(split.kept, static_cast<double>(count.kept_16bit + count.attention) - 1) << label;
  }
  auto kimi = ParseHfConfig(Fixture("real_configs_2025/nvidia--Kimi-K2.6-NVFP4.config.json"), "kimi", k);
  ASSERT_TRUE(kimi.ok());
  const QuantKept& kept = kimi->quant->kept;
  EXPECT_TRUE(QuantKept::Covers(kept.layers, 0));
  EXPECT_FALSE(QuantKept::Covers(kept.layers, 1));
  EXPECT_TRUE(QuantKept::Covers(kept.shared, 1));
  EXPECT_TRUE(kept.towers);
}

// Ignore patterns are read by what they name, whatever their spelling.
TEST(HfOracle, IgnorePatternsAreReadByMeaning) {
  auto kept = [](const std::string& list) {
    std::string config = R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 12,
      "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 10,
      "quantization_config": {"quant_method": "mxfp4", "modules_to_not_convert": )" + list + "}}";
    auto shape = ParseHfConfig(config, "q.json");
    EXPECT_TRUE(shape.ok()) << shape.status().ToString();
    return shape.ok() && shape->quant ? shape->quant->kept : QuantKept{};
  };
  QuantKept a = kept(R"(["re:.*self_attn.*", "model.layers.*.mlp.gate", "lm_head"])");
  EXPECT_TRUE(QuantKept::Covers(a.attention, 7));
  EXPECT_TRUE(a.mlp.empty()) << "a router (mlp.gate) is not the MLP";
  EXPECT_EQ(a.unread, 0);
  QuantKept b = kept(R"(["model.layers.1*", "model.layers.3.mlp.gate_proj", "model.visual.blocks.0"])");
  EXPECT_TRUE(QuantKept::Covers(b.layers, 1));
  EXPECT_TRUE(QuantKept::Covers(b.layers, 11)) << "a glob: layers.1* is 1, 10, 11";
  EXPECT_FALSE(QuantKept::Covers(b.layers, 2));
  EXPECT_TRUE(QuantKept::Covers(b.mlp, 3)) << "gate_proj is part of the MLP";
  EXPECT_TRUE(b.towers);
  QuantKept c = kept(R"(["something.unknown"])");
  EXPECT_EQ(c.unread, 1);
}

}  // namespace
}  // namespace gpuprobe::model
