// The "what is normal" table: every entry of the shipped file is well formed, the matching
// follows id, backend and case, and the verdict's boundaries are where the header says.
#include "bench/normal_ranges.h"

#include <gtest/gtest.h>

#include "core/embedded_data.h"

namespace gpuprobe::bench {
namespace {

BenchResult Result(const std::string& id, const std::string& backend, const std::string& case_label, double efficiency) {
  BenchResult r;
  r.id = id;
  r.backend = backend;
  r.case_label = case_label;
  r.value = 1;
  r.predicted = 1 / efficiency;
  r.efficiency = efficiency;
  r.verified = true;
  return r;
}

TEST(NormalRanges, ShippedTableParsesAndEveryEntryHasASource) {
  auto text = core::EmbeddedFile("knowledge/normal_ranges.json");
  ASSERT_TRUE(text.ok());
  auto ranges = ParseNormalRanges(std::string(*text), "normal_ranges.json");
  ASSERT_TRUE(ranges.ok()) << ranges.status().message();
  ASSERT_FALSE(ranges->empty());
  for (const auto& r : *ranges) {
    EXPECT_FALSE(r.source.empty());
    EXPECT_TRUE(r.low_reason == "memory" || r.low_reason == "matmul") << r.low_reason;  // texts exist for these
  }
}

TEST(NormalRanges, MatchesIdBackendAndCase) {
  const NormalRange* gpu = FindNormalRange(Result("memory.triad", "cuda", "256 MiB", 0.9));
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->backend, "cuda");
  // The CPU entry is for all threads only: one thread cannot saturate DRAM.
  EXPECT_NE(FindNormalRange(Result("memory.triad", "cpu", "all threads", 0.7)), nullptr);
  EXPECT_EQ(FindNormalRange(Result("memory.triad", "cpu", "1 thread", 0.2)), nullptr);
  EXPECT_EQ(FindNormalRange(Result("latency.chase", "cuda", "HBM", 0.5)), nullptr);
  EXPECT_NE(FindNormalRange(Result("compute.tensor_bf16", "cuda", "n=8192", 0.7)), nullptr);
}

TEST(NormalRanges, VerdictBoundaries) {
  NormalRange range;
  range.low = 0.7;
  range.high = 0.93;
  EXPECT_EQ(JudgeEfficiency(Result("memory.triad", "cuda", "", 0.69), &range), EfficiencyVerdict::kLow);
  EXPECT_EQ(JudgeEfficiency(Result("memory.triad", "cuda", "", 0.70), &range), EfficiencyVerdict::kNormal);
  // Above the usual range but within noise of the prediction: better than most, not wrong.
  EXPECT_EQ(JudgeEfficiency(Result("memory.triad", "cuda", "", 1.0), &range), EfficiencyVerdict::kNormal);
  EXPECT_EQ(JudgeEfficiency(Result("memory.triad", "cuda", "", 1.2), &range), EfficiencyVerdict::kSuspicious);
  // Suspicious needs no range: beating the spec peak is always worth a look.
  EXPECT_EQ(JudgeEfficiency(Result("x", "cpu", "", 1.2), nullptr), EfficiencyVerdict::kSuspicious);
  EXPECT_EQ(JudgeEfficiency(Result("x", "cpu", "", 0.5), nullptr), EfficiencyVerdict::kNone);
  // Against an anchor measured in this run, a spec range means nothing.
  BenchResult anchored = Result("memory.triad", "cuda", "", 0.5);
  anchored.prediction_is_anchor = true;
  EXPECT_EQ(JudgeEfficiency(anchored, &range), EfficiencyVerdict::kNone);
  BenchResult failed = Result("memory.triad", "cuda", "", 0.9);
  failed.error = "out of memory";
  EXPECT_EQ(JudgeEfficiency(failed, &range), EfficiencyVerdict::kNone);
}

TEST(NormalRanges, BadTablesNameTheEntryAndField) {
  auto not_object = ParseNormalRanges("[]", "t.json");
  ASSERT_FALSE(not_object.ok());
  EXPECT_NE(not_object.status().message().find("t.json"), std::string::npos);
  auto no_ids = ParseNormalRanges(R"({"ranges":[{"backend":"cuda","low":0.5,"high":0.9,"source":"s","low_reason":"memory"}]})", "t.json");
  ASSERT_FALSE(no_ids.ok());
  EXPECT_NE(no_ids.status().message().find("ranges[0]"), std::string::npos);
  auto inverted = ParseNormalRanges(
      R"({"ranges":[{"ids":["a"],"backend":"cuda","low":0.9,"high":0.5,"source":"s","low_reason":"memory"}]})", "t.json");
  ASSERT_FALSE(inverted.ok());
  EXPECT_NE(inverted.status().message().find("low < high"), std::string::npos);
  auto missing_low = ParseNormalRanges(R"({"ranges":[{"ids":["a"],"backend":"cuda","high":0.5,"source":"s","low_reason":"m"}]})", "t.json");
  EXPECT_FALSE(missing_low.ok());
  EXPECT_FALSE(ParseNormalRanges("{not json", "t.json").ok());
}

}  // namespace
}  // namespace gpuprobe::bench
