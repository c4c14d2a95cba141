// GPU-to-GPU links come from each SKU's spec data, not from its vendor.
#include "model/gpu_link.h"

#include <gtest/gtest.h>

#include "core/embedded_data.h"
#include "model/spec_database.h"
#include "model/spec_derivation.h"

namespace gpuprobe::model {
namespace {

const SpecDatabase& Db() {
  static const SpecDatabase db =
      *SpecDatabase::Parse(*core::EmbeddedFile("gpu_specs.json"), *core::EmbeddedFile("host_links.json"));
  return db;
}

const GpuSpec& Gpu(const char* name) { return **Db().Find(name); }

TEST(GpuLink, ReadsTheSkuNotTheVendor) {
  GpuLink h100 = PeerLink(Gpu("h100"));
  EXPECT_EQ(h100.kind, LinkKind::kNvlinkSxm);
  EXPECT_EQ(h100.nvlink_generation, 4);
  EXPECT_DOUBLE_EQ(h100.bytes_per_s, 450e9);  // 900 GB/s bidirectional, gpu_specs.json
  EXPECT_EQ(h100.max_gpus, 8);
  EXPECT_EQ(PeerLink(Gpu("h100-pcie")).kind, LinkKind::kNvlinkBridge);
  GpuLink l40s = PeerLink(Gpu("l40s"));
  EXPECT_EQ(l40s.kind, LinkKind::kPcie);
  EXPECT_NEAR(l40s.bytes_per_s, 16e9 * 16 * 128 / 130 / 8, 1);  // Gen4 x16 per direction
  GpuLink mi355x = PeerLink(Gpu("mi355x"));
  EXPECT_EQ(mi355x.kind, LinkKind::kInfinityFabric);  // never "NVLink" for an AMD part
  EXPECT_DOUBLE_EQ(mi355x.bytes_per_s, 537.6e9);
  EXPECT_EQ(PeerLink(Gpu("agx orin")).kind, LinkKind::kNone);
}

TEST(GpuLink, ABridgeJoinsTwoCardsAndMoreFallBackToPcie) {
  const GpuSpec& a100_pcie = Gpu("a100-pcie-40gb");
  GroupLink two = LinkForGroup(a100_pcie, 2);
  EXPECT_EQ(two.link.kind, LinkKind::kNvlinkBridge);
  EXPECT_FALSE(two.fell_back_to_pcie);
  GroupLink four = LinkForGroup(a100_pcie, 4);
  EXPECT_EQ(four.link.kind, LinkKind::kPcie);
  EXPECT_TRUE(four.fell_back_to_pcie);
  EXPECT_DOUBLE_EQ(four.link.bytes_per_s, *DerivePcieBandwidth(a100_pcie));
  GroupLink sixteen = LinkForGroup(Gpu("h100"), 16);
  EXPECT_EQ(sixteen.link.kind, LinkKind::kNvlinkSxm);
  EXPECT_TRUE(sixteen.beyond_domain);
}

TEST(GpuLink, EveryGpuOfTheDatabaseHasAKindMatchingItsData) {
  for (const auto& g : Db().gpus()) {
    GpuLink link = PeerLink(g);
    if (g.vendor == "AMD") {
      EXPECT_TRUE(link.kind == LinkKind::kInfinityFabric || link.kind == LinkKind::kPcie) << g.name;
    }
    if (g.interconnect == "none (PCIe only)") {
      EXPECT_TRUE(link.kind == LinkKind::kPcie || link.kind == LinkKind::kNone) << g.name;
    } else {
      EXPECT_NE(link.kind, LinkKind::kPcie) << g.name;
    }
    if (link.kind == LinkKind::kNvlinkSxm || link.kind == LinkKind::kNvlinkBridge) {
      EXPECT_TRUE(link.nvlink_generation.has_value()) << g.name;
      EXPECT_GT(link.bytes_per_s, 0) << g.name;
    }
    EXPECT_FALSE(LinkKindId(link.kind).empty());
  }
}

TEST(SpecDatabase, RefusesAnUnknownInterconnectKind) {
  std::string specs = R"({"gpus": [{"name": "X", "vendor": "NVIDIA", "interconnect": "Warp drive"}]})";
  auto db = SpecDatabase::Parse(specs, R"({"links": []})");
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.status().message().find("interconnect"), std::string::npos);
}

}  // namespace
}  // namespace gpuprobe::model
