#include "report/i18n.h"

#include <cstdlib>
#include <regex>
#include <set>

#include <gtest/gtest.h>

namespace gpuprobe::report {
namespace {

std::set<std::string> Placeholders(const std::string& text) {
  std::set<std::string> out;
  std::regex placeholder(R"(\{([a-z_]+)(:[^}]*)?\})");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), placeholder); it != std::sregex_iterator(); ++it) {
    out.insert((*it)[1]);
  }
  return out;
}

TEST(Texts, EnglishAndChineseHaveTheSameKeysAndPlaceholders) {
  auto en = Texts::Load(Language::kEn);
  auto zh = Texts::Load(Language::kZh);
  ASSERT_TRUE(en.ok());
  ASSERT_TRUE(zh.ok());
  auto en_all = en->All();
  auto zh_all = zh->All();
  EXPECT_EQ(en_all.size(), zh_all.size());
  for (const auto& [key, text] : en_all) {
    ASSERT_TRUE(zh_all.count(key)) << "zh lacks " << key;
    EXPECT_EQ(Placeholders(text), Placeholders(zh_all[key])) << key;
    // An optional fragment's "none" text (a suggestion that is absent) is empty in both
    // languages; every other text says something.
    const bool none = key.size() > 5 && key.compare(key.size() - 5, 5, ".none") == 0;
    if (text.empty() || zh_all[key].empty()) {
      EXPECT_TRUE(none) << key << ": only an optional fragment's .none text may be empty";
      EXPECT_EQ(text.empty(), zh_all[key].empty()) << key << ": empty in one language only";
    }
  }
}

TEST(Texts, AMissingKeyIsMarkedNeverSilentlyFilled) {
  auto texts = Texts::FromJson(R"({"a": "zh-a"})", "", Language::kZh);
  ASSERT_TRUE(texts.ok());
  EXPECT_EQ(texts->Get("a"), "zh-a");
  EXPECT_EQ(texts->Get("c"), MissingTextMarker("c"));
  EXPECT_FALSE(texts->Has("c"));
}

TEST(Texts, TheChineseCatalogueDoesNotBorrowEnglish) {
  // Load(zh) has no English fallback: a key only in en/ reads as missing in zh, so the
  // same-keys test above is what keeps zh complete.
  auto zh = Texts::Load(Language::kZh);
  ASSERT_TRUE(zh.ok());
  for (const auto& [key, text] : zh->All()) EXPECT_EQ(text.find("\u27e6missing"), std::string::npos) << key;
  EXPECT_EQ(zh->Get("no.such.key"), MissingTextMarker("no.such.key"));
}

TEST(Texts, MalformedTextsAreParseErrors) {
  EXPECT_FALSE(Texts::FromJson("{", "", Language::kEn).ok());
  EXPECT_FALSE(Texts::FromJson(R"({"a": 1})", "", Language::kEn).ok());
}

TEST(Language, ParsesCodesAndReadsTheLocale) {
  EXPECT_EQ(*ParseLanguage("zh"), Language::kZh);
  EXPECT_FALSE(ParseLanguage("fr").ok());
  ::setenv("LC_ALL", "zh_CN.UTF-8", 1);
  EXPECT_EQ(LanguageFromEnvironment(), Language::kZh);
  ::setenv("LC_ALL", "C.UTF-8", 1);
  EXPECT_EQ(LanguageFromEnvironment(), Language::kEn);
  ::unsetenv("LC_ALL");
}

}  // namespace
}  // namespace gpuprobe::report
