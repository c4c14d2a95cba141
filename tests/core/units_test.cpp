#include "core/units.h"

#include <gtest/gtest.h>

namespace gpuprobe::core {
namespace {

TEST(Units, BinaryBytesUseThreeSignificantDigits) {
  EXPECT_EQ(FormatBytesBinary(512), "512 B");
  EXPECT_EQ(FormatBytesBinary(1536), "1.50 KiB");
  EXPECT_EQ(FormatBytesBinary(13476831232.0), "12.6 GiB");
  EXPECT_EQ(FormatBytesBinary(143157.0 * kMiB), "140 GiB");
  EXPECT_EQ(FormatBytesBinary(512 * kMiB), "512 MiB");
}

TEST(Units, DecimalBytesAndRatesFollowSpecSheets) {
  EXPECT_EQ(FormatBytesDecimal(13476831232.0), "13.5 GB");
  EXPECT_EQ(FormatBytesPerSecond(4.8e12), "4.80 TB/s");
  EXPECT_EQ(FormatBytesPerSecond(63.015e9), "63.0 GB/s");
  EXPECT_EQ(FormatFlops(989.4e12), "989 TFLOP/s");
  EXPECT_EQ(FormatFlops(1.979e15), "1.98 PFLOP/s");
}

TEST(Units, RoundingThatCarriesKeepsThreeDigits) {
  EXPECT_EQ(FormatSignificant(9.996), "10.0");
  EXPECT_EQ(FormatSignificant(99.96), "100");
}

TEST(Units, SecondsPickAReadableUnit) {
  EXPECT_EQ(FormatSeconds(2.4e-6), "2.40 us");
  EXPECT_EQ(FormatSeconds(3.45e-3), "3.45 ms");
  EXPECT_EQ(FormatSeconds(12), "12.0 s");
  EXPECT_EQ(FormatSeconds(5400), "90.0 min");
}

TEST(Units, IntegersGetThousandsSeparators) {
  EXPECT_EQ(FormatInteger(6738415616ull), "6,738,415,616");
  EXPECT_EQ(FormatInteger(0), "0");
  EXPECT_EQ(FormatInteger(999), "999");
}

TEST(Units, ParseCountAcceptsSuffixes) {
  EXPECT_DOUBLE_EQ(*ParseCount("7B"), 7e9);
  EXPECT_DOUBLE_EQ(*ParseCount("7b"), 7e9);
  EXPECT_DOUBLE_EQ(*ParseCount("1.5T"), 1.5e12);
  EXPECT_DOUBLE_EQ(*ParseCount("350M"), 350e6);
  EXPECT_DOUBLE_EQ(*ParseCount(" 125k "), 125e3);
  EXPECT_DOUBLE_EQ(*ParseCount("6738415616"), 6738415616.0);
}

TEST(Units, ParseCountRejectsGarbage) {
  for (const char* bad : {"", "B", "seven", "7X", "-7B", "0", "nan", "inf", "1e999"}) {
    auto result = ParseCount(bad);
    EXPECT_FALSE(result.ok()) << bad;
    if (!result.ok()) {
      EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument) << bad;
    }
  }
}

TEST(Units, ParseBytesKnowsBinaryAndDecimalUnits) {
  EXPECT_DOUBLE_EQ(*ParseBytes("80GiB"), 80 * kGiB);
  EXPECT_DOUBLE_EQ(*ParseBytes("24 GB"), 24e9);
  EXPECT_DOUBLE_EQ(*ParseBytes("512mib"), 512 * kMiB);
  EXPECT_DOUBLE_EQ(*ParseBytes("1024"), 1024);
  EXPECT_FALSE(ParseBytes("12 parsecs").ok());
  EXPECT_FALSE(ParseBytes("-1GB").ok());
}

}  // namespace
}  // namespace gpuprobe::core
