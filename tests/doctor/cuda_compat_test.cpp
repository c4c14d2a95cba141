#include "doctor/cuda_compat.h"

#include <gtest/gtest.h>

namespace gpuprobe::doctor {
namespace {

TEST(CudaCompat, ComparesVersionsNumberByNumber) {
  EXPECT_LT(CompareVersions("580.95.05", "590.44.01"), 0);
  EXPECT_GT(CompareVersions("535.104.05", "535.54.03"), 0);  // not a string comparison
  EXPECT_EQ(CompareVersions("570.26", "570.26.0"), 0);
}

TEST(CudaCompat, MinimumDriversAndCeilings) {
  const CudaCompat& c = **CudaCompat::Embedded();
  EXPECT_EQ(c.MinDriver("13.0"), "580.65.06");
  EXPECT_EQ(c.MinDriver("12.4.1"), "550.54.14");
  EXPECT_EQ(c.CeilingOf("590.48.01"), "13.1");
  EXPECT_EQ(c.CeilingOf("535.54.03"), "12.2");
  EXPECT_EQ(c.CeilingOf("100.0"), "");
}

TEST(CudaCompat, DriverToolkitRules) {
  const CudaCompat& c = **CudaCompat::Embedded();
  EXPECT_EQ(c.Check("12.4", "550.54.14").level, "ok");
  EXPECT_EQ(c.Check("12.8", "535.104.05").level, "minor_compat");  // 12.x on >= 525
  EXPECT_EQ(c.Check("13.0", "535.104.05").level, "too_old");       // no minor compat across majors
  EXPECT_EQ(c.Check("13.1", "580.95.05").level, "minor_compat");
  EXPECT_EQ(c.Check("12.0", "470.82.01").level, "too_old");
}

}  // namespace
}  // namespace gpuprobe::doctor
