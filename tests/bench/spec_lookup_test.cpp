// The names the CUDA runtime gives GPUs find their spec entries (tensor-core peaks come from
// there); an unknown name finds nothing rather than a guess.
#include "bench/spec_lookup.h"

#include <gtest/gtest.h>

#include "model/spec_derivation.h"

namespace gpuprobe::bench {
namespace {

TEST(SpecLookupTest, RuntimeNamesFindTheirEntries) {
  const model::GpuSpec* h200 = FindGpuSpec("NVIDIA H200");
  ASSERT_NE(h200, nullptr);
  EXPECT_EQ(h200->name, "H200 SXM 141GB");
  EXPECT_NEAR(*model::PeakFlops(*h200, "bf16"), 989.4e12, 1e9);
  EXPECT_NEAR(*model::PeakFlops(*h200, "fp8"), 1978.9e12, 1e9);
  EXPECT_EQ(FindGpuSpec("NVIDIA Imaginary 9000"), nullptr);
}

}  // namespace
}  // namespace gpuprobe::bench
