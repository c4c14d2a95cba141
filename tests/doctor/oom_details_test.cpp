#include "doctor/oom_details.h"

#include <gtest/gtest.h>

#include "doctor/cuda_compat.h"
#include "doctor/version_story.h"

namespace gpuprobe::doctor {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;

// The numbers below follow PyTorch's two message formats (synthetic values).
TEST(OutOfMemory, ModernMessageWithFragmentation) {
  auto oom = ParseOutOfMemory("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 400.00 MiB. GPU 0 has a total capacity of 15.77 GiB of which 300.00 MiB is free. Process 12447 has 15.40 GiB memory in use. Of the allocated memory 14.01 GiB is allocated by PyTorch, and 1.20 GiB is reserved by PyTorch but unallocated.");
  ASSERT_TRUE(oom);
  EXPECT_DOUBLE_EQ(oom->requested_bytes, 400.0 * kMiB);
  EXPECT_DOUBLE_EQ(*oom->allocated_bytes, 14.01 * kGiB);
  EXPECT_EQ(oom->diagnosis, "fragmentation");
}

TEST(OutOfMemory, ModernMessageGenuinelyTooBigAndTheTypo) {
  auto oom = ParseOutOfMemory("CUDA out of memory. Tried to allocate 1.22 GiB. GPU 0 has a total capacty of 15.77 GiB of which 959.44 MiB is free. Including non-PyTorch memory, this process has 14.83 GiB memory in use. Of the allocated memory 14.01 GiB is allocated by PyTorch, and 472.05 MiB is reserved by PyTorch but unallocated.");
  ASSERT_TRUE(oom);
  EXPECT_DOUBLE_EQ(*oom->this_process_bytes, 14.83 * kGiB);
  EXPECT_EQ(oom->diagnosis, "too_big");
}

TEST(OutOfMemory, LegacyMessageWithSomeoneElseHoldingTheGpu) {
  auto oom = ParseOutOfMemory("RuntimeError: CUDA out of memory. Tried to allocate 36.00 MiB (GPU 0; 7.93 GiB total capacity; 130.35 MiB already allocated; 47.06 MiB free; 188.00 MiB reserved in total by PyTorch)");
  ASSERT_TRUE(oom);
  EXPECT_DOUBLE_EQ(oom->requested_bytes, 36.0 * kMiB);
  EXPECT_EQ(oom->diagnosis, "someone_else");
  EXPECT_FALSE(ParseOutOfMemory("CUDA out of memory").has_value());
}

TEST(OutOfMemory, ARequestLargerThanTheGpuOrThanAnyGpu) {
  auto larger = ParseOutOfMemory("CUDA out of memory. Tried to allocate 55.57 GiB. GPU 0 has a total capacity of 12.00 GiB of which 9.02 GiB is free. Of the allocated memory 984.52 MiB is allocated by PyTorch, and 463.48 MiB is reserved by PyTorch but unallocated.");
  ASSERT_TRUE(larger);
  EXPECT_EQ(larger->diagnosis, "larger_than_gpu");
  auto absurd = ParseOutOfMemory("BFCArena::AllocateRawInternal Failed to allocate memory for requested buffer of size 4585490524328388608");
  ASSERT_TRUE(absurd);
  EXPECT_EQ(absurd->diagnosis, "absurd_size");
}

TEST(OutOfMemory, OtherFrameworksGiveTheRequest) {
  struct Case {
    const char* text;
    double bytes;
  };
  const Case cases[] = {
      {"E cuda_driver.cc:924] failed to allocate 1.97G (2120187392 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY", 2120187392.0},
      {"XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 7406166528 bytes.", 7406166528.0},
      {"RESOURCE_EXHAUSTED: Failed to allocate request for 2.99GiB (3206250496B) on device ordinal 0", 3206250496.0},
      {"WARNING: [TRT]: Requested amount of GPU memory (4294967296 bytes) could not be allocated.", 4294967296.0},
      {"ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9866.00 MiB on device 1: cudaMalloc failed: out of memory", 9866.0 * kMiB},
      {"alloc_buffer: allocating 1900,00 MiB on device 0: cudaMalloc failed: out of memory", 1900.0 * kMiB},
  };
  for (const auto& c : cases) {
    auto oom = ParseOutOfMemory(c.text);
    ASSERT_TRUE(oom) << c.text;
    EXPECT_DOUBLE_EQ(oom->requested_bytes, c.bytes) << c.text;
    EXPECT_EQ(oom->diagnosis, "request_only") << c.text;
  }
}

TEST(OutOfMemory, HostileNumbersAreHarmless) {
  EXPECT_FALSE(ParseOutOfMemory("Tried to allocate " + std::string(2000000, '1')).has_value());
  std::string many;
  for (int i = 0; i < 5000; ++i) many += "failed to allocate nothing\n";
  EXPECT_FALSE(ParseOutOfMemory(many).has_value());
}

TEST(VersionStories, TheVersionsInAMessageAgainstTheCompatibilityTable) {
  auto compat = CudaCompat::Embedded();
  ASSERT_TRUE(compat.ok());
  auto s = ReadVersionStories("RuntimeError: The NVIDIA driver on your system is too old (found version 11040).\n"
                              "| NVIDIA-SMI 470.86       Driver Version: 470.86       CUDA Version: 11.4",
                              **compat);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].kind, "driver_ceiling");
  EXPECT_EQ(s[0].args["ceiling"], "11.4");
  EXPECT_EQ(s[0].args["min_driver_for_ceiling"], (*compat)->MinDriver("11.4"));
  EXPECT_EQ(s[0].args["driver"], "470.86");
  s = ReadVersionStories("nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update your driver", **compat);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].kind, "container_requirement");
  EXPECT_EQ(s[0].args["min_driver"], (*compat)->MinDriver("12.8"));
  s = ReadVersionStories("NVRM: API mismatch: the client has the version 535.104.05, but this kernel module has the version 535.86.10.", **compat);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].kind, "module_mismatch");
  EXPECT_EQ(s[0].args["module"], "535.86.10");
  s = ReadVersionStories("Outdated cuDNN installation found.\nVersion JAX was built against: 8907\nMinimum supported: 9100\nInstalled version: 8907", **compat);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].args["loaded"], "8.9.7");
  EXPECT_EQ(s[0].args["built"], "9.1.0");
  EXPECT_TRUE(ReadVersionStories("nothing here", **compat).empty());
}

}  // namespace
}  // namespace gpuprobe::doctor
