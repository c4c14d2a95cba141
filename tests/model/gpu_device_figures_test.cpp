// The device figures a GPU prediction starts from: bandwidth, vector peaks and the pinned
// copy rate, from the runtime's numbers or from the spec database.
#include "model/gpu_device_figures.h"

#include <gtest/gtest.h>

#include "model/advisor.h"

namespace gpuprobe::model {
namespace {

DeviceFigures H100() {
  DeviceFigures h100;
  h100.cc_major = 9;
  h100.cc_minor = 0;
  h100.sm_count = 132;
  h100.sm_clock_hz = 1980e6;
  h100.memory_clock_hz = 2619e6;
  h100.memory_bus_width_bits = 5120;
  return h100;
}

TEST(GpuDeviceFiguresTest, H100FiguresFromTheRuntimesNumbers) {
  DeviceFigures h100 = H100();
  EXPECT_NEAR(*TheoreticalBandwidth(h100), 3.35e12, 0.01e12);
  EXPECT_NEAR(*TheoreticalPeak(h100, "fp32"), 66.9e12, 0.1e12);
  EXPECT_NEAR(*TheoreticalPeak(h100, "fp64"), 33.5e12, 0.1e12);
  EXPECT_FALSE(TheoreticalBandwidth(DeviceFigures{}).has_value());
  EXPECT_EQ(LanesPerSm(8, 6, "fp32"), 128);
  EXPECT_EQ(LanesPerSm(8, 0, "fp32"), 64);
  EXPECT_EQ(LanesPerSm(7, 0, "fp32"), 0);  // Volta is not in the table: no guess
  EXPECT_EQ(LanesPerSm(9, 0, "bf16"), 256);
  EXPECT_EQ(LanesPerSm(8, 0, "bf16"), 128);  // A100: half its fp16 rate
  EXPECT_EQ(LanesPerSm(7, 5, "bf16"), 0);    // Turing has no bf16 arithmetic
}

TEST(GpuDeviceFiguresTest, BlackwellDatacenterAndRtxHaveLanes) {
  DeviceFigures b200;
  b200.cc_major = 10;
  b200.sm_count = 148;
  b200.sm_clock_hz = 1965e6;
  EXPECT_NEAR(*TheoreticalPeak(b200, "fp32"), 74.4e12, 0.1e12);  // the datasheet's ~74 TFLOP/s
  EXPECT_NEAR(*TheoreticalPeak(b200, "fp64"), 37.2e12, 0.1e12);  // and 37 TFLOP/s fp64
  EXPECT_FALSE(TheoreticalPeak(b200, "int32").has_value());     // not published: no guess
  EXPECT_EQ(LanesPerSm(10, 3, "fp64"), 2);                      // B300 cut fp64
  DeviceFigures rtx5090;
  rtx5090.cc_major = 12;
  rtx5090.sm_count = 170;
  rtx5090.sm_clock_hz = 2407e6;
  EXPECT_NEAR(*TheoreticalPeak(rtx5090, "fp32"), 104.8e12, 0.1e12);
  EXPECT_EQ(*TheoreticalPeak(rtx5090, "fp16"), *TheoreticalPeak(rtx5090, "fp32"));
  EXPECT_EQ(LanesPerSm(12, 0, "fp64"), 2);
  EXPECT_EQ(LanesPerSm(12, 1, "int32"), 128);
  EXPECT_EQ(LanesPerSm(11, 0, "fp32"), 0);  // Thor: not in the table
}

TEST(GpuDeviceFiguresTest, PinnedCopiesUseTheModelsOnePcieEfficiency) {
  DeviceFigures h100 = H100();
  EXPECT_FALSE(PinnedCopyBandwidth(h100).has_value());  // link unknown
  h100.pcie_generation = 5;
  h100.pcie_lanes = 16;
  EXPECT_NEAR(*PinnedCopyBandwidth(h100), kPcieEfficiency * 63.0e9, 0.1e9);
}

TEST(GpuDeviceFiguresTest, FiguresFromTheSpecMatchWhatTheRuntimeWouldSay) {
  GpuSpec h200;
  h200.compute_capability = "sm_90";
  h200.sm_count.value = 132;
  h200.boost_clock_mhz.value = 1980;
  h200.memory_data_rate_gbit_per_s_per_pin.value = 6.402;
  h200.memory_bus_width_bits.value = 6144;
  h200.l2_cache_mib.value = 50;
  h200.pcie_generation = 5;
  h200.pcie_lanes = 16;
  DeviceFigures d = DeviceFiguresFromSpec(h200);
  EXPECT_EQ(d.cc_major, 9);
  EXPECT_EQ(d.cc_minor, 0);
  EXPECT_EQ(d.sm_count, 132);
  EXPECT_DOUBLE_EQ(d.memory_clock_hz, 3201e6);  // nvidia-smi's max memory clock on an H200
  EXPECT_NEAR(*TheoreticalBandwidth(d), 4.917e12, 0.001e12);
  EXPECT_EQ(d.l2_bytes, 50ull << 20);
  GpuSpec b200;
  b200.compute_capability = "sm_100";
  DeviceFigures b = DeviceFiguresFromSpec(b200);
  EXPECT_EQ(b.cc_major, 10);
  EXPECT_EQ(b.cc_minor, 0);
  EXPECT_EQ(b.sm_count, 0);  // unknown stays 0
}

}  // namespace
}  // namespace gpuprobe::model
