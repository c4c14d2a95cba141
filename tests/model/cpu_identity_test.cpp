#include "model/cpu_identity.h"

#include <gtest/gtest.h>

namespace gpuprobe::model {
namespace {

constexpr const char* kTwoCoreX86 = R"(processor	: 0
vendor_id	: AuthenticAMD
model name	: AMD EPYC 9654 96-Core Processor
physical id	: 0
core id		: 0
cpu MHz		: 2396.398
flags		: fpu sse4_2 avx avx2 avx512f avx512bw

processor	: 1
vendor_id	: AuthenticAMD
model name	: AMD EPYC 9654 96-Core Processor
physical id	: 0
core id		: 0
cpu MHz		: 3100.000
flags		: fpu sse4_2 avx avx2 avx512f avx512bw

processor	: 2
vendor_id	: AuthenticAMD
model name	: AMD EPYC 9654 96-Core Processor
physical id	: 0
core id		: 1
cpu MHz		: 2400.000
flags		: fpu sse4_2 avx avx2 avx512f avx512bw
)";

TEST(CpuIdentity, ParsesModelCoresThreadsAndSimd) {
  CpuIdentity cpu = ParseCpuInfo(kTwoCoreX86);
  EXPECT_EQ(cpu.model_name, "AMD EPYC 9654 96-Core Processor");
  EXPECT_EQ(cpu.vendor, "AuthenticAMD");
  EXPECT_EQ(cpu.logical_cpus, 3);
  ASSERT_TRUE(cpu.physical_cores);
  EXPECT_EQ(*cpu.physical_cores, 2);
  EXPECT_EQ(*cpu.sockets, 1);
  ASSERT_GE(cpu.simd.size(), 3u);
  EXPECT_EQ(cpu.simd[0], "AVX-512");
  EXPECT_DOUBLE_EQ(*cpu.max_mhz, 3100.0);
}

TEST(CpuIdentity, ParsesArmLayout) {
  CpuIdentity cpu = ParseCpuInfo("processor\t: 0\nFeatures\t: fp asimd evtstrm sve\nCPU implementer\t: 0x41\n"
                                 "processor\t: 1\nFeatures\t: fp asimd evtstrm sve\nCPU implementer\t: 0x41\n");
  EXPECT_EQ(cpu.logical_cpus, 2);
  EXPECT_EQ(cpu.vendor, "ARM");
  EXPECT_FALSE(cpu.physical_cores.has_value());
  EXPECT_EQ(cpu.simd, (std::vector<std::string>{"NEON", "SVE"}));
}

TEST(CpuIdentity, EmptyOrGarbageInputLeavesFieldsEmpty) {
  CpuIdentity cpu = ParseCpuInfo("\x01\x02 garbage without colons\n::::\n");
  EXPECT_EQ(cpu.logical_cpus, 0);
  EXPECT_TRUE(cpu.model_name.empty());
}

TEST(CpuIdentity, ReadsMemTotalInKibibytes) {
  CpuIdentity cpu;
  AddMemInfo("MemTotal:       24603956 kB\nMemFree:        1000 kB\n", &cpu);
  ASSERT_TRUE(cpu.memory_total_bytes);
  EXPECT_DOUBLE_EQ(*cpu.memory_total_bytes, 24603956.0 * 1024);
}

}  // namespace
}  // namespace gpuprobe::model
