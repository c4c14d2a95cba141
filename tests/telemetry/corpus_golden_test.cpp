// One golden test per real capture: what inspect concludes from it (GPUs and the spec entry
// each matched, findings with their severity, confidence, facts and evidence in English and
// Chinese, and what could not be judged) must equal the reviewed expectation in
// tests/fixtures/<corpus>/expected/. A change in any finding shows in review as a diff of
// that file. To rewrite the files after a deliberate change, run the test with
// GPUPROBE_UPDATE_EXPECTED=1 and review the diff before committing it.
#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "telemetry/corpus_support.h"

namespace gpuprobe::testing {
namespace {

struct Case {
  std::string corpus, file;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (const char* corpus : {"captures_public", "nvidia-smi"}) {
    for (const auto& file : CaptureFiles(corpus)) cases.push_back({corpus, file});
  }
  return cases;
}

class CorpusGolden : public ::testing::TestWithParam<Case> {};

TEST_P(CorpusGolden, FindingsMatchTheReviewedExpectation) {
  const Case& c = GetParam();
  nlohmann::json actual = CaptureDocument(c.corpus, c.file);
  EXPECT_FALSE(actual.contains("error")) << c.file << ": " << actual.value("error", "");
  std::string expected_path = FixturePath(ExpectedPath(c.corpus, c.file));
  if (std::getenv("GPUPROBE_UPDATE_EXPECTED") != nullptr) {
    std::ofstream(expected_path) << actual.dump(1) << "\n";
    GTEST_SKIP() << "rewrote " << expected_path;
  }
  std::ifstream in(expected_path);
  ASSERT_TRUE(in.good()) << "no expectation for " << c.file << " (" << expected_path << ")";
  nlohmann::json expected = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(expected.is_discarded()) << expected_path << " is not valid JSON";
  EXPECT_EQ(actual, expected) << c.file << ": the findings changed; review the difference:\n"
                              << nlohmann::json::diff(expected, actual).dump(1);
}

TEST(CorpusGolden, CorpusIsLargeAndEveryExpectationHasACapture) {
  std::vector<Case> cases = Cases();
  EXPECT_GE(cases.size(), 25u);
  for (const char* corpus : {"captures_public", "nvidia-smi"}) {
    for (const auto& entry : std::filesystem::directory_iterator(FixturePath(std::string(corpus) + "/expected"))) {
      std::string name = entry.path().filename().string();
      bool found = false;
      for (const auto& c : cases) found |= c.corpus == corpus && FixturePath(ExpectedPath(c.corpus, c.file)) == entry.path().string();
      EXPECT_TRUE(found || name == "README.md") << "expectation without a capture: " << entry.path();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Captures, CorpusGolden, ::testing::ValuesIn(Cases()), [](const ::testing::TestParamInfo<Case>& param_info) {
  std::string name = param_info.param.corpus + "_" + param_info.param.file;
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
});

}  // namespace
}  // namespace gpuprobe::testing
