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
// JSON as Python writes it (transformers' save_pretrained): NaN and +-Infinity are values,
// read as strings so no figure is computed from them; the rest stays strict, and an error
// after such a literal is still reported at its own column.
TEST(JsonInput, PythonLiteralsAreReadAsStringsAndErrorsKeepTheirColumn) {
  auto parsed = ParsePythonJsonInput(R"({"a": Infinity, "b": [-Infinity, NaN], "c": "NaN", "d": 1})", "config.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ((*parsed)["a"], "Infinity");
  EXPECT_EQ((*parsed)["b"][0], "-Infinity");
  EXPECT_EQ((*parsed)["b"][1], "NaN");
  EXPECT_EQ((*parsed)["c"], "NaN");
  EXPECT_EQ((*parsed)["d"], 1);
  EXPECT_FALSE(ParseJsonInput(R"({"a": Infinity})", "config.json").ok()) << "strict JSON stays strict";
  auto bad = ParsePythonJsonInput("{\"a\": Infinity, \"b\": tru}", "config.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("line 1, column 25"), std::string::npos) << bad.status().message();
  EXPECT_FALSE(ParsePythonJsonInput("{\"a\": Infinit}", "config.json").ok());
  EXPECT_FALSE(ParsePythonJsonInput("{\"a\": inf}", "config.json").ok());
}

}  // namespace gpuprobe::core
