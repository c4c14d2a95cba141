#include "model/memory_planner.h"

#include <gtest/gtest.h>

#include "model/fixture.h"
#include "model/hf_config.h"

namespace gpuprobe::model {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

ModelShape Load(const char* file) {
  auto shape = ParseHfConfig(gpuprobe::testing::ReadFixture(std::string("hf_configs/") + file), file);
  EXPECT_TRUE(shape.ok()) << shape.status().ToString();
  return *shape;
}

const MemoryComponent* Find(const MemoryPlan& plan, const std::string& id) {
  for (const auto& c : plan.components) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

TEST(MemoryPlanner, Llama2InferenceWeightsMatchVllmsMeasuredLoad) {
  Job job;
  job.weight_dtype = DType::kFp16;
  auto plan = PlanMemory(Load("llama-2-7b.json"), job);
  ASSERT_TRUE(plan.ok());
  // 6,738,415,616 x 2 B = 13,476,831,232 B = 12.55 GiB (vLLM logs "12.5523 GB").
  EXPECT_DOUBLE_EQ(Find(*plan, "weights")->bytes, 13476831232.0);
  // The measured load also holds about a MiB of buffers (RoPE tables) beyond the weights.
  EXPECT_NEAR(Find(*plan, "weights")->bytes / kGiB, 12.5523, 0.002);
}

TEST(MemoryPlanner, KvCacheIsTwoTimesLayersKvHeadsHeadDimTokens) {
  Job job;
  job.seq = 1000;
  job.batch = 1;
  auto plan = PlanMemory(Load("llama-2-7b.json"), job);
  ASSERT_TRUE(plan.ok());
  // 1000 tokens x 512 KiB = 500 MiB (the exact figure behind gpu_poor's "about 500 MB").
  EXPECT_DOUBLE_EQ(plan->kv_bytes_per_token, 524288.0);
  EXPECT_DOUBLE_EQ(Find(*plan, "kv_cache")->bytes, 1000 * 524288.0);
  job.kv_dtype = DType::kFp8;
  auto fp8 = PlanMemory(Load("llama-2-7b.json"), job);
  EXPECT_DOUBLE_EQ(Find(*fp8, "kv_cache")->bytes, 1000 * 262144.0);
}

TEST(MemoryPlanner, Llama3KvCacheMatchesLlamaCppLog) {
  Job job;
  job.seq = 8192;
  auto plan = PlanMemory(Load("meta-llama-3-8b.json"), job);
  ASSERT_TRUE(plan.ok());
  // llama.cpp logs 1024 MiB of KV for Llama-3-8B at n_ctx 8192 (f16).
  EXPECT_DOUBLE_EQ(Find(*plan, "kv_cache")->bytes, 1024.0 * 1024 * 1024);
}

TEST(MemoryPlanner, SlidingWindowCapsTheKvCache) {
  Job job;
  job.seq = 32768;
  auto plan = PlanMemory(Load("mistral-7b-v0.1.json"), job);
  ASSERT_TRUE(plan.ok());
  EXPECT_DOUBLE_EQ(Find(*plan, "kv_cache")->bytes, 4096 * plan->kv_bytes_per_token);
}

TEST(MemoryPlanner, TotalIsTheSumOfItsComponents) {
  for (JobMode mode : {JobMode::kInfer, JobMode::kLora, JobMode::kQlora, JobMode::kFull}) {
    Job job;
    job.mode = mode;
    auto plan = PlanMemory(Load("meta-llama-3-8b.json"), job);
    ASSERT_TRUE(plan.ok());
    double sum = 0;
    for (const auto& c : plan->components) {
      EXPECT_GT(c.bytes, 0) << c.id;
      EXPECT_FALSE(c.formula.empty()) << c.id;
      EXPECT_FALSE(c.source.empty()) << c.id;
      sum += c.bytes;
    }
    EXPECT_DOUBLE_EQ(plan->total_bytes, sum);
  }
}

TEST(MemoryPlanner, FullFineTuneWithAdamIsSixteenBytesPerParameterOfStates) {
  Job job;
  job.mode = JobMode::kFull;
  job.weight_dtype = DType::kBf16;
  auto shape = Load("meta-llama-3-8b.json");
  auto plan = PlanMemory(shape, job);
  ASSERT_TRUE(plan.ok());
  double p = 8030261248.0;
  EXPECT_DOUBLE_EQ(Find(*plan, "weights")->bytes, 2 * p);
  EXPECT_DOUBLE_EQ(Find(*plan, "gradients")->bytes, 2 * p);
  EXPECT_DOUBLE_EQ(Find(*plan, "optimizer")->bytes, 12 * p);  // fp32 master + m + v (ZeRO's K = 12)
  // The Ultra-Scale Playbook chart: params 14.96 GiB, grads 14.96 GiB.
  EXPECT_NEAR(2 * p / kGiB, 14.96, 0.01);
}

TEST(MemoryPlanner, OptimizerChoicesChangeTheStateBytes) {
  auto shape = Load("llama-2-7b.json");
  double p = 6738415616.0;
  Job job;
  job.mode = JobMode::kFull;
  job.optimizer = Optimizer::kAdamW8bit;
  EXPECT_DOUBLE_EQ(Find(*PlanMemory(shape, job), "optimizer")->bytes, 6 * p);
  job.optimizer = Optimizer::kSgd;
  EXPECT_DOUBLE_EQ(Find(*PlanMemory(shape, job), "optimizer")->bytes, 8 * p);
  job.weight_dtype = DType::kFp32;
  job.optimizer = Optimizer::kAdamW;
  auto fp32 = PlanMemory(shape, job);
  EXPECT_DOUBLE_EQ(Find(*fp32, "weights")->bytes, 4 * p);
  EXPECT_DOUBLE_EQ(Find(*fp32, "gradients")->bytes, 4 * p);
  EXPECT_DOUBLE_EQ(Find(*fp32, "optimizer")->bytes, 8 * p);
}

TEST(MemoryPlanner, LoraParameterCountsMatchTheDerivedTable) {
  auto llama2 = Load("llama-2-7b.json");
  EXPECT_EQ(LoraParameterCount(llama2, 8, /*all_linears=*/false), 8388608);  // q, k, v, o
  EXPECT_EQ(LoraParameterCount(llama2, 8, true), 19988480);
  EXPECT_EQ(LoraParameterCount(llama2, 16, true), 39976960);
  EXPECT_EQ(LoraParameterCount(llama2, 64, false), 67108864);
  EXPECT_EQ(LoraParameterCount(llama2, 64, true), 159907840);
  EXPECT_EQ(LoraParameterCount(Load("meta-llama-3-8b.json"), 8, true), 20971520);
}

TEST(MemoryPlanner, LoraTrainsOnlyAdaptersOverAFrozen16BitBase) {
  Job job;
  job.mode = JobMode::kLora;
  job.lora_rank = 8;
  auto plan = PlanMemory(Load("llama-2-7b.json"), job);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->lora_params, 19988480);
  EXPECT_DOUBLE_EQ(Find(*plan, "weights")->bytes, 2 * 6738415616.0);
  EXPECT_DOUBLE_EQ(Find(*plan, "gradients")->bytes, 4 * 19988480.0);
  EXPECT_DOUBLE_EQ(Find(*plan, "optimizer")->bytes, 8 * 19988480.0);
  EXPECT_EQ(Find(*plan, "kv_cache"), nullptr);
}

TEST(MemoryPlanner, QloraCountsFourBitLinearsAndSixteenBitEmbeddings) {
  Job job;
  job.mode = JobMode::kQlora;
  auto shape = Load("meta-llama-3-8b.json");
  auto plan = PlanMemory(shape, job);
  ASSERT_TRUE(plan.ok());
  ParamCount c = CountParameters(shape);
  double expected = static_cast<double>(c.linear) * 4.127 / 8 + static_cast<double>(c.kept_16bit) * 2;
  EXPECT_DOUBLE_EQ(Find(*plan, "weights")->bytes, expected);
  // Embedding + head of Llama-3-8B stay 16-bit: 2 x 525,336,576 params = 2.10 GB.
  EXPECT_GE(c.kept_16bit, 2 * 525336576LL);
}

TEST(MemoryPlanner, TrainingNeedsMoreThanInferenceAndQloraLeastOfTheTrainingModes) {
  auto shape = Load("llama-2-7b.json");
  auto total = [&](JobMode mode) {
    Job job;
    job.mode = mode;
    job.seq = 2048;
    return PlanMemory(shape, job)->total_bytes;
  };
  EXPECT_LT(total(JobMode::kQlora), total(JobMode::kLora));
  EXPECT_LT(total(JobMode::kLora), total(JobMode::kFull));
  EXPECT_LT(total(JobMode::kInfer), total(JobMode::kLora));
}

TEST(MemoryPlanner, CheckpointingShrinksTrainingActivations) {
  auto shape = Load("llama-2-7b.json");
  Job job;
  job.mode = JobMode::kFull;
  double without = Find(*PlanMemory(shape, job), "activations")->bytes;
  job.activation_checkpointing = true;
  double with = Find(*PlanMemory(shape, job), "activations")->bytes;
  EXPECT_LT(with, without / 4);
}

TEST(MemoryPlanner, ModernLayerActivationsMatchTheHandComputedFormula) {
  auto shape = Load("meta-llama-3-8b.json");
  Job job;
  job.mode = JobMode::kFull;
  job.batch = 1;
  job.seq = 1024;
  auto plan = PlanMemory(shape, job);
  double tokens = 1024, h = 4096, a = 32, d = 128, k = 8, f = 14336;
  double layer = tokens * (10 * h + 2 * a * d + 4 * k * d + 8 * f) + 4 * a * tokens;
  double logits = tokens * 128256 * 4.0 * 2;
  EXPECT_DOUBLE_EQ(Find(*plan, "activations")->bytes, 32 * layer + logits);
}

TEST(MemoryPlanner, TensorParallelDividesWeightsAndAddsNcclBuffers) {
  auto shape = Load("meta-llama-3-8b.json");
  Job one, two;
  two.tensor_parallel = 2;
  auto p1 = PlanMemory(shape, one);
  auto p2 = PlanMemory(shape, two);
  EXPECT_DOUBLE_EQ(Find(*p2, "weights")->bytes, Find(*p1, "weights")->bytes / 2);
  EXPECT_GT(Find(*p2, "overhead")->bytes, Find(*p1, "overhead")->bytes);
}

TEST(MemoryPlanner, RejectsImpossibleJobs) {
  auto shape = Load("llama-2-7b.json");
  Job job;
  job.seq = 1000000000000LL;
  EXPECT_EQ(PlanMemory(shape, job).status().code(), core::StatusCode::kInvalidArgument);
  job = Job();
  job.batch = 0;
  EXPECT_FALSE(PlanMemory(shape, job).ok());
  job = Job();
  job.tensor_parallel = 3;  // 32 heads do not split three ways
  EXPECT_FALSE(PlanMemory(shape, job).ok());
  job = Job();
  job.mode = JobMode::kFull;
  job.weight_dtype = DType::kInt4;
  EXPECT_FALSE(PlanMemory(shape, job).ok());
  job = Job();
  job.headroom = 1.5;
  EXPECT_FALSE(PlanMemory(shape, job).ok());
}

TEST(CheckFit, SplitsOverEnoughGpusWhenOneIsTooSmall) {
  auto shape = Load("llama-2-13b.json");
  Job job;
  auto plan = PlanMemory(shape, job);
  ASSERT_TRUE(plan.ok());
  FitResult big = CheckFit(*plan, job, 80 * kGiB);
  EXPECT_TRUE(big.fits);
  EXPECT_EQ(big.gpus_needed, 1);
  FitResult small = CheckFit(*plan, job, 16 * kGiB);
  EXPECT_FALSE(small.fits);
  EXPECT_GE(small.gpus_needed, 2);
  // Enough: each of n GPUs holds its share plus its own overhead and NCCL buffers.
  double share = (plan->total_bytes - plan->overhead_bytes) / small.gpus_needed;
  EXPECT_LE(share + plan->overhead_bytes + 1.5 * kGiB, 16 * kGiB * job.headroom);
}

// The count must be one `--tp` accepts: 40 heads split over 3 GPUs is refused, so a job that
// needs the room of 3 GPUs needs 4 (the next divisor of 40 is 4), and the memory still fits.
TEST(CheckFit, CountsOnlyGpuNumbersThatDivideTheHeads) {
  auto shape = Load("llama-2-13b.json");
  ASSERT_EQ(shape.num_heads, 40);
  Job job;
  auto plan = PlanMemory(shape, job);
  ASSERT_TRUE(plan.ok());
  // Usable memory such that three GPUs' worth is needed by memory alone.
  double shared = plan->total_bytes - plan->overhead_bytes;
  double usable = (shared / 2.5 + plan->overhead_bytes + 1.5 * kGiB) / job.headroom;
  FitResult memory_only = CheckFit(*plan, job, usable);
  ASSERT_EQ(memory_only.gpus_needed, 3);
  FitResult by_heads = CheckFit(*plan, job, usable, static_cast<int>(shape.num_heads));
  EXPECT_EQ(by_heads.gpus_needed, 4);
  EXPECT_EQ(40 % by_heads.gpus_needed, 0);
  // A count that already divides the heads is kept.
  FitResult two = CheckFit(*plan, job, (shared / 1.5 + plan->overhead_bytes + 1.5 * kGiB) / job.headroom, 40);
  EXPECT_EQ(two.gpus_needed, 2);
}

TEST(FindCapacity, FindsTheLargestBatchThatStillFits) {
  auto shape = Load("meta-llama-3-8b.json");
  Job job;
  job.seq = 4096;
  double usable = 80 * kGiB;
  Capacity capacity = FindCapacity(shape, job, usable);
  ASSERT_GT(capacity.max_batch_at_seq, 1);
  Job at = job, above = job;
  at.batch = capacity.max_batch_at_seq;
  above.batch = capacity.max_batch_at_seq + 1;
  EXPECT_LE(PlanMemory(shape, at)->total_bytes, usable * job.headroom);
  EXPECT_GT(PlanMemory(shape, above)->total_bytes, usable * job.headroom);
  EXPECT_GT(capacity.max_seq_at_batch, 4096);
}

TEST(FindCapacity, ZeroWhenEvenOneSequenceDoesNotFit) {
  auto shape = Load("llama-2-13b.json");
  Capacity capacity = FindCapacity(shape, Job(), 8 * kGiB);
  EXPECT_EQ(capacity.max_batch_at_seq, 0);
  EXPECT_EQ(capacity.max_seq_at_batch, 0);
}

}  // namespace
}  // namespace gpuprobe::model
