// Traffic to GPUs: the sizing satisfies Little's law and its own feasibility conditions.
#include "model/traffic.h"

#include <gtest/gtest.h>

#include "core/embedded_data.h"
#include "model/hf_config.h"

namespace gpuprobe::model {
namespace {

const SpecDatabase& Db() {
  static const SpecDatabase db =
      *SpecDatabase::Parse(*core::EmbeddedFile("gpu_specs.json"), *core::EmbeddedFile("host_links.json"));
  return db;
}

Traffic Rate(double rps) {
  Traffic t;
  t.requests_per_second = rps;
  t.prompt_tokens = 1000;
  t.output_tokens = 200;
  return t;
}

void ExpectConsistent(const ReplicaLoad& l, const Traffic& t) {
  ASSERT_TRUE(l.feasible) << l.blocked_by;
  EXPECT_EQ(l.gpus, l.replicas * l.tensor_parallel);
  // Little's law: L = lambda W per replica, with W = O x TPOT for the decoding sequences.
  EXPECT_NEAR(l.decoding_sequences, l.arrival_rps_per_replica * t.output_tokens * l.tpot_seconds,
              1e-6 * std::max(1.0, l.decoding_sequences));
  EXPECT_NEAR(l.tpot_seconds, l.step_seconds / (1 - l.prefill_share), 1e-12);
  EXPECT_LE(l.sequences, l.max_sequences);
  EXPECT_LT(l.prefill_share, 1);
  EXPECT_NEAR(l.request_seconds, l.ttft_seconds + t.output_tokens * l.tpot_seconds, 1e-9);
}

TEST(Traffic, FiveRequestsASecondOnL4sSatisfiesLittlesLaw) {
  ModelShape shape = *ShapeFromParameterCount(8e9, ShapeFlags{});
  Job job;
  auto plan = SizeForTraffic(shape, job, **Db().Find("l4"), Rate(5));
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->seq, 1200);
  ExpectConsistent(plan->low, Rate(5));
  ExpectConsistent(plan->high, Rate(5));
  EXPECT_GE(plan->low.gpus, plan->high.gpus);  // lower efficiency never needs fewer GPUs
  EXPECT_NEAR(plan->low.output_tokens_per_s, 5 * 200, 1e-9);
}

TEST(Traffic, MoreTrafficNeverNeedsFewerGpusAndALatencyTargetCostsGpus) {
  ModelShape shape = *ShapeFromParameterCount(8e9, ShapeFlags{});
  Job job;
  const GpuSpec& gpu = **Db().Find("h100");
  int previous = 0;
  for (double rps : {1.0, 5.0, 20.0, 80.0}) {
    auto plan = SizeForTraffic(shape, job, gpu, Rate(rps));
    ASSERT_TRUE(plan.ok());
    ASSERT_TRUE(plan->low.feasible) << rps;
    EXPECT_GE(plan->low.gpus, previous) << rps;
    previous = plan->low.gpus;
  }
  Traffic strict = Rate(80);
  auto loose = SizeForTraffic(shape, job, gpu, strict);
  strict.max_tpot_seconds = loose->low.tpot_seconds / 2;
  auto tight = SizeForTraffic(shape, job, gpu, strict);
  ASSERT_TRUE(tight.ok());
  if (tight->low.feasible) {
    EXPECT_LE(tight->low.tpot_seconds, strict.max_tpot_seconds);
    EXPECT_GE(tight->low.gpus, loose->low.gpus);
  }
}

TEST(Traffic, ClosedLoopUsersSettleAtUsersOverThinkPlusResponse) {
  ModelShape shape = *ShapeFromParameterCount(8e9, ShapeFlags{});
  Job job;
  Traffic t;
  t.users = 200;
  t.think_seconds = 20;
  t.prompt_tokens = 500;
  t.output_tokens = 300;
  auto plan = SizeForTraffic(shape, job, **Db().Find("h100"), t);
  ASSERT_TRUE(plan.ok());
  const ReplicaLoad& l = plan->low;
  ASSERT_TRUE(l.feasible);
  EXPECT_NEAR(l.arrival_rps, t.users / (t.think_seconds + l.request_seconds), 0.01 * l.arrival_rps);
}

TEST(Traffic, RefusesBadTrafficAndReportsWhatBlocksIt) {
  Traffic both = Rate(5);
  both.users = 10;
  EXPECT_FALSE(ValidateTraffic(both).ok());
  Traffic none = Rate(0);
  EXPECT_FALSE(ValidateTraffic(none).ok());
  Traffic negative = Rate(-1);
  EXPECT_NE(ValidateTraffic(negative).message().find("--rps"), std::string::npos);
  Traffic zero_tokens = Rate(1);
  zero_tokens.output_tokens = 0;
  EXPECT_NE(ValidateTraffic(zero_tokens).message().find("--output-tokens"), std::string::npos);
  // 405B in 16-bit does not fit on 8 L4s: no configuration.
  Job job;
  auto plan = SizeForTraffic(*ShapeFromParameterCount(405e9, ShapeFlags{}), job, **Db().Find("l4"), Rate(1));
  ASSERT_TRUE(plan.ok());
  EXPECT_FALSE(plan->low.feasible);
  EXPECT_EQ(plan->low.blocked_by, "memory");
}

}  // namespace
}  // namespace gpuprobe::model
