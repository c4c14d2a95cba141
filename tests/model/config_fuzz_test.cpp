// Truncated and randomly mutated configs must give a Status, never a crash or a hang.
#include <random>

#include <gtest/gtest.h>

#include "model/fixture.h"
#include "model/hf_config.h"
#include "model/memory_planner.h"

namespace gpuprobe::model {
namespace {

const char* kFixtures[] = {"hf_configs/llama-2-7b.json", "hf_configs/meta-llama-3-8b.json",
                           "hf_configs/mixtral-8x7b-v0.1.json", "hf_configs/qwen2-7b.json", "hf_configs/gemma-2-9b.json",
                           "hf_configs/phi-3-mini-4k-instruct.json", "hf_configs/gpt2.json",
                           "hf_configs/bert-base-uncased.json", "hf_configs/llava-1.5-7b.json",
                           "configs/deepseek-ai--deepseek-v3-base.config.json", "configs/tiiuae--falcon-40b.config.json",
                           "configs/thudm--chatglm3-6b.config.json", "configs/qwen--qwen3-30b-a3b-fp8.config.json",
                           "configs/synthetic-jamba.json", "configs/synthetic-mamba2.json",
                           "configs/synthetic-qwen2-moe.json"};

// Whatever parses must also plan without crashing.
void ParseAndPlan(const std::string& text) {
  auto shape = ParseHfConfig(text, "fuzz.json");
  if (!shape.ok()) {
    EXPECT_FALSE(shape.status().message().empty());
    return;
  }
  Job job;
  auto plan = PlanMemory(*shape, job);
  if (plan.ok()) {
    EXPECT_GT(plan->total_bytes, 0);
  }
}

TEST(ConfigFuzz, EveryTruncationIsHandled) {
  for (const char* name : kFixtures) {
    std::string text = gpuprobe::testing::ReadFixture(name);
    for (size_t length = 0; length < text.size(); ++length) ParseAndPlan(text.substr(0, length));
  }
}

TEST(ConfigFuzz, RandomByteMutationsAreHandled) {
  std::mt19937 rng(12345);  // fixed seed: the test is reproducible
  const std::string alphabet = "0123456789-.eE{}[]\":, truefalsnul\x00\xff";
  for (const char* name : kFixtures) {
    std::string original = gpuprobe::testing::ReadFixture(name);
    for (int round = 0; round < 400; ++round) {
      std::string text = original;
      int edits = 1 + static_cast<int>(rng() % 6);
      for (int e = 0; e < edits; ++e) {
        size_t at = rng() % text.size();
        switch (rng() % 3) {
          case 0: text[at] = alphabet[rng() % alphabet.size()]; break;
          case 1: text.erase(at, 1 + rng() % 8); break;
          default: text.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
        }
        if (text.empty()) text = "{";
      }
      ParseAndPlan(text);
    }
  }
}

TEST(ConfigFuzz, NumericFieldMutationsAreHandled) {
  // Replace each number with extreme values: zero, negative, huge, fractional, exponent.
  const char* values[] = {"0", "-1", "1e308", "1e18", "0.5", "9223372036854775807", "-0", "1e-9", "null", "\"7\""};
  for (const char* name : kFixtures) {
    std::string original = gpuprobe::testing::ReadFixture(name);
    for (size_t i = 0; i < original.size(); ++i) {
      if (!(original[i] == ':' && i + 2 < original.size() && std::isdigit(static_cast<unsigned char>(original[i + 2])))) {
        continue;
      }
      size_t start = i + 2, end = start;
      while (end < original.size() && (std::isdigit(static_cast<unsigned char>(original[end])) || original[end] == '.' ||
                                       original[end] == 'e' || original[end] == '-')) {
        ++end;
      }
      for (const char* value : values) {
        ParseAndPlan(original.substr(0, start) + value + original.substr(end));
      }
    }
  }
}

}  // namespace
}  // namespace gpuprobe::model
