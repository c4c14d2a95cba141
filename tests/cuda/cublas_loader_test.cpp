// cuBLAS is opened by soname first, then from the toolkit's library directory recorded at
// configure time: a runfile install without an ld.so.conf entry still finds it.
#include "bench/cuda/cublas_loader.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace gpuprobe::bench {
namespace {

TEST(CublasLoaderTest, SonamesFirstThenTheToolkitsLibraryDirectory) {
  EXPECT_EQ(CublasCandidates("libcublas", "/opt/cuda-13.0/lib64"),
            (std::vector<std::string>{"libcublas.so.13", "libcublas.so.12", "libcublas.so", "/opt/cuda-13.0/lib64/libcublas.so.13",
                                      "/opt/cuda-13.0/lib64/libcublas.so.12", "/opt/cuda-13.0/lib64/libcublas.so"}));
  EXPECT_EQ(CublasCandidates("libcublasLt", "/usr/local/cuda/lib64/").back(), "/usr/local/cuda/lib64/libcublasLt.so");
  EXPECT_EQ(CublasCandidates("libcublas", "").size(), 3u);
}

TEST(CublasLoaderTest, TheBuildRecordsTheToolkitsLibraryDirectory) {
  // This test binary is built only with the CUDA backend, where CMake found the toolkit.
  EXPECT_FALSE(ConfiguredCudaLibraryDir().empty());
}

}  // namespace
}  // namespace gpuprobe::bench
