// explain in Chinese: every knowledge entry's answer, every component's name, every GPU
// feature's name and the capability and profile stories read in Chinese: no English but
// names, codes, commands and quoted text (tests/cli/zh_leak_checker.h).
#include <gtest/gtest.h>

#include "knowledge/embedded_knowledge.h"
#include "cli/explain_answer.h"
#include "cli/explain_story.h"
#include "cli/zh_leak_checker.h"
#include "doctor/capability.h"
#include "doctor/emitter.h"
#include "doctor/text_profile.h"
#include "report/i18n.h"

namespace gpuprobe::cli {
namespace {

const std::set<std::string>& Allowlist() {
  static const std::set<std::string> words = testing::ReadAllowlist(GPUPROBE_TESTS_DIR "/cli/zh_allowlist.txt");
  return words;
}

const report::Texts& Zh() {
  static const report::Texts texts = [] {
    auto t = report::Texts::Load(report::Language::kZh);
    EXPECT_TRUE(t.ok());
    return *t;
  }();
  return texts;
}

const doctor::ErrorMatcher& M() {
  auto m = doctor::ErrorMatcher::Embedded();
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return **m;
}

std::string Lines(const std::vector<std::string>& lines, const std::string& prefix = "") {
  std::string out;
  for (const auto& l : lines) out += prefix + l + "\n";
  return out;
}

TEST(ExplainZh, EveryEntryAnswersInChinese) {
  for (const auto& e : M().kb().entries()) {
    auto found = M().Lookup(e.id);
    ASSERT_FALSE(found.empty()) << e.id;
    AnswerText a = Answer(found.front(), M(), Zh());
    std::string all = a.title + "\n" + a.meaning + "\n" + Lines(a.facts) + Lines(a.causes) + Lines(a.fixes) + Lines(a.confirm, "$ ");
    auto leaks = testing::FindLeaks(all, Allowlist());
    EXPECT_TRUE(leaks.empty()) << e.id << ":\n" << testing::DescribeLeaks(leaks);
  }
}

TEST(ExplainZh, ComponentsAndFeaturesHaveChineseNames) {
  auto emitters = doctor::EmitterTable::Embedded();
  ASSERT_TRUE(emitters.ok());
  for (const auto& e : (*emitters)->emitters()) {
    auto leaks = testing::FindLeaks(e.name.zh, Allowlist());
    EXPECT_TRUE(leaks.empty()) << e.id << ": " << testing::DescribeLeaks(leaks);
    EXPECT_FALSE(LayerText(e.layer, Zh()).empty());
  }
  auto features = doctor::FeatureTable::Embedded();
  ASSERT_TRUE(features.ok());
  for (const auto& f : (*features)->features()) {
    auto leaks = testing::FindLeaks(f.name.zh, Allowlist());
    EXPECT_TRUE(leaks.empty()) << f.id << ": " << testing::DescribeLeaks(leaks);
  }
}

TEST(ExplainZh, TheCapabilityAndProfileStoriesReadInChinese) {
  auto specs = knowledge::Specs();
  auto features = doctor::FeatureTable::Embedded();
  auto emitters = doctor::EmitterTable::Embedded();
  ASSERT_TRUE(specs.ok() && features.ok() && emitters.ok());
  auto t4 = (*specs)->Find("t4");
  ASSERT_TRUE(t4.ok());
  for (const char* text : {"Bfloat16 is only supported on GPUs with compute capability of at least 8.0.",
                           "f8e4m3nv is only supported on compute capability >= 90",
                           "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\n"
                           "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90."}) {
    for (const model::GpuSpec* gpu : {static_cast<const model::GpuSpec*>(nullptr), *t4}) {
      auto a = doctor::AnswerCapability(text, **features, **specs, gpu);
      ASSERT_TRUE(a.has_value()) << text;
      auto leaks = testing::FindLeaks(Lines(CapabilityLines(*a, Zh())), Allowlist());
      EXPECT_TRUE(leaks.empty()) << text << "\n" << testing::DescribeLeaks(leaks);
    }
  }
  const char* unknown = "ggml_backend_sched: graph rebuild failed: error 7 in ggml-cuda.cu:1234 on RTX 4090, CUDA 12.4, sm_89";
  auto profile = doctor::ProfileText(unknown, (*emitters)->Detect(unknown), M(), **specs);
  auto leaks = testing::FindLeaks(Lines(ProfileLines(profile, Zh())), Allowlist());
  EXPECT_TRUE(leaks.empty()) << testing::DescribeLeaks(leaks);
}

}  // namespace
}  // namespace gpuprobe::cli
