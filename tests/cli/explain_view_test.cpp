// explain's views: every text key a finding can need exists in both languages, no rendering
// of any Xid or status shows a raw key, and text copied from a log is valid UTF-8 on output.
#include <gtest/gtest.h>

#include "cli/explain_answer.h"
#include "cli/explain_view.h"
#include "report/i18n.h"

namespace gpuprobe::cli {
namespace {

const doctor::ErrorMatcher& M() {
  auto m = doctor::ErrorMatcher::Embedded();
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return **m;
}

TEST(ExplainView, EveryXidAndStatusRendersWithoutARawKeyInBothLanguages) {
  for (auto language : {report::Language::kEn, report::Language::kZh}) {
    auto texts = report::Texts::Load(language);
    ASSERT_TRUE(texts.ok());
    for (const auto& x : M().xids().entries()) {
      doctor::XidEvent event;
      event.number = x.number;
      event.nvswitch = x.nvswitch;
      AnswerText a = Answer(M().ForXid(event, doctor::Evidence::kQuery), M(), *texts);
      std::string all = a.title + a.meaning;
      for (const auto& s : a.facts) all += s;
      for (const auto& s : a.causes) all += s;
      for (const auto& s : a.fixes) all += s;
      EXPECT_EQ(all.find("explain."), std::string::npos) << x.number << ": " << all;
      EXPECT_FALSE(a.causes.empty()) << x.number;
      EXPECT_FALSE(a.fixes.empty()) << x.number;
    }
    for (const auto& s : M().statuses().statuses()) {
      AnswerText a = Answer(M().ForStatus(s, doctor::Evidence::kQuery), M(), *texts);
      std::string all = a.title + a.meaning;
      for (const auto& f : a.fixes) all += f;
      for (const auto& c : a.confirm) all += c;
      EXPECT_EQ(all.find("explain."), std::string::npos) << s.name << ": " << all;
      EXPECT_FALSE(a.fixes.empty()) << s.name;
    }
  }
}

TEST(ExplainView, InvalidUtf8IsReplaced) {
  EXPECT_EQ(ValidUtf8("plain"), "plain");
  EXPECT_EQ(ValidUtf8("\xE6\x98\xBE\xE5\xAD\x98"), "\xE6\x98\xBE\xE5\xAD\x98");  // valid CJK stays
  EXPECT_EQ(ValidUtf8("a\xFF" "b"), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(ValidUtf8("\xC3\x28"), "\xEF\xBF\xBD(");                        // a lead byte without its continuation
  EXPECT_EQ(ValidUtf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");              // overlong '/'
  EXPECT_EQ(ValidUtf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(ValidUtf8("\xE6\x98"), "\xEF\xBF\xBD\xEF\xBF\xBD");              // cut off at the end
}

TEST(ExplainView, ALogWithInvalidBytesRendersAsValidJsonAndText) {
  auto texts = report::Texts::Load(report::Language::kEn);
  ASSERT_TRUE(texts.ok());
  ExplainResult r;
  r.source = "log\xFF";
  r.log = true;
  r.analysis = doctor::Analyze(M(), "RuntimeError: CUDA error: \xFE an illegal memory access was encountered\n", doctor::AnalysisMode::kLog);
  ASSERT_FALSE(r.analysis.hits.empty());
  std::string text = RenderExplain(r, M(), *texts);
  EXPECT_EQ(ValidUtf8(text), text);
  std::string json = ExplainToJson(r, M(), *texts).dump();
  EXPECT_EQ(ValidUtf8(json), json);
}

}  // namespace
}  // namespace gpuprobe::cli
