#include "report/table.h"

#include <gtest/gtest.h>

#include "report/json_document.h"

namespace gpuprobe::report {
namespace {

TEST(DisplayWidth, CountsWideCharactersTwice) {
  EXPECT_EQ(DisplayWidth("abc"), 3);
  EXPECT_EQ(DisplayWidth("显存"), 4);
  EXPECT_EQ(DisplayWidth("GPU 显存"), 8);
  EXPECT_EQ(DisplayWidth(""), 0);
}

TEST(TextTable, PadsColumnsByDisplayWidth) {
  TextTable table({"name", "value"});
  table.SetAlign(1, Align::kRight);
  table.AddRow({"显存", "1"});
  table.AddRow({"bandwidth", "4.80 TB/s"});
  std::string out = table.Render();
  EXPECT_EQ(out,
            "name           value\n"
            "---------  ---------\n"
            "显存               1\n"
            "bandwidth  4.80 TB/s\n");
}

TEST(TextTable, SectionsAndIndent) {
  TextTable table;
  table.AddSection("GPU 0");
  table.AddRow({"a", "b"});
  EXPECT_EQ(table.Render(2), "  GPU 0\n  a  b\n");
}

TEST(JsonDocument, EveryDocumentCarriesAVersionedSchema) {
  auto doc = MakeDocument("plan");
  EXPECT_EQ(doc["schema"], "gpuprobe.plan.v1");
  EXPECT_TRUE(doc.contains("gpuprobe_version"));
  EXPECT_TRUE(NumberOrNull(1.0 / 0.0).is_null());
  EXPECT_EQ(RenderJson(nlohmann::json{{"a", 1}}).back(), '\n');
}

}  // namespace
}  // namespace gpuprobe::report
