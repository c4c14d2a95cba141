#include "core/spelling.h"

#include <gtest/gtest.h>

namespace gpuprobe::core {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(EditDistance("gpus", "gpus"), 0);
  EXPECT_EQ(EditDistance("gpsu", "gpus"), 2);
  EXPECT_EQ(EditDistance("plna", "plan"), 2);
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
