// The shared string helpers: what each caller relied on when it had its own copy.
#include "core/strings.h"

#include <gtest/gtest.h>

namespace gpuprobe::core {
namespace {

TEST(Strings, TrimRemovesWhiteSpaceAtBothEndsOnly) {
  EXPECT_EQ(Trim("  a b \t\r\n"), "a b");
  EXPECT_EQ(Trim(" \t "), "");
  EXPECT_EQ(Trim(""), "");
  EXPECT_EQ(Trim("x"), "x");
}

TEST(Strings, LowerChangesAsciiLettersAndKeepsUtf8) {
  EXPECT_EQ(Lower("NVIDIA H200-SXM"), "nvidia h200-sxm");
  EXPECT_EQ(Lower("显存 GiB"), "显存 gib");
}

TEST(Strings, JoinPutsTheSeparatorBetweenItems) {
  EXPECT_EQ(Join({"a", "b", "c"}, ", "), "a, b, c");
  EXPECT_EQ(Join({}, ", "), "");
  EXPECT_EQ(Join({"only"}, "; "), "only");
  // As every former copy had it: leading empty items leave no separator.
  EXPECT_EQ(Join({"", "b"}, ", "), "b");
}

TEST(Strings, PrefixAndSuffix) {
  EXPECT_TRUE(StartsWith("NVRM: Xid", "NVRM:"));
  EXPECT_FALSE(StartsWith("NV", "NVRM:"));
  EXPECT_TRUE(EndsWith("model.gguf", ".gguf"));
  EXPECT_FALSE(EndsWith("gguf", ".gguf"));
  EXPECT_TRUE(EndsWith("x", ""));
}

TEST(Strings, ParseDoubleReadsTheLeadingNumberWithoutThrowing) {
  std::size_t used = 0;
  EXPECT_EQ(ParseDouble("2400.000"), 2400.0);
  EXPECT_EQ(ParseDouble(" 1.5 GiB", &used), 1.5);
  EXPECT_EQ(used, 4u);
  EXPECT_EQ(ParseDouble("3e9"), 3e9);
  EXPECT_FALSE(ParseDouble("").has_value());
  EXPECT_FALSE(ParseDouble("abc").has_value());
  EXPECT_FALSE(ParseDouble("1e999").has_value()) << "out of range, as std::stod refused it";
}

TEST(Strings, ParseIntReadsAnIntThatFits) {
  EXPECT_EQ(ParseInt("6"), 6);
  EXPECT_EQ(ParseInt(" 143 "), 143);
  EXPECT_EQ(ParseInt("-2"), -2);
  EXPECT_FALSE(ParseInt("x6").has_value());
  EXPECT_FALSE(ParseInt("99999999999").has_value());
}

}  // namespace
}  // namespace gpuprobe::core
