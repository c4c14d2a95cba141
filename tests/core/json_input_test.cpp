#include "core/json_input.h"

#include <string>

#include <gtest/gtest.h>

namespace gpuprobe::core {
namespace {

TEST(JsonInputTest, DeepNestingIsRefusedBeforeParsingWithTheLine) {
  std::string deep = "{\"a\": 1,\n\"b\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  auto status = CheckJsonNesting(deep, "config.json");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kParseError);
  EXPECT_NE(status.message().find("config.json"), std::string::npos);
  EXPECT_NE(status.message().find("line 2"), std::string::npos) << status.message();
  EXPECT_FALSE(ParseJsonInput(deep, "config.json").ok());
}

TEST(JsonInputTest, BracketsInsideStringsDoNotCount) {
  std::string text = "{\"s\": \"" + std::string(500, '[') + "\\\"]\"}";
  EXPECT_TRUE(CheckJsonNesting(text, "x").ok());
  auto parsed = ParseJsonInput(text, "x");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ((*parsed)["s"].get<std::string>().size(), 502u);
}

TEST(JsonInputTest, NestingAtTheLimitIsAccepted) {
  std::string text = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_TRUE(ParseJsonInput(text, "x").ok());
  std::string over = "[" + text + "]";
  EXPECT_FALSE(ParseJsonInput(over, "x").ok());
}

TEST(JsonInputTest, SyntaxErrorNamesFileLineAndColumn) {
  auto parsed = ParseJsonInput("{\n  \"a\": 1,\n  \"b\": }\n", "bench.json");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("bench.json: not valid JSON (line 3"), std::string::npos)
      << parsed.status().message();
}

TEST(JsonInputTest, ANumberBeyondADoubleIsAnErrorNotAnException) {
  auto parsed = ParseJsonInput("{\"hidden_size\": 1e999}", "config.json");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("config.json"), std::string::npos);
}

TEST(JsonInputTest, LineAndColumnCountFromOne) {
  EXPECT_EQ(LineAndColumn("ab\ncd", 0), std::make_pair(1, 1));
  EXPECT_EQ(LineAndColumn("ab\ncd", 4), std::make_pair(2, 2));
}

}  // namespace
}  // namespace gpuprobe::core
