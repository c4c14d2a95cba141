// Every benchmark of this build has its takeaway in every language, so no result ever shows
// a raw text key.
#include <gtest/gtest.h>

#include "bench/registry.h"
#include "cli/bench_view.h"
#include "report/i18n.h"

namespace gpuprobe::cli {
namespace {

TEST(BenchTextsTest, EveryBenchmarkOfThisBuildRegistersWithoutConflict) {
  bench::BenchmarkRegistry registry;
  bench::RegisterAllBenchmarks(&registry);
  EXPECT_TRUE(registry.status().ok()) << registry.status().ToString();
}

TEST(BenchTextsTest, EveryBenchmarkHasATakeawayInEveryLanguage) {
  bench::BenchmarkRegistry registry;
  bench::RegisterAllBenchmarks(&registry);
  for (auto language : {report::Language::kEn, report::Language::kZh}) {
    auto texts = report::Texts::Load(language);
    ASSERT_TRUE(texts.ok());
    for (const auto& b : registry.all()) {
      const std::string& id = b->Info().id;
      EXPECT_TRUE(texts->Has("takeaway." + id)) << id;
      if (id == "memory.sweep" || id == "latency.chase") {
        EXPECT_TRUE(texts->Has("takeaway." + id + ".summary")) << id;
        for (const auto& backend : b->Info().backends) {
          if (backend != "cpu" && texts->Has("takeaway." + id + "." + backend)) {
            EXPECT_TRUE(texts->Has("takeaway." + id + "." + backend + ".summary")) << id << " " << backend;
          }
        }
      }
    }
  }
}

// A takeaway that quotes a comparison the run lacks (OpenBLAS against the naive loop that was
// not selected; a triad without a model figure) says the figure plainly: no "0.0x", no "-".
TEST(BenchTextsTest, ATakeawayWithoutItsComparisonSaysTheFigurePlainly) {
  auto texts = report::Texts::Load(report::Language::kEn);
  ASSERT_TRUE(texts.ok());
  bench::BenchResult sgemm;
  sgemm.id = "matmul.openblas_sgemm";
  sgemm.group = "matmul";
  sgemm.backend = "cpu";
  sgemm.case_label = "n=1024";
  sgemm.metric = bench::Metric::kFlops;
  sgemm.value = 1.9e11;
  sgemm.predicted = 3.8e11;
  sgemm.efficiency = 0.5;
  sgemm.verified = true;
  std::string alone = Takeaway(sgemm, {sgemm}, *texts, 0);
  EXPECT_EQ(alone.find("0.0x"), std::string::npos) << alone;
  EXPECT_NE(alone.find("190 GFLOP/s"), std::string::npos) << alone;
  bench::BenchResult naive = sgemm;
  naive.id = "matmul.naive";
  naive.value = 1.9e9;
  std::string with_naive = Takeaway(sgemm, {naive, sgemm}, *texts, 0);
  EXPECT_NE(with_naive.find("100.0x the naive loop"), std::string::npos) << with_naive;

  bench::BenchResult triad;
  triad.id = "memory.triad";
  triad.group = "memory";
  triad.backend = "cpu";
  triad.case_label = "all threads";
  triad.metric = bench::Metric::kBandwidth;
  triad.value = 2.9e10;
  triad.verified = true;
  std::string no_model = Takeaway(triad, {triad}, *texts, 0);
  EXPECT_EQ(no_model.find("- of the model"), std::string::npos) << no_model;
  EXPECT_NE(no_model.find("29"), std::string::npos) << no_model;
}

}  // namespace
}  // namespace gpuprobe::cli
