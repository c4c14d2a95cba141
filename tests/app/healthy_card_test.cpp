// What a healthy card measures, from the spec database and the normal ranges alone.
#include "app/healthy_card.h"

#include <gtest/gtest.h>

#include "knowledge/embedded_knowledge.h"
#include "model/advisor.h"
#include "model/spec_derivation.h"

namespace gpuprobe::app {
namespace {

const model::GpuSpec& Gpu(const std::string& name) { return **(*knowledge::Specs())->Find(name); }

TEST(HealthyCard, H100ReachesThePublishedSharesOfItsPeaks) {
  const model::GpuSpec& h100 = Gpu("h100-sxm");
  auto figures = HealthyFigures(h100);
  ASSERT_EQ(figures.size(), 3u);
  EXPECT_EQ(figures[0].id, "memory_bandwidth");
  EXPECT_EQ(figures[0].benchmark, "memory.triad");
  EXPECT_DOUBLE_EQ(figures[0].peak, *model::MemoryBandwidthBytesPerSecond(h100));
  EXPECT_DOUBLE_EQ(figures[0].low_share, 0.70);  // data/knowledge/normal_ranges.json, BabelStream
  EXPECT_DOUBLE_EQ(figures[0].high_share, 0.93);
  EXPECT_TRUE(figures[0].published());
  EXPECT_NE(figures[0].source.find("BabelStream"), std::string::npos);

  EXPECT_EQ(figures[1].id, "pinned_copy");
  EXPECT_DOUBLE_EQ(figures[1].peak, *model::DerivePcieBandwidth(h100));
  EXPECT_DOUBLE_EQ(figures[1].Low(), *model::DerivePcieBandwidth(h100) * model::kPcieEfficiency);
  EXPECT_FALSE(figures[1].published()) << "no published range: the model's expectation, said as such";

  EXPECT_EQ(figures[2].id, "dense_gemm_bf16");
  EXPECT_DOUBLE_EQ(figures[2].peak, *model::PeakFlops(h100, "bf16"));
  EXPECT_DOUBLE_EQ(figures[2].low_share, 0.60);
  // The range spans GPUs up to 86.9% (A100 SXM); the H100 SXM's own best run is 80.3%
  // (github.com/stas00/ml-engineering), so that is its high end, said as such.
  EXPECT_DOUBLE_EQ(figures[2].own_best, 0.803);
  EXPECT_DOUBLE_EQ(figures[2].high_share, 0.803);
}

// A GPU the source does not list keeps the range's high end; one it lists is capped at its run.
TEST(HealthyCard, AGpusOwnBestRunCapsItsRange) {
  auto l40s = HealthyFigures(Gpu("l40s"));
  ASSERT_EQ(l40s.back().id, "dense_gemm_bf16");
  EXPECT_DOUBLE_EQ(l40s.back().own_best, 0);
  EXPECT_DOUBLE_EQ(l40s.back().high_share, 0.87);
  auto a100 = HealthyFigures(Gpu("a100 pcie 80gb"));
  ASSERT_EQ(a100.back().id, "dense_gemm_bf16");
  EXPECT_DOUBLE_EQ(a100.back().high_share, 0.811);
}

// ECC in band costs GDDR bandwidth, not HBM's: the reasons to worry differ by memory type.
TEST(HealthyCard, EccIsAReasonForGddrOnly) {
  EXPECT_EQ(HealthyFigures(Gpu("h100")).front().worry, "memory_hbm");
  EXPECT_EQ(HealthyFigures(Gpu("a10")).front().worry, "memory");
}

TEST(HealthyCard, NoTensorPeakNoGemmLine) {
  // A GPU whose spec has no BF16 tensor figure (Pascal) has no GEMM line, never a guessed one.
  const model::GpuSpec& p100 = Gpu("p100");
  for (const auto& f : HealthyFigures(p100)) EXPECT_NE(f.id, "dense_gemm_bf16");
}

}  // namespace
}  // namespace gpuprobe::app
