#include "core/dynamic_library.h"

#include <gtest/gtest.h>

namespace gpuprobe::core {
namespace {

TEST(DynamicLibrary, OpensTheFirstLoadableCandidate) {
  auto library = DynamicLibrary::Open({"libgpuprobe-does-not-exist.so", "libm.so.6"});
  ASSERT_TRUE(library.ok()) << library.status().ToString();
  EXPECT_EQ((*library)->name(), "libm.so.6");
  EXPECT_NE((*library)->Symbol("cos"), nullptr);
  EXPECT_EQ((*library)->Symbol("gpuprobe_no_such_symbol"), nullptr);
}

TEST(DynamicLibrary, NoLoadableCandidateIsUnavailable) {
  auto library = DynamicLibrary::Open({"libgpuprobe-does-not-exist.so"});
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.status().code(), StatusCode::kUnavailable);
  EXPECT_FALSE(CanLoadLibrary("libgpuprobe-does-not-exist.so"));
}

}  // namespace
}  // namespace gpuprobe::core
