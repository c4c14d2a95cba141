#include "core/spelling.h"

#include <gtest/gtest.h>

namespace gpuprobe::core {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(EditDistance("gpus", "gpus"), 0);
  EXPECT_EQ(EditDistance("gpsu", "gpus"), 1);  // two neighbours swapped: one typing slip
  EXPECT_EQ(EditDistance("plna", "plan"), 1);
  EXPECT_EQ(EditDistance("4900", "4090"), 1);
  EXPECT_EQ(BoundedEditDistance("4900", "4090", 1), 1);
  EXPECT_EQ(EditDistance("h100", "4900"), 2);
  EXPECT_EQ(EditDistance("abc", "cba"), 2);
  EXPECT_EQ(EditDistance("PLAN", "plan"), 0);
  EXPECT_EQ(EditDistance("", "abc"), 3);
}

TEST(ClosestMatches, SuggestsTheNearestVerbFirst) {
  std::vector<std::string> verbs = {"tour", "gpus", "plan"};
  auto near = ClosestMatches("gpu", verbs);
  ASSERT_FALSE(near.empty());
  EXPECT_EQ(near.front(), "gpus");
  EXPECT_TRUE(ClosestMatches("xyzzyxyzzy", verbs).empty());
}

}  // namespace
}  // namespace gpuprobe::core

namespace gpuprobe::core {
namespace {

TEST(BoundedEditDistance, AgreesWithTheFullDistanceWithinTheBound) {
  const std::vector<std::string> words = {"", "a", "h100", "H100 PCIe", "a100-80gb", "rtx 4090", "quadro p400",
                                          "quadro p4000", "geforce rtx 3090 ti", "l40s", "mi300x", "tesla v100-sxm2-16gb"};
  for (const auto& a : words) {
    for (const auto& b : words) {
      int full = EditDistance(a, b);
      for (int bound = 0; bound <= 12; ++bound) {
        EXPECT_EQ(BoundedEditDistance(a, b, bound), full <= bound ? full : bound + 1) << a << " / " << b << " / " << bound;
      }
    }
  }
}

TEST(ClosestMatches, AHugeWordIsNoTypoOfAnyName) {
  const std::string huge(100000, 'A');
  EXPECT_TRUE(ClosestMatches(huge, {"h100", "a100", "AAAA"}).empty());
  EXPECT_EQ(ClosestMatches("h10", {"h100", "a100"}).front(), "h100");
}

}  // namespace
}  // namespace gpuprobe::core
