// Every benchmark of this build has its takeaway in every language, so no result ever shows
// a raw text key.
#include <gtest/gtest.h>

#include "bench/registry.h"
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

}  // namespace
}  // namespace gpuprobe::cli
