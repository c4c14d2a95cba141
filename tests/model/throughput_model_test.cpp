#include "model/throughput_model.h"

#include <gtest/gtest.h>

#include "core/embedded_data.h"
#include "model/fixture.h"
#include "model/hf_config.h"
#include "model/spec_database.h"

namespace gpuprobe::model {
namespace {

struct Fixture {
  SpecDatabase db = *SpecDatabase::Parse(*core::EmbeddedFile("gpu_specs.json"), *core::EmbeddedFile("host_links.json"));
  ModelShape llama2 = *ParseHfConfig(gpuprobe::testing::ReadFixture("hf_configs/llama-2-7b.json"), "l");
};

TEST(Throughput, DecodeBoundAtBatchOneIsBandwidthOverBytesRead) {
  Fixture s;
  Job job;
  job.weight_dtype = DType::kFp16;
  job.seq = 1;
  auto plan = PlanMemory(s.llama2, job);
  const GpuSpec& a100 = **s.db.Find("a100-80gb");
  auto tp = PredictThroughput(s.llama2, *plan, job, a100);
  ASSERT_TRUE(tp.ok());
  double bytes = 13476831232.0 + 524288.0;  // weights + one token of KV
  EXPECT_NEAR(tp->decode_per_stream.bound, 2039e9 / bytes, 1e-6);
  // gpt-fast measured 104.9 tokens/s on an A100 (power-limited): inside the stated range.
  EXPECT_EQ(tp->decode_per_stream.limited_by, "memory bandwidth");
  EXPECT_LT(tp->decode_per_stream.low, 104.9);
  EXPECT_GT(tp->decode_per_stream.bound, 104.9);
}

TEST(Throughput, LargeBatchesBecomeComputeBound) {
  Fixture s;
  Job job;
  job.seq = 16;
  job.batch = 4096;
  auto plan = PlanMemory(s.llama2, job);
  auto tp = PredictThroughput(s.llama2, *plan, job, **s.db.Find("h200"));
  ASSERT_TRUE(tp.ok());
  EXPECT_EQ(tp->decode_aggregate.limited_by, "compute");
  EXPECT_DOUBLE_EQ(tp->decode_aggregate.bound, 4096 * tp->decode_per_stream.bound);
}

TEST(Throughput, PrefillAndTrainingFollowTheirFlopCounts) {
  Fixture s;
  Job job;
  job.seq = 2048;
  job.mode = JobMode::kFull;
  auto plan = PlanMemory(s.llama2, job);
  const GpuSpec& h100 = **s.db.Find("h100");
  auto tp = PredictThroughput(s.llama2, *plan, job, h100);
  ASSERT_TRUE(tp.ok());
  double p = 6738415616.0, peak = 989.4e12;
  double prefill_flops = 2 * p * 2048 + 2.0 * 32 * 2048 * 2048 * 4096;
  EXPECT_NEAR(tp->prefill.bound, 2048 / (prefill_flops / peak), 1e-6);
  ASSERT_TRUE(tp->has_training);
  EXPECT_NEAR(tp->training.bound, peak / (6 * p), 1e-9);
  EXPECT_DOUBLE_EQ(tp->training.low, tp->training.bound * 0.35);
}

TEST(Throughput, MoeDecodeReadsOnlyTheRoutedExpertsAtBatchOne) {
  Fixture s;
  ModelShape mixtral = *ParseHfConfig(gpuprobe::testing::ReadFixture("hf_configs/mixtral-8x7b-v0.1.json"), "m");
  Job job;
  job.seq = 1;
  auto plan = PlanMemory(mixtral, job);
  auto tp = PredictThroughput(mixtral, *plan, job, **s.db.Find("h200"));
  ASSERT_TRUE(tp.ok());
  double all_weights_bound = 4.8e12 / (plan->components[0].bytes + plan->kv_bytes_per_token);
  EXPECT_GT(tp->decode_per_stream.bound, 2.5 * all_weights_bound);
}

TEST(Throughput, Fp8FallsBackToBf16OnGpusWithoutFp8) {
  Fixture s;
  Job job;
  job.weight_dtype = DType::kFp8;
  auto plan = PlanMemory(s.llama2, job);
  auto a100 = PredictThroughput(s.llama2, *plan, job, **s.db.Find("a100-80gb"));
  ASSERT_TRUE(a100.ok());
  EXPECT_EQ(a100->compute_dtype, "bf16");
  auto h100 = PredictThroughput(s.llama2, *plan, job, **s.db.Find("h100"));
  EXPECT_EQ(h100->compute_dtype, "fp8");
}

}  // namespace
}  // namespace gpuprobe::model
