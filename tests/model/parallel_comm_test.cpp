// Multi-GPU communication, hand-computed from the formulas in docs/plan.md.
#include "model/parallel_comm.h"

#include <gtest/gtest.h>

#include "core/embedded_data.h"
#include "model/fixture.h"
#include "model/hf_config.h"
#include "model/spec_database.h"
#include "model/throughput_model.h"

namespace gpuprobe::model {
namespace {

const SpecDatabase& Db() {
  static const SpecDatabase db =
      *SpecDatabase::Parse(*core::EmbeddedFile("gpu_specs.json"), *core::EmbeddedFile("host_links.json"));
  return db;
}

ModelShape Llama70B() { return *ShapeFromParameterCount(70e9, ShapeFlags{}); }  // 80 layers, h 8192

TEST(ParallelComm, TensorParallelRingAllReduceOverNvlink) {
  Job job;
  job.tensor_parallel = 8;
  CommPlan comm = PlanCommunication(Llama70B(), job, **Db().Find("h100"));
  ASSERT_EQ(comm.gpus, 8);
  ASSERT_EQ(comm.decode.terms.size(), 1u);
  const CommTerm& t = comm.decode.terms[0];
  EXPECT_EQ(t.id, "tp_allreduce");
  EXPECT_DOUBLE_EQ(t.operations, 160);             // 2 per layer x 80 layers
  EXPECT_DOUBLE_EQ(t.message_bytes, 8192.0 * 2);   // one token x h x 2 B
  EXPECT_DOUBLE_EQ(t.link_bytes, 160 * 16384.0 * 2 * 7 / 8);
  EXPECT_NEAR(t.seconds, 160 * kCollectiveLatencySeconds + 160 * 16384.0 * 1.75 / 450e9, 1e-12);
  // Prefill: 4096 tokens per message; training: forward and backward.
  EXPECT_DOUBLE_EQ(comm.prefill.terms[0].message_bytes, 4096 * 8192.0 * 2);
  EXPECT_DOUBLE_EQ(comm.training.terms[0].operations, 320);
}

TEST(ParallelComm, ThePcieCardPaysMoreForTheSameSplit) {
  Job job;
  job.tensor_parallel = 8;
  CommPlan nvlink = PlanCommunication(Llama70B(), job, **Db().Find("h100"));
  CommPlan pcie = PlanCommunication(Llama70B(), job, **Db().Find("l40s"));
  EXPECT_EQ(pcie.link.link.kind, LinkKind::kPcie);
  double ring = 160 * 4096 * 8192.0 * 2 * 1.75;
  EXPECT_NEAR(pcie.prefill.seconds, 160 * kCollectiveLatencySeconds + ring / (16e9 * 16 * 128 / 130 / 8), 1e-9);
  EXPECT_GT(pcie.prefill.seconds, 10 * nvlink.prefill.seconds);
}

TEST(ParallelComm, ExpertAndPipelineParallelTerms) {
  ModelShape mixtral = *ParseHfConfig(testing::ReadFixture("configs/mistralai--mixtral-8x7b-v0.1.config.json"), "mixtral");
  Job job;
  job.tensor_parallel = 2;
  job.expert_parallel = 4;
  job.pipeline_parallel = 2;
  job.batch = 8;
  CommPlan comm = PlanCommunication(mixtral, job, **Db().Find("h100"));
  EXPECT_EQ(comm.gpus, 8);
  ASSERT_EQ(comm.decode.terms.size(), 3u);
  const CommTerm& ep = comm.decode.terms[1];
  EXPECT_EQ(ep.id, "ep_alltoall");
  EXPECT_DOUBLE_EQ(ep.operations, 2 * 32);                  // dispatch + combine per MoE layer
  EXPECT_DOUBLE_EQ(ep.message_bytes, (8.0 * 2 / 4) * 2 * 4096 * 2);  // tokens x tp / ep, top-2, h, 2 B
  EXPECT_DOUBLE_EQ(ep.link_bytes, 64 * ep.message_bytes * 3 / 4);
  const CommTerm& pp = comm.decode.terms[2];
  EXPECT_EQ(pp.id, "pp_send");
  EXPECT_DOUBLE_EQ(pp.operations, 1);
  EXPECT_DOUBLE_EQ(pp.message_bytes, 8 * 4096 * 2.0);
}

TEST(ParallelComm, OneGpuHasNoCommunicationAndThroughputAddsIt) {
  Job one;
  EXPECT_TRUE(PlanCommunication(Llama70B(), one, **Db().Find("h100")).decode.terms.empty());
  Job job;
  job.tensor_parallel = 8;
  auto plan = PlanMemory(Llama70B(), job);
  ASSERT_TRUE(plan.ok());
  auto speed = PredictThroughput(Llama70B(), *plan, job, **Db().Find("h100"));
  ASSERT_TRUE(speed.ok());
  EXPECT_DOUBLE_EQ(speed->decode_step.comm_seconds, speed->comm.decode.seconds);
  EXPECT_NEAR(1.0 / speed->decode_per_stream.bound,
              std::max(speed->decode_step.memory_seconds, speed->decode_step.compute_seconds) + speed->comm.decode.seconds,
              1e-12);
  ASSERT_TRUE(speed->comm_over_pcie.has_value());
  EXPECT_GT(speed->comm_over_pcie->prefill.seconds, speed->comm.prefill.seconds);
}

}  // namespace
}  // namespace gpuprobe::model
