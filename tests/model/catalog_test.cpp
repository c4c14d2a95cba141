// The checked-in model catalogue: every entry plans, ids are unique, typos get suggestions.
#include <set>

#include <gtest/gtest.h>

#include "core/embedded_data.h"
#include "model/hf_config.h"
#include "model/model_catalog.h"

namespace gpuprobe::model {
namespace {

std::vector<CatalogEntry> Catalog() {
  auto text = core::EmbeddedFile("models/catalog.json");
  EXPECT_TRUE(text.ok());
  auto catalog = ParseModelCatalog(text.ok() ? *text : "", "catalog.json");
  EXPECT_TRUE(catalog.ok()) << catalog.status().ToString();
  return catalog.ok() ? *catalog : std::vector<CatalogEntry>{};
}

TEST(ModelCatalog, HoldsFortyModelsThatAllPlan) {
  auto catalog = Catalog();
  EXPECT_GE(catalog.size(), 40u);
  std::set<std::string> ids;
  for (const auto& entry : catalog) {
    EXPECT_TRUE(ids.insert(entry.id).second) << "duplicate " << entry.id;
    EXPECT_EQ(entry.source.rfind("https://", 0), 0u) << entry.id;
    auto shape = ParseHfConfig(entry.config_json, entry.id);
    EXPECT_TRUE(shape.ok()) << entry.id << ": " << shape.status().ToString();
  }
}

TEST(ModelCatalog, FindsByIdOrNameIgnoringCaseAndSuggestsOnATypo) {
  auto catalog = Catalog();
  const CatalogEntry* qwen = FindCatalogEntry(catalog, "qwen/qwen3-30b-a3b");
  ASSERT_NE(qwen, nullptr);
  EXPECT_EQ(qwen->id, "Qwen/Qwen3-30B-A3B");
  ASSERT_NE(FindCatalogEntry(catalog, "Mixtral-8x7B-v0.1"), nullptr);
  EXPECT_EQ(FindCatalogEntry(catalog, "Qwen/Qwen3-30B-A3"), nullptr);
  auto close = SuggestCatalogIds(catalog, "Qwen/Qwen3-30B-A3");
  ASSERT_FALSE(close.empty());
  EXPECT_EQ(close.front(), "Qwen/Qwen3-30B-A3B");
}

}  // namespace
}  // namespace gpuprobe::model
