#include "model/prices.h"

#include <gtest/gtest.h>

#include "core/embedded_data.h"

namespace gpuprobe::model {
namespace {

const SpecDatabase& Db() {
  static const SpecDatabase db =
      *SpecDatabase::Parse(*core::EmbeddedFile("gpu_specs.json"), *core::EmbeddedFile("host_links.json"));
  return db;
}

TEST(Prices, TheTableParsesAndEveryRowNamesItsSourceAndDate) {
  auto book = PriceBook::Parse(*core::EmbeddedFile("prices/gpu_prices.json"), Db());
  ASSERT_TRUE(book.ok()) << book.status().ToString();
  ASSERT_GE(book->prices().size(), 10u);
  for (const auto& p : book->prices()) {
    EXPECT_NE(p.gpu, nullptr);
    EXPECT_GT(p.usd_per_hour, 0);
    EXPECT_EQ(p.date.size(), 10u) << p.gpu->name;
    EXPECT_EQ(p.source_url.rfind("https://", 0), 0u) << p.gpu->name;
    EXPECT_FALSE(p.user_given);
  }
  EXPECT_NE(book->Find(**Db().Find("h100")), nullptr);
}

TEST(Prices, TheUserOverridesAndBadRowsAreRefusedByName) {
  auto book = PriceBook::Parse(*core::EmbeddedFile("prices/gpu_prices.json"), Db());
  ASSERT_TRUE(book.ok());
  ASSERT_TRUE(book->Override("h100", 2.5, Db()).ok());
  const GpuPrice* h100 = book->Find(**Db().Find("h100"));
  ASSERT_NE(h100, nullptr);
  EXPECT_DOUBLE_EQ(h100->usd_per_hour, 2.5);
  EXPECT_TRUE(h100->user_given);
  ASSERT_TRUE(book->Override("l4", 0.8, Db()).ok());  // not in the table: added
  EXPECT_NE(book->Find(**Db().Find("l4")), nullptr);
  EXPECT_FALSE(book->Override("h2000", 1, Db()).ok());
  EXPECT_FALSE(book->Override("h100", -1, Db()).ok());

  auto bad = PriceBook::Parse(R"({"prices": [{"gpu": "h100", "usd_per_gpu_hour": -2, "provider": "p",
                                  "offer": "o", "date": "2026-01-01", "source_url": "https://x"}]})", Db());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("usd_per_gpu_hour"), std::string::npos);
  auto unknown = PriceBook::Parse(R"({"prices": [{"gpu": "nope", "usd_per_gpu_hour": 2, "provider": "p",
                                      "offer": "o", "date": "2026-01-01", "source_url": "https://x"}]})", Db());
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("'gpu'"), std::string::npos);
}

TEST(Prices, ParsesThePriceFlagAndConvertsToDollarsPerMillionTokens) {
  auto plain = ParsePriceFlag("l4=0.80");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->first, "l4");
  EXPECT_DOUBLE_EQ(plain->second, 0.8);
  auto decorated = ParsePriceFlag("h100 sxm = $2.50/h");
  ASSERT_TRUE(decorated.ok());
  EXPECT_EQ(decorated->first, "h100 sxm");
  EXPECT_DOUBLE_EQ(decorated->second, 2.5);
  for (const char* bad : {"l4", "=1", "l4=", "l4=abc", "l4=-1", "l4=0", "l4=1e9"}) {
    auto parsed = ParsePriceFlag(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_NE(parsed.status().message().find("--price"), std::string::npos) << bad;
  }
  // $3.60 an hour for 1000 tokens/s = 3.6 million tokens an hour: $1 per million.
  EXPECT_DOUBLE_EQ(UsdPerMillionTokens(3.6, 1, 1000), 1.0);
  EXPECT_DOUBLE_EQ(UsdPerMillionTokens(3.6, 4, 1000), 4.0);
}

}  // namespace
}  // namespace gpuprobe::model
