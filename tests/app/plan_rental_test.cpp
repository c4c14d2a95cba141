// The rental answer: the sweep over every priced GPU gives, for each GPU, the numbers
// `plan --gpu X` gives with the same traffic; it prices prompt and output tokens by the one
// stated rule, sorts by it, and lists the GPUs that cannot serve the traffic.
#include "app/plan_rental.h"

#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "app/plan_report.h"

namespace gpuprobe::app {
namespace {

PlanOptions Traffic8B() {
  PlanOptions o;
  o.params = "8B";
  o.rps = 5;
  o.prompt_tokens = 1000;
  o.output_tokens = 200;
  return o;
}

const RentalFigures* RowFor(const RentalSweep& sweep, const model::GpuSpec* gpu) {
  for (const auto& r : sweep.rows) {
    if (r.gpu == gpu) return &r;
  }
  return nullptr;
}

TEST(PlanRental, TrafficWithoutGpuSweepsEveryPricedGpu) {
  auto report = BuildPlanReport(Traffic8B());
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_TRUE(report->rental_sweep.has_value());
  const RentalSweep& s = *report->rental_sweep;
  EXPECT_EQ(s.priced_gpus, static_cast<int>(report->prices->prices().size()));
  EXPECT_EQ(s.rows.size() + s.not_served.size(), static_cast<size_t>(s.priced_gpus));
  EXPECT_GE(s.rows.size(), 10u);  // an 8B model at 5 requests/s fits every rentable card of 16 GB or more
  EXPECT_TRUE(report->fits_on_gpu);
}

// ONE truth: the row of the sweep is the --gpu plan's figures, number for number.
TEST(PlanRental, EachRowIsWhatPlanGpuPrintsForThatGpu) {
  auto sweep = BuildPlanReport(Traffic8B());
  ASSERT_TRUE(sweep.ok()) << sweep.status().ToString();
  for (const char* name : {"a10", "h100 sxm", "l40s", "4090", "a100 sxm4 80gb", "v100 sxm2 16gb"}) {
    SCOPED_TRACE(name);
    PlanOptions o = Traffic8B();
    o.gpu = name;
    auto one = BuildPlanReport(o);
    ASSERT_TRUE(one.ok()) << one.status().ToString();
    ASSERT_TRUE(one->rental.has_value());
    const RentalFigures& g = *one->rental;
    const RentalFigures* row = RowFor(*sweep->rental_sweep, one->gpu);
    ASSERT_NE(row, nullptr) << "no sweep row for " << one->gpu->name;
    EXPECT_EQ(row->load.gpus, g.load.gpus);
    EXPECT_EQ(row->load.replicas, g.load.replicas);
    EXPECT_EQ(row->load.tensor_parallel, g.load.tensor_parallel);
    EXPECT_EQ(row->weight_dtype, g.weight_dtype);
    EXPECT_DOUBLE_EQ(row->usd_per_hour, g.usd_per_hour);
    EXPECT_DOUBLE_EQ(row->usd_per_million_tokens, g.usd_per_million_tokens);
    EXPECT_DOUBLE_EQ(row->usd_per_million_output_tokens, g.usd_per_million_output_tokens);
    EXPECT_DOUBLE_EQ(row->load.ttft_seconds, g.load.ttft_seconds);
    EXPECT_DOUBLE_EQ(row->load.tpot_seconds, g.load.tpot_seconds);
    EXPECT_DOUBLE_EQ(row->headroom.p99_wait_seconds, g.headroom.p99_wait_seconds);
    EXPECT_DOUBLE_EQ(row->headroom.utilisation, g.headroom.utilisation);
    EXPECT_EQ(row->headroom.n_plus_one_gpus, g.headroom.n_plus_one_gpus);
    EXPECT_DOUBLE_EQ(row->n_plus_one_usd_per_hour, g.n_plus_one_usd_per_hour);
    // ... and the --gpu plan's own traffic section: its planned count and output price.
    ASSERT_TRUE(one->traffic.has_value());
    EXPECT_EQ(one->traffic->low.gpus, row->load.gpus);
    ASSERT_NE(one->gpu_price, nullptr);
    EXPECT_DOUBLE_EQ(model::UsdPerMillionTokens(one->gpu_price->usd_per_hour, one->traffic->low.gpus,
                                                one->traffic->low.output_tokens_per_s),
                     row->usd_per_million_output_tokens);
  }
}

TEST(PlanRental, PromptAndOutputTokensShareTheBillAndRowsAreSortedByIt) {
  auto report = BuildPlanReport(Traffic8B());
  ASSERT_TRUE(report.ok());
  const auto& rows = report->rental_sweep->rows;
  for (size_t i = 0; i < rows.size(); ++i) {
    const RentalFigures& r = rows[i];
    SCOPED_TRACE(r.gpu->name);
    // 5 requests/s x 1200 tokens served; 5 x 200 of them output.
    EXPECT_NEAR(r.tokens_per_s, 6000, 1e-6);
    EXPECT_NEAR(r.output_tokens_per_s, 1000, 1e-6);
    EXPECT_NEAR(r.usd_per_hour, r.price->usd_per_hour * r.load.gpus, 1e-12);
    EXPECT_NEAR(r.usd_per_million_tokens, r.usd_per_hour / (6000 * 3600) * 1e6, 1e-12);
    EXPECT_NEAR(r.usd_per_million_output_tokens, 6 * r.usd_per_million_tokens, 1e-12);
    if (i > 0) {
      EXPECT_LE(rows[i - 1].usd_per_million_tokens, r.usd_per_million_tokens);
    }
  }
}

TEST(PlanRental, NPlusOneIsOneReplicaMore) {
  auto report = BuildPlanReport(Traffic8B());
  ASSERT_TRUE(report.ok());
  for (const auto& r : report->rental_sweep->rows) {
    EXPECT_EQ(r.headroom.n_plus_one_gpus, (r.load.replicas + 1) * r.load.tensor_parallel);
    EXPECT_NEAR(r.n_plus_one_usd_per_hour, r.price->usd_per_hour * r.headroom.n_plus_one_gpus, 1e-12);
    EXPECT_GT(r.n_plus_one_usd_per_million_tokens, r.usd_per_million_tokens);
  }
}

TEST(PlanRental, QueueingWaitFollowsThePlannedLoad) {
  auto report = BuildPlanReport(Traffic8B());
  ASSERT_TRUE(report.ok());
  for (const auto& r : report->rental_sweep->rows) {
    SCOPED_TRACE(r.gpu->name);
    const auto& h = r.headroom;
    // The prefill queue's load is the traffic model's prefill share; the slots' load is
    // Little's law over a whole request.
    EXPECT_NEAR(h.prefill.utilisation, r.load.prefill_share, 1e-12);
    EXPECT_NEAR(h.slots.offered_load, r.load.arrival_rps_per_replica * r.load.request_seconds, 1e-9);
    EXPECT_EQ(h.slots.servers, std::floor(r.load.max_sequences));
    EXPECT_TRUE(h.prefill.stable && h.slots.stable);
    EXPECT_NEAR(h.p99_wait_seconds, h.prefill.p99_wait_seconds + h.slots.p99_wait_seconds, 1e-12);
    EXPECT_GE(h.p99_wait_seconds, 0);
  }
}

TEST(PlanRental, GpusTheModelDoesNotFitOnAreListedWithTheReason) {
  PlanOptions o = Traffic8B();
  o.params = "405B";  // 810 GB of bf16 weights: more than 8 x 80 GB
  o.rps = 1;
  auto report = BuildPlanReport(o);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  const RentalSweep& s = *report->rental_sweep;
  bool h100_listed = false;
  for (const auto& r : s.not_served) {
    EXPECT_FALSE(r.blocked_by.empty());
    if (r.gpu->name == "H100 SXM5 80GB") {
      h100_listed = true;
      EXPECT_EQ(r.blocked_by, "memory");
    }
  }
  EXPECT_TRUE(h100_listed);
  for (const auto& r : s.rows) EXPECT_GE(r.gpu->memory_size_gb_vendor.ValueOr(0), 96) << r.gpu->name;
}

TEST(PlanRental, PriceFlagChangesItsRow) {
  PlanOptions o = Traffic8B();
  o.prices = {"a10=0.10"};
  auto report = BuildPlanReport(o);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  bool found = false;
  for (const auto& r : report->rental_sweep->rows) {
    if (r.gpu->name != "NVIDIA A10") continue;
    found = true;
    EXPECT_TRUE(r.price->user_given);
    EXPECT_NEAR(r.usd_per_hour, 0.10 * r.load.gpus, 1e-12);
  }
  EXPECT_TRUE(found);
}

TEST(PlanRental, NoTrafficNoSweep) {
  PlanOptions o;
  o.params = "8B";
  auto report = BuildPlanReport(o);
  ASSERT_TRUE(report.ok());
  EXPECT_FALSE(report->rental_sweep.has_value());
  EXPECT_FALSE(report->rental.has_value());
}

}  // namespace
}  // namespace gpuprobe::app
