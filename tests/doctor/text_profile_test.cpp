#include "doctor/text_profile.h"

#include <gtest/gtest.h>

#include "knowledge/embedded_knowledge.h"
#include "doctor/error_analysis.h"

namespace gpuprobe::doctor {
namespace {

TextProfile Profile(std::string_view text) {
  auto m = ErrorMatcher::Embedded();
  auto specs = knowledge::Specs();
  auto emitters = EmitterTable::Embedded();
  EXPECT_TRUE(m.ok() && specs.ok() && emitters.ok());
  return ProfileText(text, (*emitters)->Detect(text), **m, **specs);
}

bool Contains(const std::vector<std::string>& items, const std::string& value) {
  return std::find(items.begin(), items.end(), value) != items.end();
}

TEST(TextProfile, AnUnknownGpuTextIsDescribedByWhatItIsMadeOf) {
  TextProfile p = Profile("ggml_cuda_graph_update: CUDA graph update failed: error 7 in ggml-cuda.cu:1234 on RTX 4090, CUDA 12.4, sm_89");
  EXPECT_EQ(p.reading, "gpu");
  ASSERT_FALSE(p.components.empty());
  EXPECT_EQ(p.components.front().emitter->id, "llama_cpp");
  EXPECT_EQ(p.layer, "engine");
  EXPECT_TRUE(Contains(p.codes, "error 7")) << ::testing::PrintToString(p.codes);
  EXPECT_TRUE(Contains(p.versions, "CUDA 12.4")) << ::testing::PrintToString(p.versions);
  EXPECT_TRUE(Contains(p.gpus, "GeForce RTX 4090")) << ::testing::PrintToString(p.gpus);
  EXPECT_TRUE(Contains(p.archs, "sm_89"));
  EXPECT_TRUE(Contains(p.files, "ggml-cuda.cu:1234")) << ::testing::PrintToString(p.files);
  EXPECT_FALSE(p.nearest.empty());
  for (const auto& n : p.nearest) EXPECT_TRUE(n.entry->gpu) << n.entry->id;
}

TEST(TextProfile, OnlyComponentsOutsideTheGpuStackReadAsNotGpu) {
  TextProfile p = Profile("Exception in thread \"main\" java.lang.IllegalStateException: pool closed\n"
                          "\tat com.example.Pool.take(Pool.java:42)");
  EXPECT_EQ(p.reading, "not_gpu");
  EXPECT_EQ(p.layer, "host");
}

TEST(TextProfile, NothingKnownIsUnknownNotSilent) {
  TextProfile p = Profile("the build is slow today");
  EXPECT_EQ(p.reading, "unknown");
  EXPECT_TRUE(p.layer.empty());
}

}  // namespace
}  // namespace gpuprobe::doctor
