#include "doctor/knowledge_base.h"

#include <gtest/gtest.h>

#include "doctor/error_matcher.h"

namespace gpuprobe::doctor {
namespace {

const KnowledgeBase& Kb() {
  auto kb = KnowledgeBase::Embedded();
  EXPECT_TRUE(kb.ok()) << kb.status().ToString();
  return **kb;
}

// Chinese text carries at least one CJK character: an entry copied from the English into the
// zh field would pass a "not empty" check and still not be Chinese.
bool HasCjk(const std::string& text) {
  for (size_t i = 0; i + 2 < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0xE4 && c <= 0xE9) return true;  // U+4E00..U+9FFF start with E4..E9
  }
  return false;
}

TEST(KnowledgeBase, EveryEntryHasBothLanguagesAndSomethingToDo) {
  for (const auto& e : Kb().entries()) {
    EXPECT_TRUE(HasCjk(e.title.zh)) << e.id;
    EXPECT_TRUE(HasCjk(e.meaning.zh)) << e.id;
    EXPECT_FALSE(e.causes.empty()) << e.id;
    EXPECT_FALSE(e.fixes.empty()) << e.id;
    EXPECT_FALSE(e.confirm.empty()) << e.id;
    for (const auto& c : e.causes) {
      EXPECT_TRUE(HasCjk(c.zh)) << e.id << ": " << c.en;
      // A cause is an explanation, not a pointer to someone else's catalogue.
      EXPECT_EQ(c.en.rfind("See ", 0), std::string::npos) << e.id << ": " << c.en;
    }
    for (const auto& f : e.fixes) EXPECT_TRUE(HasCjk(f.zh)) << e.id << ": " << f.en;
    for (const auto& [name, note] : e.status_notes) EXPECT_TRUE(HasCjk(note.zh)) << e.id << " " << name;
  }
}

TEST(KnowledgeBase, TheXidsOperatorsMeetMostAreWrittenByHand) {
  for (int xid : {8, 13, 31, 32, 43, 45, 48, 61, 62, 63, 64, 68, 69, 74, 79, 92, 94, 95, 109, 119, 120, 121, 122, 140, 143,
                  144, 145, 146, 147, 148, 149, 150, 154}) {
    EXPECT_NE(Kb().ForXid(xid, false), nullptr) << "Xid " << xid;
  }
}

TEST(KnowledgeBase, EveryStatusAndXidAnEntryNamesExists) {
  // ErrorMatcher::Create checks the names against the status table and the Xid catalogue.
  auto matcher = ErrorMatcher::Embedded();
  ASSERT_TRUE(matcher.ok()) << matcher.status().ToString();
}

TEST(KnowledgeBase, AStatusListedByNameWinsOverItsFamily) {
  bool family = true;
  const KnowledgeEntry* e = Kb().ForStatus("NVML_ERROR_LIB_RM_VERSION_MISMATCH", &family);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->id, "nvml_driver_mismatch");
  EXPECT_FALSE(family);
  e = Kb().ForStatus("NVML_ERROR_NO_PERMISSION", &family);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->id, "nvml_error");
  EXPECT_TRUE(family);
  EXPECT_EQ(Kb().ForStatus("cudaErrorInvalidPitchValue"), nullptr);
}

TEST(KnowledgeBase, MalformedKnowledgeIsAParseError) {
  EXPECT_FALSE(KnowledgeBase::Parse("{").ok());
  const char* bad_regex = R"({"entries": [{"id": "x", "title": {"en": "t", "zh": "t"}, "meaning": {"en": "m", "zh": "m"},
      "causes": [{"en": "c", "zh": "c"}], "fixes": [{"en": "f", "zh": "f"}], "patterns": ["("]}]})";
  auto r = KnowledgeBase::Parse(bad_regex);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'x'"), std::string::npos);
  const char* no_zh = R"({"entries": [{"id": "y", "title": {"en": "t"}, "meaning": {"en": "m", "zh": "m"},
      "causes": [{"en": "c", "zh": "c"}], "fixes": [{"en": "f", "zh": "f"}], "patterns": ["a"]}]})";
  EXPECT_FALSE(KnowledgeBase::Parse(no_zh).ok());
  const char* unfindable = R"({"entries": [{"id": "z", "title": {"en": "t", "zh": "t"}, "meaning": {"en": "m", "zh": "m"},
      "causes": [{"en": "c", "zh": "c"}], "fixes": [{"en": "f", "zh": "f"}]}]})";
  EXPECT_FALSE(KnowledgeBase::Parse(unfindable).ok());
  const char* bad_yield = R"({"entries": [{"id": "w", "title": {"en": "t", "zh": "t"}, "meaning": {"en": "m", "zh": "m"},
      "causes": [{"en": "c", "zh": "c"}], "fixes": [{"en": "f", "zh": "f"}], "patterns": ["a"], "yields_to": ["nope"]}]})";
  EXPECT_FALSE(KnowledgeBase::Parse(bad_yield).ok());
}

TEST(KnowledgeBase, UnknownTextGetsTheClosestEntries) {
  auto closest = Kb().Closest("my NCCL all-reduce hangs forever");
  ASSERT_FALSE(closest.empty());
  EXPECT_EQ(closest.front()->id.rfind("nccl", 0), 0u);
}

}  // namespace
}  // namespace gpuprobe::doctor
