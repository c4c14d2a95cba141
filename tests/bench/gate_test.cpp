// A gated batch whose gate timed out is an error, never a figure; eager module loading is
// requested unless the user chose a mode.
#include "bench/gate.h"

#include <cstdlib>

#include <gtest/gtest.h>

#include "bench/cuda/module_loading.h"

namespace gpuprobe::bench {
namespace {

TEST(GateTest, ATimedOutGateMakesTheSampleInvalid) {
  auto ok = GatedSeconds(2.0, 4, false);
  ASSERT_TRUE(ok.ok());
  EXPECT_DOUBLE_EQ(*ok, 0.5e-3);
  auto timed_out = GatedSeconds(2.0, 4, true);
  ASSERT_FALSE(timed_out.ok());
  EXPECT_NE(timed_out.status().message().find("timed out"), std::string::npos);
  EXPECT_NE(timed_out.status().hint().find("CUDA_MODULE_LOADING=EAGER"), std::string::npos);
  EXPECT_FALSE(GatedSeconds(0, 4, false).ok());
  EXPECT_FALSE(GatedSeconds(1, 0, false).ok());
}

TEST(ModuleLoadingTest, EagerUnlessTheUserChose) {
  unsetenv("CUDA_MODULE_LOADING");
  EXPECT_EQ(RequestEagerModuleLoading(), "EAGER");
  ASSERT_NE(std::getenv("CUDA_MODULE_LOADING"), nullptr);
  EXPECT_STREQ(std::getenv("CUDA_MODULE_LOADING"), "EAGER");
  setenv("CUDA_MODULE_LOADING", "LAZY", 1);
  EXPECT_EQ(RequestEagerModuleLoading(), "LAZY");
  EXPECT_STREQ(std::getenv("CUDA_MODULE_LOADING"), "LAZY");
  unsetenv("CUDA_MODULE_LOADING");
}

}  // namespace
}  // namespace gpuprobe::bench
