#include "model/quantity.h"

#include <cmath>

#include <gtest/gtest.h>

namespace gpuprobe::model {
namespace {

std::string Message(const core::Status& s) { return s.message(); }

TEST(Quantity, RefusesNegativeZeroFractionalAbsurdAndNonFiniteNamingTheFlag) {
  auto negative = CheckQuantity(Quantity::kBatch, -3, "--batch");
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.code(), core::StatusCode::kInvalidArgument);
  EXPECT_NE(Message(negative).find("--batch cannot be negative"), std::string::npos) << Message(negative);
  EXPECT_NE(Message(CheckQuantity(Quantity::kRequestRate, 0, "--rps")).find("--rps cannot be zero"), std::string::npos);
  EXPECT_NE(Message(CheckQuantity(Quantity::kTokens, 1.5, "--prompt-tokens")).find("whole number"), std::string::npos);
  EXPECT_NE(Message(CheckQuantity(Quantity::kTokens, 1e12, "--seq")).find("--seq 1e+12 is absurd"), std::string::npos);
  EXPECT_FALSE(CheckQuantity(Quantity::kPrice, std::nan(""), "--price").ok());
  EXPECT_FALSE(CheckQuantity(Quantity::kPrice, INFINITY, "--price").ok());
  EXPECT_FALSE(CheckQuantity(Quantity::kFraction, 1.5, "--parallel-fraction").ok());
}

TEST(Quantity, AcceptsTheRangeAndZeroWhereAllowed) {
  EXPECT_TRUE(CheckQuantity(Quantity::kBatch, 1, "--batch").ok());
  EXPECT_TRUE(CheckQuantity(Quantity::kBatch, 1 << 20, "--batch").ok());
  EXPECT_FALSE(CheckQuantity(Quantity::kBatch, (1 << 20) + 1, "--batch").ok());
  EXPECT_TRUE(CheckQuantity(Quantity::kRequestRate, 0.01, "--rps").ok());
  EXPECT_TRUE(CheckQuantity(Quantity::kSeconds, 0, "--think-time").ok());
  EXPECT_FALSE(CheckQuantity(Quantity::kGpuCount, 0, "--ep").ok());
  EXPECT_TRUE(CheckQuantity(Quantity::kGpuCount, 0, "--ep", /*allow_zero=*/true).ok());
  EXPECT_TRUE(CheckQuantity(Quantity::kParams, 7e9, "--params").ok());
  EXPECT_FALSE(CheckQuantity(Quantity::kParams, 5e5, "--params").ok());
  EXPECT_DOUBLE_EQ(QuantityLimit(Quantity::kTokens), 1 << 24);
}

TEST(Quantity, AGpuNameMustNotBeBlank) {
  EXPECT_FALSE(CheckGpuName("", "--gpu").ok());
  EXPECT_FALSE(CheckGpuName("  ", "--gpu").ok());
  EXPECT_NE(CheckGpuName("", "--gpu").message().find("--gpu"), std::string::npos);
  EXPECT_TRUE(CheckGpuName("h100", "--gpu").ok());
}

}  // namespace
}  // namespace gpuprobe::model
