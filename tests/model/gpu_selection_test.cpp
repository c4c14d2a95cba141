#include "model/gpu_selection.h"

#include <gtest/gtest.h>

#include "core/embedded_data.h"

namespace gpuprobe::model {
namespace {

SpecDatabase Db() {
  return *SpecDatabase::Parse(*core::EmbeddedFile("gpu_specs.json"), *core::EmbeddedFile("host_links.json"));
}

TEST(GpuSelection, EveryTaskPicksGpusThatMeetItsRule) {
  SpecDatabase db = Db();
  for (const auto& rule : TaskRules()) {
    auto picks = SelectGpus(db, rule);
    ASSERT_FALSE(picks.empty()) << rule.id;
    EXPECT_LE(picks.size(), rule.picks);
    for (size_t i = 0; i < picks.size(); ++i) {
      const GpuSpec& g = *picks[i].gpu;
      EXPECT_GE(g.memory_size_gb_vendor.ValueOr(0), rule.min_memory_gb) << rule.id << " " << g.name;
      if (rule.needs_nvlink) {
        EXPECT_TRUE(g.nvlink_total_bidirectional_gb_per_s.known()) << g.name;
      }
      if (rule.nvidia_only) {
        EXPECT_EQ(g.vendor, "NVIDIA") << g.name;
      }
      if (i > 0) {
        EXPECT_GE(picks[i - 1].score, picks[i].score) << rule.id;
      }
      EXPECT_GE(picks[i].reasons.size(), 2u);
    }
  }
}

TEST(GpuSelection, LargeTrainingNeedsAnInterconnectAndServingRanksByBandwidthAndMemory) {
  SpecDatabase db = Db();
  auto training = SelectGpus(db, *FindTaskRule("large-training"));
  for (const auto& pick : training) {
    bool mentions_nvlink = false;
    for (const auto& reason : pick.reasons) mentions_nvlink |= reason.find("NVLink") != std::string::npos;
    EXPECT_TRUE(mentions_nvlink) << pick.gpu->name;
  }
  auto serving = SelectGpus(db, *FindTaskRule("llm-serving"));
  ASSERT_GE(serving.size(), 2u);
  // The H200 must outrank the H100 SXM: same compute, 1.43x the bandwidth, 1.76x the memory.
  int h200 = -1, h100 = -1;
  for (size_t i = 0; i < serving.size(); ++i) {
    if (serving[i].gpu->name == "H200 SXM 141GB") h200 = static_cast<int>(i);
    if (serving[i].gpu->name == "H100 SXM5 80GB") h100 = static_cast<int>(i);
  }
  if (h100 >= 0) {
    ASSERT_GE(h200, 0) << "the H100 is picked but not the H200, which beats it on every criterion";
    EXPECT_LT(h200, h100);
  }
}

TEST(GpuSelection, UnknownTaskSuggestsTheNearest) {
  auto rule = FindTaskRule("finetune");
  ASSERT_FALSE(rule.ok());
  EXPECT_NE(rule.status().message().find("fine-tune"), std::string::npos);
}

}  // namespace
}  // namespace gpuprobe::model
