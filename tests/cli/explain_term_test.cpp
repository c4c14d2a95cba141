// The glossary behind `gpuprobe explain TERM` (issue 26): the embedded file parses, every term
// is found by each of its names and answers in English and Chinese (the Chinese with no
// English but names, codes and commands), a name is never claimed by two terms, and the
// rule between a term's name and an error text (docs/explain.md, "Terms and error texts").
#include "cli/explain_term_view.h"

#include <gtest/gtest.h>

#include "cli/zh_leak_checker.h"
#include "knowledge/embedded_knowledge.h"
#include "model/glossary.h"
#include "report/i18n.h"

namespace gpuprobe::cli {
namespace {

const model::Glossary& G() {
  auto g = knowledge::Glossary();
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return **g;
}

const report::Texts& Texts(report::Language language) {
  static const report::Texts en = *report::Texts::Load(report::Language::kEn);
  static const report::Texts zh = *report::Texts::Load(report::Language::kZh);
  return language == report::Language::kZh ? zh : en;
}

const std::set<std::string>& Allowlist() {
  static const std::set<std::string> words = testing::ReadAllowlist(GPUPROBE_TESTS_DIR "/cli/zh_allowlist.txt");
  return words;
}

TEST(Glossary, TheEmbeddedFileParsesOnceWithEveryGroupUsed) {
  ASSERT_TRUE(knowledge::Glossary().ok());
  EXPECT_EQ(*knowledge::Glossary(), *knowledge::Glossary());
  EXPECT_GE(G().terms().size(), 60u);  // issue 26 asks for at least 60
  for (const auto& group : G().groups()) {
    size_t in_group = 0;
    for (const auto& term : G().terms()) in_group += term.group == group.id;
    EXPECT_GT(in_group, 0u) << group.id;
  }
}

TEST(Glossary, EveryNameFindsItsTermWhateverItsCaseSpacesAndHyphens) {
  for (const auto& term : G().terms()) {
    for (const auto& name : term.names) {
      const model::GlossaryTerm* found = G().Find(name);
      ASSERT_NE(found, nullptr) << name;
      EXPECT_EQ(found->id, term.id) << name;
      std::string upper = name, spaced;
      for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      for (char c : name) spaced += c == ' ' ? std::string("-") : std::string(1, c);
      EXPECT_EQ(G().Find(upper), found) << upper;
      EXPECT_EQ(G().Find("  " + spaced + "?"), found) << spaced;
    }
  }
  EXPECT_EQ(G().Find("kv-cache")->id, "kv_cache");
  EXPECT_EQ(G().Find("\"Tensor Cores\"")->id, "tensor_core");
  EXPECT_EQ(G().Find("KV 缓存")->id, "kv_cache");
}

TEST(Glossary, ErrorTextsNumbersAndLongTextsAreNotTerms) {
  EXPECT_EQ(G().Find("Xid 79"), nullptr);
  EXPECT_EQ(G().Find("700"), nullptr);
  EXPECT_EQ(G().Find("CUDA error: an illegal memory access was encountered"), nullptr);
  EXPECT_EQ(G().Find(""), nullptr);
  EXPECT_EQ(G().Find("what is the KV cache of this model please"), nullptr);
  EXPECT_EQ(G().Find("Xid")->id, "xid");
}

// A newcomer's questions in words (issue 26's) find the terms they are about; a text about
// nothing in the glossary finds none.
TEST(Glossary, AQuestionInWordsFindsTheTermsItIsAbout) {
  auto first = [](const std::vector<std::string>& ids) { return ids.empty() ? std::string("(none)") : ids.front(); };
  EXPECT_EQ(first(G().About("why are host to GPU copies slow")), "host_to_device_copy");
  EXPECT_EQ(first(G().About("what does 100% GPU util mean")), "utilization");
  EXPECT_EQ(first(G().About("how much memory does the kv cache need")), "kv_cache");
  EXPECT_EQ(first(G().About("what is pinned memory for")), "pinned_memory");
  EXPECT_EQ(first(G().About("KV 缓存要占多少显存")), "kv_cache");
  EXPECT_TRUE(G().About("the weather in Lisbon tomorrow").empty());
  EXPECT_TRUE(G().About("").empty());
  // Bounded work: a text far longer than a question (a pasted log) is about nothing.
  EXPECT_TRUE(G().About(std::string(model::Glossary::kMaxQuestionBytes + 1, 'a') + " kv cache").empty());
  EXPECT_LE(G().About("memory bandwidth cache copy decode prefill token throughput latency", 3).size(), 3u);
}

// A short phrase holding a term's name is that term; a sentence is not a phrase.
TEST(Glossary, AShortPhraseNamingATermIsThatTerm) {
  auto id = [](const model::GlossaryTerm* t) { return t == nullptr ? std::string("(none)") : t->id; };
  EXPECT_EQ(id(G().NamedIn("100% GPU util")), "utilization");
  EXPECT_EQ(id(G().NamedIn("gpu_util")), "utilization");  // '-' and '_' read as spaces
  EXPECT_EQ(id(G().NamedIn("my NCCL all-reduce hangs forever")), "(none)");  // five words: a sentence
  EXPECT_EQ(id(G().NamedIn("the weather")), "(none)");
  EXPECT_EQ(id(G().NamedIn(std::string(model::Glossary::kMaxPhraseBytes + 1, 'a'))), "(none)");
}

TEST(Glossary, ParseRefusesANameTwoTermsClaimAndANameThatIsANumber) {
  auto file = [](const std::string& names_a, const std::string& names_b) {
    auto term = [](const std::string& id, const std::string& names) {
      return R"({"id": ")" + id + R"(", "group": "g", "names": )" + names +
             R"(, "title": {"en": "T", "zh": "术语"}, "meaning": {"en": "M", "zh": "含义"},
                "analogy": {"en": "A", "zh": "类比"}, "command": "gpuprobe gpus", "normal": null,
                "see_also": [], "sources": []})";
    };
    return R"({"schema": "gpuprobe.glossary.v1", "groups": [{"id": "g", "en": "G", "zh": "组"}], "terms": [)" +
           term("a", names_a) + ", " + term("b", names_b) + "]}";
  };
  ASSERT_TRUE(model::Glossary::Parse(file(R"(["tensor core"])", R"(["warp"])"), "t").ok());
  auto clash = model::Glossary::Parse(file(R"(["tensor core"])", R"(["Tensor-Core"])"), "t");
  ASSERT_FALSE(clash.ok());
  EXPECT_NE(clash.status().message().find("claims the name 'Tensor-Core' of 'a'"), std::string::npos) << clash.status().message();
  auto number = model::Glossary::Parse(file(R"(["79"])", R"(["warp"])"), "t");
  ASSERT_FALSE(number.ok());
  EXPECT_NE(number.status().message().find("no letter"), std::string::npos);
  EXPECT_FALSE(model::Glossary::Parse(R"({"schema": "gpuprobe.glossary.v2", "groups": [], "terms": []})", "t").ok());
}

TEST(ExplainTerm, EveryTermAnswersInEnglishAndInChinese) {
  for (const auto& term : G().terms()) {
    TermAnswer answer{term.names.front(), &term, {}, {}};
    std::string en = RenderTerm(answer, G(), Texts(report::Language::kEn));
    std::string zh = RenderTerm(answer, G(), Texts(report::Language::kZh));
    EXPECT_NE(en.find(term.meaning.en), std::string::npos) << term.id;
    EXPECT_NE(en.find(term.analogy.en), std::string::npos) << term.id;
    EXPECT_NE(en.find(term.command), std::string::npos) << term.id;
    EXPECT_NE(zh.find(term.meaning.zh), std::string::npos) << term.id;
    EXPECT_NE(zh.find(term.analogy.zh), std::string::npos) << term.id;
    EXPECT_NE(zh.find(term.command), std::string::npos) << term.id;
    if (term.normal) {
      EXPECT_NE(en.find(term.normal->text.en), std::string::npos) << term.id;
      EXPECT_NE(zh.find(term.normal->text.zh), std::string::npos) << term.id;
      EXPECT_NE(zh.find(term.normal->source), std::string::npos) << term.id;
    }
    EXPECT_EQ(en.find("\xEF\xBC"), std::string::npos) << term.id;  // no full-width form in English
    auto leaks = testing::FindLeaks(zh, Allowlist());
    EXPECT_TRUE(leaks.empty()) << term.id << ":\n" << testing::DescribeLeaks(leaks);
    auto json = TermToJson(answer, G(), Texts(report::Language::kZh));
    EXPECT_EQ(json["verdict"], "term");
    EXPECT_EQ(json["term"]["id"], term.id);
    EXPECT_EQ(json["term"]["meaning"], term.meaning.zh);
    EXPECT_EQ(json["term"]["normal"].is_null(), !term.normal.has_value());
  }
}

TEST(ExplainTerm, TheListShowsEveryTermOnceByGroupInBothLanguages) {
  for (auto language : {report::Language::kEn, report::Language::kZh}) {
    std::string list = RenderTermList(G(), Texts(language));
    for (const auto& group : G().groups()) EXPECT_NE(list.find(group.title.In(language == report::Language::kZh)), std::string::npos);
    for (const auto& term : G().terms()) EXPECT_NE(list.find(term.title.In(language == report::Language::kZh) + "\n"), std::string::npos) << term.id;
    if (language == report::Language::kZh) {
      auto leaks = testing::FindLeaks(list, Allowlist());
      EXPECT_TRUE(leaks.empty()) << testing::DescribeLeaks(leaks);
    }
    auto json = TermListToJson(G(), Texts(language));
    size_t count = 0;
    for (const auto& group : json["groups"]) {
      for (const auto& term : group["terms"]) {
        // The name shown is one a reader can type back.
        const model::GlossaryTerm* found = G().Find(term["name"].get<std::string>());
        ASSERT_NE(found, nullptr) << term["name"];
        EXPECT_EQ(found->id, term["id"]);
        ++count;
      }
    }
    EXPECT_EQ(count, G().terms().size());
  }
}

TEST(ExplainTerm, ANameThatIsAlsoAnErrorTextSaysSoAndHowToGetTheErrorAnswer) {
  const model::GlossaryTerm* fm = G().Find("nvidia-fabricmanager");
  ASSERT_NE(fm, nullptr);
  TermAnswer answer{"nvidia-fabricmanager", fm, "fabric_manager", "Fabric Manager failed"};
  std::string en = RenderTerm(answer, G(), Texts(report::Language::kEn));
  EXPECT_NE(en.find("Fabric Manager failed; gpuprobe explain --error \"nvidia-fabricmanager\""), std::string::npos) << en;
  auto json = TermToJson(answer, G(), Texts(report::Language::kEn));
  EXPECT_EQ(json["also_error"]["id"], "fabric_manager");
}

}  // namespace
}  // namespace gpuprobe::cli
