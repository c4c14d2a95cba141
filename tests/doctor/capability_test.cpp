#include "doctor/capability.h"

#include <gtest/gtest.h>

#include "knowledge/embedded_knowledge.h"

namespace gpuprobe::doctor {
namespace {

const FeatureTable& Features() {
  auto t = FeatureTable::Embedded();
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return **t;
}

const model::SpecDatabase& Specs() {
  auto db = knowledge::Specs();
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  return **db;
}

std::optional<CapabilityAnswer> Ask(std::string_view text, const model::GpuSpec* gpu = nullptr) {
  return AnswerCapability(text, Features(), Specs(), gpu);
}

bool Lists(const CapabilityAnswer& a, const std::string& architecture) {
  return std::any_of(a.have.begin(), a.have.end(), [&](const ArchitectureGroup& g) { return g.architecture == architecture; });
}

TEST(Capability, AStatedMinimumListsTheArchitecturesThatHaveItAndWhatTheGpuLacks) {
  auto a = Ask("ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. "
               "Your Tesla T4 GPU has compute capability 7.5.");
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(a->required.has_value());
  EXPECT_EQ(a->required->Text(), "8.0");
  EXPECT_EQ(a->required_from, "text");
  ASSERT_NE(a->feature, nullptr);
  EXPECT_EQ(a->feature->id, "bf16");
  EXPECT_TRUE(Lists(*a, "Ampere"));
  EXPECT_TRUE(Lists(*a, "Hopper"));
  EXPECT_FALSE(Lists(*a, "Turing"));
  ASSERT_TRUE(a->gpu_cc.has_value());
  EXPECT_EQ(a->gpu_cc->Text(), "7.5");
  EXPECT_EQ(a->gpu_name, "Tesla T4");
  ASSERT_TRUE(a->gpu_has_it.has_value());
  EXPECT_FALSE(*a->gpu_has_it);
  // The groups hold real GPUs of the spec database.
  for (const auto& g : a->have) {
    if (g.architecture == "Hopper") {
      EXPECT_FALSE(g.gpus.empty());
    }
  }
}

TEST(Capability, TheFormsFrameworksPrintAllGiveTheMinimum) {
  struct Case {
    const char* text;
    const char* required;
  };
  const Case cases[] = {
      {"f8e4m3nv is only supported on compute capability >= 90", "9.0"},
      {"torch._scaled_mm is only supported on CUDA devices with compute capability >= 9.0 or 8.9, or ROCm MI300+", "8.9"},
      {"FP8 models require a GPU with Compute Capability 8.9 or higher (e.g., RTX 4090).", "8.9"},
      {"requires device with capability > (9, 0) but your GPU has capability (8, 9) (too old)", "9.0"},
      {"ptxas error   : Feature '.m16n8k16' requires .target sm_80 or higher", "8.0"},
      {"RuntimeError: FlashAttention only supports Ampere GPUs or newer.", "8.0"},
  };
  for (const auto& c : cases) {
    auto a = Ask(c.text);
    ASSERT_TRUE(a.has_value()) << c.text;
    ASSERT_TRUE(a->required.has_value()) << c.text;
    EXPECT_EQ(a->required->Text(), c.required) << c.text;
  }
  auto flash = Ask("RuntimeError: FlashAttention only supports Ampere GPUs or newer.");
  EXPECT_EQ(flash->required_from, "architecture");
  EXPECT_EQ(flash->architecture_named, "Ampere");
  ASSERT_NE(flash->feature, nullptr);
  EXPECT_EQ(flash->feature->id, "flash_attention");
}

TEST(Capability, TheGpuGivenWinsOverTheText) {
  auto h100 = Specs().Find("h100");
  ASSERT_TRUE(h100.ok()) << h100.status().ToString();
  auto a = Ask("FP8 models require a GPU with Compute Capability 8.9 or higher. Your GPU's capability is 8.6.", *h100);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->gpu_from, "option");
  EXPECT_EQ(a->gpu_cc->Text(), "9.0");
  EXPECT_TRUE(*a->gpu_has_it);
}

TEST(Capability, ABuildsArchListAgainstTheGpu) {
  auto a = Ask("NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\n"
               "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.");
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(a->gpu_cc.has_value());
  EXPECT_EQ(a->gpu_cc->Text(), "12.0");
  EXPECT_EQ(a->build_archs.size(), 7u);
  ASSERT_TRUE(a->build_verdict.has_value());
  EXPECT_EQ(a->build_verdict->match, ArchMatch::kNone);
}

TEST(Capability, NoRequirementNoAnswer) {
  EXPECT_FALSE(Ask("RuntimeError: CUDA error: an illegal memory access was encountered").has_value());
  EXPECT_FALSE(Ask("Your GPU has compute capability 8.6").has_value());
  EXPECT_FALSE(Ask("").has_value());
}

TEST(Capability, MalformedFeatureTablesAreParseErrors) {
  EXPECT_FALSE(FeatureTable::Parse("{").ok());
  EXPECT_FALSE(FeatureTable::Parse(R"({"architectures": [], "features": [{"id": "x", "name": {"en": "x", "zh": "x"}, "min_cc": "eight", "words": "x"}]})").ok());
  EXPECT_FALSE(FeatureTable::Parse(R"({"architectures": [], "features": [{"id": "x", "name": {"en": "x"}, "min_cc": "8.0", "words": "x"}]})").ok());
}

}  // namespace
}  // namespace gpuprobe::doctor
