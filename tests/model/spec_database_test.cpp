#include "model/spec_database.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/embedded_data.h"
#include "model/spec_derivation.h"

namespace gpuprobe::model {
namespace {

const SpecDatabase& Db() {
  static const SpecDatabase db = [] {
    auto parsed = SpecDatabase::Parse(*core::EmbeddedFile("gpu_specs.json"), *core::EmbeddedFile("host_links.json"));
    EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
    return *parsed;
  }();
  return db;
}

TEST(SpecDatabase, EmbeddedTableLoadsEveryGpu) {
  // Every entry of the file is loaded (none dropped), and the database covers what users run.
  auto raw = nlohmann::json::parse(*core::EmbeddedFile("gpu_specs.json"));
  EXPECT_EQ(Db().gpus().size(), raw["gpus"].size());
  EXPECT_GE(Db().gpus().size(), 80u);
  EXPECT_EQ(Db().host_links().size(), 7u);
  for (const auto& g : Db().gpus()) {
    EXPECT_FALSE(g.name.empty());
    EXPECT_FALSE(g.sources.empty()) << g.name;
    EXPECT_FALSE(g.confidence.empty()) << g.name;
    EXPECT_TRUE(g.memory_size_gb_vendor.known()) << g.name;
  }
}

// The Chinese notes and form factors say what the English ones say: every one is there, and
// they carry exactly the same figures (a translation that drops or changes a number fails).
TEST(SpecDatabase, ChineseNotesKeepEveryFigure) {
  auto numbers = [](const std::string& text) {
    std::multiset<std::string> out;
    std::string current;
    for (size_t i = 0; i <= text.size(); ++i) {
      char c = i < text.size() ? text[i] : ' ';
      bool digit = c >= '0' && c <= '9';
      bool joins = (c == '.' || c == ',') && !current.empty() && i + 1 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '9';
      if (digit || joins) {
        current += c;
      } else if (!current.empty()) {
        out.insert(current);
        current.clear();
      }
    }
    return out;
  };
  for (const auto& g : Db().gpus()) {
    EXPECT_FALSE(g.form_factor_zh.empty()) << g.name;
    EXPECT_EQ(numbers(g.form_factor_zh), numbers(g.form_factor)) << g.name;
    if (g.notes.empty()) continue;
    EXPECT_FALSE(g.notes_zh.empty()) << g.name;
    EXPECT_EQ(numbers(g.notes_zh), numbers(g.notes)) << g.name;
  }
}

TEST(SpecDatabase, DenseAndSparseFiguresStayApart) {
  const GpuSpec* h200 = *Db().Find("h200");
  EXPECT_DOUBLE_EQ(*h200->fp16_bf16_tensor_dense_tflops.value, 989.4);
  EXPECT_NE(h200->vendor_figures_with_sparsity.find("1979*"), std::string::npos);
  const GpuSpec* t4 = *Db().Find("t4");
  EXPECT_TRUE(t4->tf32_tensor_dense_tflops.not_applicable);
  EXPECT_FALSE(t4->tf32_tensor_dense_tflops.known());
}

struct Lookup {
  const char* query;
  const char* expected;
};

class FindsGpu : public ::testing::TestWithParam<Lookup> {};

TEST_P(FindsGpu, ByNameAliasPartialOrPciId) {
  auto found = Db().Find(GetParam().query);
  ASSERT_TRUE(found.ok()) << GetParam().query << ": " << found.status().ToString();
  EXPECT_EQ((*found)->name, GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(Queries, FindsGpu,
                         ::testing::Values(Lookup{"H200 SXM 141GB", "H200 SXM 141GB"},
                                           Lookup{"h200", "H200 SXM 141GB"},
                                           Lookup{"h100", "H100 SXM5 80GB"},
                                           Lookup{"H100 SXM", "H100 SXM5 80GB"},
                                           Lookup{"h100 pcie", "H100 PCIe 80GB"},
                                           Lookup{"a100 sxm4 80", "A100 SXM4 80GB"},
                                           Lookup{"a100-80gb", "A100 SXM4 80GB"},
                                           Lookup{"4090", "GeForce RTX 4090"},
                                           Lookup{"NVIDIA H200", "H200 SXM 141GB"},
                                           Lookup{"0x2335", "H200 SXM 141GB"},
                                           Lookup{"10de:2330", "H100 SXM5 80GB"},
                                           Lookup{"233510DE", "H200 SXM 141GB"},
                                           Lookup{"mi300x", "AMD Instinct MI300X"},
                                           Lookup{"  L40S  ", "NVIDIA L40S"},
                                           // As people type them: brand run into the number, a
                                           // memory size the name does not carry.
                                           Lookup{"rtx5090", "GeForce RTX 5090"},
                                           Lookup{"RTX3090-24G", "GeForce RTX 3090"},
                                           Lookup{"RTX 4090 24GB", "GeForce RTX 4090"}));

TEST(SpecDatabase, AmbiguousNameListsTheCandidates) {
  auto found = Db().Find("a100");
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().code(), core::StatusCode::kInvalidArgument);
  EXPECT_NE(found.status().message().find("A100 PCIe 40GB"), std::string::npos);
  EXPECT_NE(found.status().message().find("A100 SXM4 80GB"), std::string::npos);
}

// A name whose words are exactly the query's wins over names the query only begins.
TEST(SpecDatabase, AnExactNameWinsOverLongerOnes) {
  auto plain = Db().Find("rtx-3090");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ((*plain)->name, "GeForce RTX 3090");
  auto ti = Db().Find("rtx 3090 ti");
  ASSERT_TRUE(ti.ok());
  EXPECT_EQ((*ti)->name, "GeForce RTX 3090 Ti");
  EXPECT_FALSE(Db().Find("a100").ok()) << "no A100 is named just 'A100': still ambiguous";
}

// A short name that chose one card names the others it could have meant (cli/gpu_choice_note.h):
// "h100" is the SXM5 by its alias, and the PCIe and NVL cards carry the word too; a full name
// has none; "a10" is not also the A100, which only begins with it.
TEST(SpecDatabase, OtherVariantsOfAShortName) {
  auto names = [](const std::vector<const GpuSpec*>& gpus) {
    std::vector<std::string> out;
    for (const auto* g : gpus) out.push_back(g->name);
    return out;
  };
  auto h100 = Db().Find("h100");
  ASSERT_TRUE(h100.ok());
  std::vector<std::string> others = names(Db().OtherVariants("h100", **h100));
  EXPECT_NE(std::find(others.begin(), others.end(), "H100 PCIe 80GB"), others.end());
  EXPECT_EQ(std::find(others.begin(), others.end(), (*h100)->name), others.end()) << "never the chosen one";
  EXPECT_TRUE(Db().OtherVariants((*h100)->name, **h100).empty()) << "its full name is no short name";
  auto rtx = Db().Find("rtx 3090");
  ASSERT_TRUE(rtx.ok());
  EXPECT_EQ(names(Db().OtherVariants("rtx 3090", **rtx)), std::vector<std::string>{"GeForce RTX 3090 Ti"});
  auto a10 = Db().Find("a10");
  ASSERT_TRUE(a10.ok());
  EXPECT_TRUE(Db().OtherVariants("a10", **a10).empty()) << names(Db().OtherVariants("a10", **a10)).front();
}

TEST(SpecDatabase, UnknownNameSuggestsTheNearest) {
  auto found = Db().Find("h2000");
  ASSERT_FALSE(found.ok());
  EXPECT_NE(found.status().message().find("did you mean"), std::string::npos);
  EXPECT_NE(found.status().message().find("h200"), std::string::npos);
  EXPECT_FALSE(Db().Find("").ok());
}

TEST(SpecDatabase, MalformedTablesAreParseErrors) {
  EXPECT_EQ(SpecDatabase::Parse("{", "{\"links\": []}").status().code(), core::StatusCode::kParseError);
  EXPECT_FALSE(SpecDatabase::Parse(R"({"gpus": [{"vendor": "X"}]})", R"({"links": []})").ok());
  auto bad_figure = SpecDatabase::Parse(R"({"gpus": [{"name": "X", "vendor": "Y", "tdp_watts": "hot"}]})",
                                        R"({"links": []})");
  ASSERT_FALSE(bad_figure.ok());
  EXPECT_NE(bad_figure.status().message().find("tdp_watts"), std::string::npos);
  EXPECT_FALSE(SpecDatabase::Parse(R"({"gpus": [{"name": "X", "vendor": "Y"}, {"name": "x", "vendor": "Y"}]})",
                                   R"({"links": []})")
                   .ok());
}

// Every listed figure against its derivation (data rate x bus width / 8; lanes x 2 x clock).
TEST(SpecDerivation, BandwidthDerivationAgreesWithTheSourceTableArithmetic) {
  int checked = 0;
  for (const auto& g : Db().gpus()) {
    DerivedFigure bw = DeriveMemoryBandwidth(g);
    if (!bw.derived) continue;
    ASSERT_TRUE(g.memory_bandwidth_computed_reference_gb_per_s.known()) << g.name;
    EXPECT_NEAR(*bw.derived / 1e9, *g.memory_bandwidth_computed_reference_gb_per_s.value, 1.0) << g.name;
    ++checked;
  }
  EXPECT_GE(checked, 20);
}

TEST(SpecDerivation, OnlyGapsBeyondThreePercentAreFlagged) {
  DerivedFigure h200 = DeriveMemoryBandwidth(**Db().Find("h200"));
  ASSERT_TRUE(h200.derived && h200.vendor);
  EXPECT_NEAR(*h200.derived, 4.9171e12, 1e9);  // 6.402 Gbit/s x 6144 bit / 8
  EXPECT_DOUBLE_EQ(*h200.vendor, 4.8e12);
  EXPECT_FALSE(h200.flagged) << "2.4% is vendor rounding";
  DerivedFigure t4 = DeriveMemoryBandwidth(**Db().Find("t4"));
  EXPECT_TRUE(t4.flagged) << "320 vs 300 GB/s is 6.7%";
}

TEST(SpecDerivation, Fp32PeakIsLanesTimesTwoTimesBoostClock) {
  for (const auto& g : Db().gpus()) {
    DerivedFigure fp32 = DeriveFp32Peak(g);
    if (!fp32.derived || !fp32.vendor) continue;
    EXPECT_DOUBLE_EQ(*fp32.derived, *g.fp32_lanes.value * 2 * *g.boost_clock_mhz.value * 1e6);
    // AMD's CDNA 3 and 4 figures count packed FP32 (two per lane per clock): twice the
    // derivation, by the vendor's definition, not by rounding.
    if (g.vendor == "AMD" && (g.architecture == "CDNA 3" || g.architecture == "CDNA 4")) {
      EXPECT_NEAR(*fp32.gap_fraction, -0.5, 0.01) << g.name;
      continue;
    }
    // Vendors sometimes compute at another clock; the table's own figures stay within 6%.
    EXPECT_LT(std::fabs(*fp32.gap_fraction), 0.06) << g.name;
    EXPECT_EQ(fp32.flagged, std::fabs(*fp32.gap_fraction) > kVendorRoundingTolerance) << g.name;
  }
  // AMD's 163.4 TFLOP/s counts packed FP32 (two per lane per clock): twice the derivation.
  DerivedFigure mi300x = DeriveFp32Peak(**Db().Find("mi300x"));
  EXPECT_TRUE(mi300x.flagged);
  EXPECT_NEAR(*mi300x.gap_fraction, -0.5, 0.01);
  DerivedFigure h100 = DeriveFp32Peak(**Db().Find("h100"));
  EXPECT_NEAR(*h100.derived, 66.9e12, 0.05e12);
}

TEST(SpecDerivation, PciePerDirectionAfterEncodingMatchesTheHostLinkTable) {
  EXPECT_NEAR(*PcieBytesPerSecondPerDirection(3, 16), 15.754e9, 0.01e9);
  EXPECT_NEAR(*PcieBytesPerSecondPerDirection(4, 16), 31.508e9, 0.01e9);
  EXPECT_NEAR(*PcieBytesPerSecondPerDirection(5, 16), 63.015e9, 0.01e9);
  EXPECT_NEAR(*PcieBytesPerSecondPerDirection(2, 16), 8e9, 0.01e9);  // 8b/10b
  EXPECT_FALSE(PcieBytesPerSecondPerDirection(0, 16).has_value());
  for (const auto& link : Db().host_links()) {
    if (link.name.rfind("PCIe Gen", 0) != 0 || link.name.find("Gen6") != std::string::npos) continue;
    int gen = link.name[8] - '0';
    EXPECT_NEAR(*PcieBytesPerSecondPerDirection(gen, 16) / 1e9, *link.peak_bandwidth_gb_per_s, 0.01) << link.name;
  }
  EXPECT_NEAR(*DerivePcieBandwidth(**Db().Find("h200")), 63.015e9, 0.01e9);
}

TEST(SpecDerivation, RidgePointIsPeakOverBandwidth) {
  auto ridge = RidgePointFlopsPerByte(**Db().Find("h200"), "bf16");
  ASSERT_TRUE(ridge);
  EXPECT_NEAR(*ridge, 989.4e12 / 4.8e12, 1e-9);
}

TEST(SpecDerivation, UsableMemoryComesFromADriverCaptureWhenThereIsOne) {
  UsableMemory h200 = DriverUsableMemory(**Db().Find("h200"));
  EXPECT_FALSE(h200.estimated);
  EXPECT_DOUBLE_EQ(h200.bytes, (143771.0 - 614.0) * 1024 * 1024);
  UsableMemory h100 = DriverUsableMemory(**Db().Find("h100"));
  EXPECT_NEAR(h100.bytes / (1024.0 * 1024 * 1024), 79.18, 0.01);  // vLLM sees 79.1-79.3 GiB
  // The A10 from a real ECC-on capture (22.5 GiB, not the sheet's 24); the L4 has none yet.
  UsableMemory a10 = DriverUsableMemory(**Db().Find("a10"));
  EXPECT_FALSE(a10.estimated);
  EXPECT_DOUBLE_EQ(a10.bytes, (23028.0 - 512.0) * 1024 * 1024);
  UsableMemory l4 = DriverUsableMemory(**Db().Find("l4"));
  EXPECT_TRUE(l4.estimated);
  EXPECT_NE(l4.basis.find("estimated"), std::string::npos);
}

}  // namespace
}  // namespace gpuprobe::model
