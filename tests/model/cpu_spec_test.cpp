#include "model/cpu_spec.h"

#include <gtest/gtest.h>

namespace gpuprobe::model {
namespace {

CpuSpec Zen(int family, int model, bool avx512 = false) {
  CpuSpec cpu;
  cpu.vendor = "AuthenticAMD";
  cpu.family = family;
  cpu.model_number = model;
  cpu.has_avx2 = cpu.has_fma = true;
  cpu.has_avx512f = avx512;
  cpu.physical_cores = 2;
  cpu.max_clock_hz = 2e9;
  return cpu;
}

TEST(CpuSpec, FmaPipesFollowTheMicroarchitecture) {
  EXPECT_EQ(FmaPipes(Zen(23, 1)).width_bits, 128);   // Zen / Zen+
  EXPECT_EQ(FmaPipes(Zen(23, 0x31)).width_bits, 256);  // Zen 2
  EXPECT_EQ(FmaPipes(Zen(25, 0x11, true)).width_bits, 256);  // Zen 4: AVX-512 on 256-bit pipes
  CpuSpec intel;
  intel.vendor = "GenuineIntel";
  intel.has_avx2 = intel.has_fma = true;
  EXPECT_EQ(FmaPipes(intel).width_bits, 256);
  intel.has_avx512f = true;
  EXPECT_EQ(FmaPipes(intel).width_bits, 512);
  CpuSpec old;
  EXPECT_EQ(FmaPipes(old).isa, "SSE2");
}

TEST(CpuSpec, PeakIsCoresTimesPipesTimesLanesTimesTwoTimesClock) {
  CpuSpec zen1 = Zen(23, 1);
  EXPECT_DOUBLE_EQ(*CpuPeakFlops(zen1, "fp32", 2), 2 * 2 * 4 * 2 * 2e9);
  EXPECT_DOUBLE_EQ(*CpuPeakFlops(zen1, "fp64", 1), 1 * 2 * 2 * 2 * 2e9);
  zen1.measured_clock_hz = 3e9;  // the measured clock wins
  EXPECT_DOUBLE_EQ(*CpuPeakFlops(zen1, "fp32", 1), 2 * 4 * 2 * 3e9);
  CpuSpec unknown;
  EXPECT_FALSE(CpuPeakFlops(unknown, "fp32", 1).has_value());
}

TEST(CpuSpec, AmdahlLaw) {
  EXPECT_DOUBLE_EQ(AmdahlSpeedup(1.0, 8), 8);
  EXPECT_DOUBLE_EQ(AmdahlSpeedup(0.0, 8), 1);
  EXPECT_NEAR(AmdahlSpeedup(0.9, 2), 1.0 / 0.55, 1e-12);
  EXPECT_NEAR(AmdahlSpeedup(0.9, 1e9), 10, 1e-6);
}

TEST(CpuSpec, LatencyByCacheLevel) {
  CpuSpec cpu = Zen(23, 1);
  cpu.l1d_bytes = 32 << 10;
  cpu.l2_bytes = 512 << 10;
  cpu.l3_bytes = 8 << 20;
  EXPECT_DOUBLE_EQ(TypicalLatencySeconds(cpu, 4096), 4 / 2e9);
  EXPECT_DOUBLE_EQ(TypicalLatencySeconds(cpu, 256 << 10), 14 / 2e9);
  EXPECT_DOUBLE_EQ(TypicalLatencySeconds(cpu, 4 << 20), 45 / 2e9);
  EXPECT_DOUBLE_EQ(TypicalLatencySeconds(cpu, 1 << 30), 90e-9);
}

TEST(CpuSpec, DramPeakFromDmidecode) {
  const char* text = R"(Handle 0x0011, DMI type 17, 92 bytes
Memory Device
	Size: 32 GB
	Speed: 5600 MT/s
	Configured Memory Speed: 4800 MT/s

Handle 0x0012, DMI type 17, 92 bytes
Memory Device
	Size: No Module Installed
	Configured Memory Speed: Unknown

Handle 0x0013, DMI type 17, 92 bytes
Memory Device
	Size: 32 GB
	Configured Memory Speed: 4800 MT/s
)";
  std::string basis;
  auto peak = DramPeakFromDmidecode(text, &basis);
  ASSERT_TRUE(peak);
  EXPECT_DOUBLE_EQ(*peak, 2 * 4800e6 * 8);  // 2 x 38.4 GB/s
  EXPECT_NE(basis.find("2 populated DIMMs"), std::string::npos);
  EXPECT_FALSE(DramPeakFromDmidecode("# dmidecode 3.4\n", &basis).has_value());
  EXPECT_NE(basis.find("unknown"), std::string::npos);
}

}  // namespace
}  // namespace gpuprobe::model
