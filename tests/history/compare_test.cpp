#include <gtest/gtest.h>

#include "bench/bench_document.h"
#include "history/compare.h"
#include "history/run_record.h"

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

bench::BenchResult Result(const std::string& id, bench::Metric metric, double value, bool verified, double p10, double p90) {
  bench::BenchResult r;
  r.id = id;
  r.backend = "cpu";
  r.case_label = "x";
  r.metric = metric;
  r.value = value;
  r.verified = verified;
  r.stats.median = 1.0;
  r.stats.p10 = p10;
  r.stats.p90 = p90;
  return r;
}

TEST(RunFromBenchDocument, ReadsValuesAndSpreadsAndSkipsUnverified) {
  bench::BenchDocument doc;
  doc.gpuprobe_version = "0.1.0";
  doc.cpu.model_name = "Test CPU";
  doc.gpus = {"no GPU"};
  auto triad = Result("memory.triad", bench::Metric::kBandwidth, 20e9, true, 0.9, 1.25);
  triad.case_label = "all threads";
  triad.threads = 2;
  triad.stats.noisy = true;
  auto skipped = Result("compute.fma_bf16", bench::Metric::kFlops, 0, false, 0, 0);
  skipped.skipped = true;
  doc.results = {triad, Result("latency.chase", bench::Metric::kLatency, 90e-9, true, 0.9, 1.1), skipped,
                 Result("memory.copy", bench::Metric::kBandwidth, 1e9, false, 0.9, 1.1)};
  // Through the JSON and back, as history reads a saved run.
  auto reread = bench::BenchDocumentFromJson(bench::BenchDocumentToJson(doc), "run.json");
  ASSERT_TRUE(reread.ok()) << reread.status().message();
  RunRecord run = RunFromBenchDocument(*reread);
  EXPECT_EQ(run.cpu, "Test CPU");
  EXPECT_EQ(run.gpus, "no GPU");
  EXPECT_EQ(run.version, "0.1.0");
  ASSERT_EQ(run.results.size(), 2u);
  EXPECT_EQ(run.results[0].key, "memory.triad|cpu|all threads");
  EXPECT_DOUBLE_EQ(run.results[0].low, 20e9 / 1.25);  // slowest samples give the lowest rate
  EXPECT_DOUBLE_EQ(run.results[0].high, 20e9 / 0.9);
  EXPECT_TRUE(run.results[0].noisy);
  EXPECT_EQ(run.results[0].threads, 2);
  EXPECT_DOUBLE_EQ(run.results[1].low, 90e-9 * 0.9);  // latency grows with time
  EXPECT_DOUBLE_EQ(run.results[1].high, 90e-9 * 1.1);
}

}  // namespace
}  // namespace gpuprobe::history
