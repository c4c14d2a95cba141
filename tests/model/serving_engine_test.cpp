// The serving engines' budgets (model/serving_engine.h) held against what the engines logged.
#include <gtest/gtest.h>

#include "model/hf_config.h"
#include "model/memory_planner.h"
#include "model/serving_engine.h"
#include "model/fixture.h"

namespace gpuprobe::model {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

ModelShape Llama31_8B() {
  auto shape = ParseHfConfig(testing::ReadFixture("configs/meta-llama--llama-3.1-8b.config.json"), "llama");
  EXPECT_TRUE(shape.ok());
  return *shape;
}

double Weights(const ModelShape& s) {
  Job job;
  auto plan = PlanMemory(s, job);
  EXPECT_TRUE(plan.ok());
  return plan->weight_bytes_per_gpu;
}

// vLLM V1's start-up on an RTX 3090 (23.58 GiB as the driver reports it), Llama-3.1-8B at a
// 20,000-token context, profiling 16,384 tokens: "model weights take 14.99GiB; non_torch_memory
// takes 0.35GiB; PyTorch activation peak memory takes 2.07GiB; ... KV Cache is 3.81GiB",
// "GPU KV cache size: 31,232 tokens", "Maximum concurrency for 20000 tokens per request: 1.56x"
// (the start-up log quoted in docs/plan.md, 'Serving engines').
TEST(ServingEngine, VllmReproducesALoggedStartUp) {
  ModelShape s = Llama31_8B();
  EngineOptions o;
  o.max_model_len = 20000;
  o.max_num_batched_tokens = 16384;
  GpuMemory gpu{23.58 * kGiB, std::nullopt, true, ""};
  auto b = PlanEngineBudget(s, Weights(s), 1, 1, gpu, o);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_NEAR(b->weights_bytes / kGiB, 14.99, 0.05);
  EXPECT_NEAR(b->activation_peak_bytes / kGiB, 2.07, 0.1);
  EXPECT_NEAR(b->kv_cache_bytes / kGiB, 3.81, 0.2);
  EXPECT_NEAR(static_cast<double>(b->kv_tokens), 31232, 0.05 * 31232);
  EXPECT_NEAR(b->max_concurrency, 1.56, 0.1);
  EXPECT_TRUE(b->starts);
  EXPECT_EQ(b->kv_tokens % 16, 0) << "16-token blocks";
  EXPECT_EQ(EngineCommandLine(o, *b, "meta-llama/Llama-3.1-8B", 1, 1),
            "vllm serve meta-llama/Llama-3.1-8B --max-model-len 20000 --gpu-memory-utilization 0.9 --max-num-batched-tokens 16384");
}

TEST(ServingEngine, VllmSaysWhyItWouldNotStartAndWhatFits) {
  ModelShape s = Llama31_8B();
  GpuMemory gpu{23.58 * kGiB, std::nullopt, true, ""};
  EngineOptions too_long;
  too_long.max_model_len = 131072;
  auto b = PlanEngineBudget(s, Weights(s), 1, 1, gpu, too_long);
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->starts);
  EXPECT_EQ(b->failure, "max_len_exceeds_kv");
  EXPECT_GT(b->longest_that_fits, 1000);
  EXPECT_LT(b->longest_that_fits, 131072);
  // --max-model-len -1: the longest that fits is served.
  EngineOptions fit;
  fit.max_model_len = -1;
  auto a = PlanEngineBudget(s, Weights(s), 1, 1, gpu, fit);
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->starts);
  EXPECT_EQ(a->max_model_len, a->longest_that_fits);
  // Too little memory requested: nothing left for the cache.
  EngineOptions low;
  low.gpu_memory_utilization = 0.67;
  auto c = PlanEngineBudget(s, Weights(s), 1, 1, gpu, low);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->failure, "no_kv_memory");
  // GPU memory another process holds: V1 refuses to start below the requested share.
  GpuMemory busy{23.58 * kGiB, 12.0 * kGiB, true, ""};
  auto d = PlanEngineBudget(s, Weights(s), 1, 1, busy, EngineOptions{});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->failure, "free_below_requested");
}

TEST(ServingEngine, TensorParallelSplitsHeadsAndReplicatesBelowOnePerRank) {
  ModelShape s = Llama31_8B();  // 8 KV heads
  KvFootprint one = KvFootprintOf(s, 2, 1, 1);
  KvFootprint four = KvFootprintOf(s, 2, 4, 1);
  KvFootprint sixteen = KvFootprintOf(s, 2, 16, 1);
  EXPECT_DOUBLE_EQ(one.full_bytes_per_token, 131072);
  EXPECT_DOUBLE_EQ(four.full_bytes_per_token, 131072 / 4);
  EXPECT_DOUBLE_EQ(sixteen.full_bytes_per_token, 131072 / 8) << "one head per rank at least";
}

TEST(ServingEngine, SglangAndLlamaCppBudgets) {
  ModelShape s = Llama31_8B();
  GpuMemory gpu{79.2 * kGiB, std::nullopt, true, ""};
  EngineOptions sg;
  sg.engine = Engine::kSglang;
  sg.mem_fraction_static = 0.88;
  auto b = PlanEngineBudget(s, Weights(s), 1, 1, gpu, sg);
  ASSERT_TRUE(b.ok());
  // fraction x free - weights, in whole tokens of 128 KiB.
  double expected = 0.88 * (79.2 * kGiB - 0.5 * kGiB) - Weights(s);
  EXPECT_NEAR(b->kv_cache_bytes, expected, 1);
  EXPECT_EQ(b->kv_tokens, static_cast<std::int64_t>(expected / 131072));
  EngineOptions lc;
  lc.engine = Engine::kLlamaCpp;
  lc.n_ctx = 8192;
  lc.n_gpu_layers = 16;  // half of 32 layers
  auto l = PlanEngineBudget(s, Weights(s), 1, 1, gpu, lc);
  ASSERT_TRUE(l.ok());
  EXPECT_DOUBLE_EQ(l->kv_cache_bytes, 8192.0 * 131072 / 2);
  EXPECT_NEAR(l->host_bytes, Weights(s) / 2 + 8192.0 * 131072 / 2, 1);
}

// vLLM's defaults by GPU and release (vllm/engine/arg_utils.py): an 80 GB A100 keeps the small
// profiling batch since 0.9 (PR #17885), an H100 gets the large one; 0.8's V1 ran 1024
// sequences on every GPU and its sampler held the prompt token ids too (32 bytes per
// vocabulary entry and sequence instead of 16).
TEST(ServingEngine, VllmDefaultsFollowTheGpuAndTheRelease) {
  ModelShape s = Llama31_8B();
  EngineOptions o;
  o.max_model_len = 8192;
  auto a100 = PlanEngineBudget(s, Weights(s), 1, 1, GpuMemory{79.2 * kGiB, std::nullopt, true, "NVIDIA A100-SXM4-80GB"}, o);
  auto h100 = PlanEngineBudget(s, Weights(s), 1, 1, GpuMemory{79.2 * kGiB, std::nullopt, true, "NVIDIA H100 80GB HBM3"}, o);
  ASSERT_TRUE(a100.ok() && h100.ok());
  EXPECT_EQ(a100->max_num_batched_tokens, 2048);
  EXPECT_EQ(a100->max_num_seqs, 256);
  EXPECT_EQ(h100->max_num_batched_tokens, 8192);
  EXPECT_EQ(h100->max_num_seqs, 1024);
  EXPECT_GT(a100->kv_cache_bytes, h100->kv_cache_bytes);
  GpuMemory l40s{44.4 * kGiB, std::nullopt, true, "NVIDIA L40S"};
  auto now = PlanEngineBudget(s, Weights(s), 1, 1, l40s, o);
  EngineOptions early = o;
  early.vllm_v1_early = true;
  auto then = PlanEngineBudget(s, Weights(s), 1, 1, l40s, early);
  ASSERT_TRUE(now.ok() && then.ok());
  EXPECT_EQ(now->max_num_seqs, 256);
  EXPECT_EQ(then->max_num_seqs, 1024);
  // The sampler's share: 1024 sequences x 128,256 vocabulary entries x 32 bytes against
  // 256 x 128,256 x 16.
  const double vocab = static_cast<double>(s.vocab_size);
  EXPECT_NEAR(then->activation_peak_bytes - now->activation_peak_bytes, vocab * (1024.0 * 32 - 256.0 * 16), 1.0);
}

TEST(ServingEngine, BadOptionsAreRefusedNamingTheFlag) {
  ModelShape s = Llama31_8B();
  GpuMemory gpu{24 * kGiB, std::nullopt, true, ""};
  EngineOptions o;
  o.gpu_memory_utilization = 1.5;
  auto b = PlanEngineBudget(s, 1, 1, 1, gpu, o);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("--gpu-memory-utilization"), std::string::npos);
  o = EngineOptions{};
  o.block_size = 24;
  EXPECT_FALSE(PlanEngineBudget(s, 1, 1, 1, gpu, o).ok());
  EXPECT_FALSE(ParseEngine("tgi").ok());
  EXPECT_EQ(*ParseEngine("TensorRT-LLM"), Engine::kTrtllm);
}

}  // namespace
}  // namespace gpuprobe::model
