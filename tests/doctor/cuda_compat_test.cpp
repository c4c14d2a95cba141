// The driver <-> CUDA rules at their boundaries, for CUDA 11.x, 12.x and 13.x. Figures from
// NVIDIA's CUDA Toolkit Release Notes (minimum driver per release) and the CUDA
// Compatibility guide (minor-version floors: 13.x >= 580, 12.x >= 525.60.13, 11.x >= 450.80.02),
// as cited in data/cuda_compat.json.
#include "doctor/cuda_compat.h"

#include <gtest/gtest.h>

namespace gpuprobe::doctor {
namespace {

const CudaCompat& Table() {
  auto table = CudaCompat::Embedded();
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  return **table;
}

TEST(CudaCompat, ComparesVersionsNumberByNumber) {
  EXPECT_LT(CompareVersions("580.95.05", "590.44.01"), 0);
  EXPECT_GT(CompareVersions("535.104.05", "535.54.03"), 0);  // not a string comparison
  EXPECT_EQ(CompareVersions("570.26", "570.26.0"), 0);
  EXPECT_LT(CompareVersions("580", "580.65.06"), 0);
  EXPECT_EQ(CompareVersions("", "0"), 0);
}

TEST(CudaCompat, MinimumDriversAndCeilings) {
  const CudaCompat& c = Table();
  EXPECT_EQ(c.MinDriver("13.0"), "580.65.06");
  EXPECT_EQ(c.MinDriver("12.4.1"), "550.54.14");  // an update reads as its release's row
  EXPECT_EQ(c.MinDriver("12.7"), "");             // there is no 12.7
  EXPECT_EQ(c.MinDriver("12"), "");
  EXPECT_EQ(c.CeilingOf("590.48.01"), "13.1");
  EXPECT_EQ(c.CeilingOf("535.54.03"), "12.2");
  EXPECT_EQ(c.CeilingOf("100.0"), "");
  EXPECT_EQ(c.NewestCuda(), "13.3");
}

TEST(CudaCompat, CeilingBoundaries) {
  const CudaCompat& c = Table();
  EXPECT_EQ(c.CeilingOf("580.65.05"), "12.9");  // one below 13.0's minimum
  EXPECT_EQ(c.CeilingOf("580.65.06"), "13.0");
  EXPECT_EQ(c.CeilingOf("525.60.12"), "11.8");
  EXPECT_EQ(c.CeilingOf("525.60.13"), "12.0");
  EXPECT_EQ(c.CeilingOf("450.51.05"), "11.0");
}

TEST(CudaCompat, Cuda13Boundaries) {
  const CudaCompat& c = Table();
  EXPECT_EQ(c.Check("13.0", "580.65.06").level, CompatLevel::kOk);
  EXPECT_EQ(c.Check("13.0", "580.65.05").level,
            CompatLevel::kMinorCompat);  // >= 580, the 13.x floor
  EXPECT_EQ(c.Check("13.1", "580.95.05").level, CompatLevel::kMinorCompat);
  EXPECT_EQ(c.Check("13.1", "590.44.01").level, CompatLevel::kOk);
  EXPECT_EQ(c.Check("13.0", "579.99").level, CompatLevel::kTooOld);
  EXPECT_EQ(c.Check("13.0", "575.57.08").level,
            CompatLevel::kTooOld);  // no minor compatibility across majors
  CompatVerdict v = c.Check("13.0", "535.104.05");
  EXPECT_EQ(v.needed, "580.65.06");
  EXPECT_EQ(v.floor, "580");
  EXPECT_EQ(v.major, 13);
}

TEST(CudaCompat, Cuda12Boundaries) {
  const CudaCompat& c = Table();
  EXPECT_EQ(c.Check("12.0", "525.60.13").level, CompatLevel::kOk);
  EXPECT_EQ(c.Check("12.0", "525.60.12").level, CompatLevel::kTooOld);  // below the 12.x floor too
  EXPECT_EQ(c.Check("12.8", "525.60.13").level, CompatLevel::kMinorCompat);
  EXPECT_EQ(c.Check("12.9", "575.51.02").level, CompatLevel::kMinorCompat);
  EXPECT_EQ(c.Check("12.9", "575.51.03").level, CompatLevel::kOk);
  EXPECT_EQ(c.Check("12.8", "520.61.05").level, CompatLevel::kTooOld);
  EXPECT_EQ(c.Check("12.4", "590.48.01").level, CompatLevel::kOk);  // newer drivers run older CUDA
}

TEST(CudaCompat, Cuda11Boundaries) {
  const CudaCompat& c = Table();
  EXPECT_EQ(c.Check("11.0", "450.51.05").level, CompatLevel::kOk);
  // 11.0 shipped with 450.51.05, but minor-version compatibility needs 450.80.02.
  EXPECT_EQ(c.Check("11.1", "450.51.06").level, CompatLevel::kTooOld);
  EXPECT_EQ(c.Check("11.1", "450.80.02").level, CompatLevel::kMinorCompat);
  EXPECT_EQ(c.Check("11.8", "470.82.01").level, CompatLevel::kMinorCompat);
  EXPECT_EQ(c.Check("11.8", "520.61.05").level, CompatLevel::kOk);
}

TEST(CudaCompat, BeforeCuda11ThereIsNoMinorCompatibility) {
  const CudaCompat& c = Table();
  EXPECT_EQ(c.Check("10.2", "440.33").level, CompatLevel::kOk);
  EXPECT_EQ(c.Check("10.2", "418.39").level, CompatLevel::kTooOld);
  EXPECT_EQ(c.Check("10.2", "418.39").floor, "");
}

TEST(CudaCompat, AMajorAloneAndReleasesTheTableLacks) {
  const CudaCompat& c = Table();
  CompatVerdict v = c.Check("12", "525.60.13");
  EXPECT_EQ(v.level, CompatLevel::kOk);
  EXPECT_EQ(v.needed, "525.60.13");
  EXPECT_EQ(c.Check("12", "520.61.05").level, CompatLevel::kTooOld);
  EXPECT_EQ(c.Check("13.9", "610.43.02").level, CompatLevel::kUnknown);  // newer than the table
  v = c.Check("13.9", "570.26");
  EXPECT_EQ(v.level, CompatLevel::kTooOld);  // but certainly not on a pre-580 driver
  EXPECT_EQ(v.needed, "580");
  EXPECT_EQ(c.Check("8.0", "590.48.01").level, CompatLevel::kUnknown);
}

TEST(CudaCompat, MalformedTablesAreParseErrorsNamingTheField) {
  EXPECT_FALSE(CudaCompat::Parse("{").ok());
  EXPECT_FALSE(CudaCompat::Parse(R"({"toolkits": []})").ok());
  auto bad = CudaCompat::Parse(R"({"toolkits": [{"cuda": "12.0", "min_driver": 525}]})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("min_driver"), std::string::npos);
  auto floor = CudaCompat::Parse(
      R"({"toolkits": [{"cuda": "12.0", "min_driver": "525.60.13"}], "minor_compat": [{"cuda_major": "12"}]})");
  ASSERT_FALSE(floor.ok());
  EXPECT_NE(floor.status().message().find("cuda_major"), std::string::npos);
}

TEST(CudaCompat, RowsAreSortedNewestFirstWhateverTheFileOrder) {
  auto c = CudaCompat::Parse(
      R"({"toolkits": [{"cuda": "12.0", "min_driver": "525.60.13"}, {"cuda": "12.2", "min_driver": "535.54.03"}]})");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->CeilingOf("540"), "12.2");
  EXPECT_EQ(c->NewestCuda(), "12.2");
}

}  // namespace
}  // namespace gpuprobe::doctor
