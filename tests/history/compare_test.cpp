#include <gtest/gtest.h>

#include "history/compare.h"

namespace gpuprobe::history {
namespace {

RecordedResult Rate(const std::string& id, double value, double spread) {
  RecordedResult r;
  r.id = id;
  r.key = id + "|cpu|all threads";
  r.metric = "bandwidth";
  r.value = value;
  r.low = value * (1 - spread);
  r.high = value * (1 + spread);
  return r;
}

TEST(Decide, SeparatedSpreadsAreFasterOrSlower) {
  EXPECT_EQ(Decide(Rate("a", 100, 0.01), Rate("a", 120, 0.01)), Verdict::kFaster);
  EXPECT_EQ(Decide(Rate("a", 100, 0.01), Rate("a", 80, 0.01)), Verdict::kSlower);
}

TEST(Decide, OverlappingSpreadsAreUnclearNotAChange) {
  // 10% apart, but each result wanders by 15%: the change is inside the noise.
  EXPECT_EQ(Decide(Rate("a", 100, 0.15), Rate("a", 110, 0.15)), Verdict::kUnclear);
}

TEST(Decide, TinyChangesAreTheSameEvenWithTightSpreads) {
  EXPECT_EQ(Decide(Rate("a", 100, 0.001), Rate("a", 101, 0.001)), Verdict::kSame);
}

TEST(Decide, LowerLatencyIsFaster) {
  RecordedResult before = Rate("latency.chase", 100e-9, 0.01), after = Rate("latency.chase", 80e-9, 0.01);
  before.metric = after.metric = "latency";
  EXPECT_EQ(Decide(before, after), Verdict::kFaster);
  EXPECT_EQ(Decide(after, before), Verdict::kSlower);
}

TEST(CompareRuns, MatchesByKeyAndFindsTheWorstRegression) {
  RunRecord before, after;
  before.results = {Rate("a", 100, 0.01), Rate("b", 100, 0.01), Rate("gone", 5, 0.01)};
  after.results = {Rate("a", 70, 0.01), Rate("b", 90, 0.01), Rate("new", 5, 0.01)};
  RunComparison c = CompareRuns(before, after);
  ASSERT_EQ(c.changes.size(), 2u);
  EXPECT_EQ(c.changes[0].verdict, Verdict::kSlower);
  EXPECT_NEAR(c.changes[0].speedup, 0.7, 1e-12);
  EXPECT_EQ(c.only_before, std::vector<std::string>{"gone|cpu|all threads"});
  EXPECT_EQ(c.only_after, std::vector<std::string>{"new|cpu|all threads"});
  ASSERT_TRUE(WorstRegression(c).has_value());
  EXPECT_NEAR(*WorstRegression(c), 0.3, 1e-12);
}

TEST(CompareRuns, FlagsADifferentThreadCount) {
  RunRecord before, after;
  before.results = {Rate("a", 100, 0.01)};
  after.results = {Rate("a", 50, 0.01)};
  before.results[0].threads = 2;
  after.results[0].threads = 1;
  RunComparison c = CompareRuns(before, after);
  ASSERT_EQ(c.changes.size(), 1u);
  EXPECT_TRUE(c.changes[0].threads_differ);
  EXPECT_EQ(c.changes[0].threads_before, 2);
}

TEST(CompareRuns, NoSlowerResultMeansNoRegression) {
  RunRecord before, after;
  before.results = {Rate("a", 100, 0.2)};
  after.results = {Rate("a", 90, 0.2)};  // slower median, but UNCLEAR
  EXPECT_FALSE(WorstRegression(CompareRuns(before, after)).has_value());
}

TEST(RunFromBenchDocument, ReadsValuesAndSpreadsAndSkipsUnverified) {
  nlohmann::json doc = {{"schema", "gpuprobe.bench.v1"}, {"gpuprobe_version", "0.1.0"}, {"mode", "quick"},
                        {"machine", {{"cpu", {{"model", "Test CPU"}}}, {"gpus", {"no GPU"}}}},
                        {"results",
                         {{{"id", "memory.triad"}, {"backend", "cpu"}, {"case", "all threads"}, {"metric", "bandwidth"}, {"unit", "B/s"},
                           {"value", 20e9}, {"verified", true}, {"threads", 2}, {"median_s", 1.0}, {"p10_s", 0.9}, {"p90_s", 1.25}, {"noisy", true}},
                          {{"id", "latency.chase"}, {"backend", "cpu"}, {"case", "64 MiB"}, {"metric", "latency"}, {"unit", "s"},
                           {"value", 90e-9}, {"verified", true}, {"median_s", 1.0}, {"p10_s", 0.9}, {"p90_s", 1.1}},
                          {{"id", "compute.fma_bf16"}, {"backend", "cpu"}, {"case", "x"}, {"value", nullptr}, {"skipped", true}},
                          {{"id", "memory.copy"}, {"backend", "cpu"}, {"case", "x"}, {"value", 1e9}, {"verified", false}}}}};
  auto run = RunFromBenchDocument(doc);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->cpu, "Test CPU");
  EXPECT_EQ(run->gpus, "no GPU");
  ASSERT_EQ(run->results.size(), 2u);
  EXPECT_EQ(run->results[0].key, "memory.triad|cpu|all threads");
  EXPECT_DOUBLE_EQ(run->results[0].low, 20e9 / 1.25);  // slowest samples give the lowest rate
  EXPECT_DOUBLE_EQ(run->results[0].high, 20e9 / 0.9);
  EXPECT_TRUE(run->results[0].noisy);
  EXPECT_EQ(run->results[0].threads, 2);
  EXPECT_DOUBLE_EQ(run->results[1].low, 90e-9 * 0.9);  // latency grows with time
  EXPECT_DOUBLE_EQ(run->results[1].high, 90e-9 * 1.1);
}

TEST(RunFromBenchDocument, RefusesOtherDocuments) {
  EXPECT_FALSE(RunFromBenchDocument(nlohmann::json::parse(R"({"schema": "gpuprobe.plan.v1", "results": []})")).ok());
  EXPECT_FALSE(RunFromBenchDocument(nlohmann::json::array()).ok());
  EXPECT_FALSE(RunFromBenchDocument(nlohmann::json::parse(R"({"schema": "gpuprobe.bench.v1", "results": 3})")).ok());
}

}  // namespace
}  // namespace gpuprobe::history
