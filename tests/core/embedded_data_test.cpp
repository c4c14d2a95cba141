#include "core/embedded_data.h"

#include <gtest/gtest.h>

namespace gpuprobe::core {
namespace {

TEST(EmbeddedData, EveryDataFileIsInTheBinary) {
  for (const char* name : {"gpu_specs.json", "host_links.json", "texts/en/plan.json", "texts/zh/plan.json"}) {
    auto file = EmbeddedFile(name);
    ASSERT_TRUE(file.ok()) << name;
    EXPECT_GT(file->size(), 10u) << name;
    EXPECT_EQ(file->front(), '{') << name;
  }
}

TEST(EmbeddedData, UnknownNameIsAnError) {
  EXPECT_FALSE(EmbeddedFile("no/such/file.json").ok());
}

}  // namespace
}  // namespace gpuprobe::core
