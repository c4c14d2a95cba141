// The CUDA backend's NVML reads, driven through a fake function table: a sample after a case
// costs four calls on one GPU and never reads the PCIe counters (each samples for 20 ms);
// the device is found by its PCI bus id in either spelling; free memory needs no context.
#include "bench/cuda/nvml_device.h"

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "telemetry/snapshot.h"

namespace gpuprobe::bench {
namespace {

std::vector<std::string> calls;
nvmlDevice_t const kGpu = reinterpret_cast<nvmlDevice_t>(0x10);
unsigned long long reasons = 0;

nvmlReturn_t Count(unsigned int* n) { calls.push_back("count"); *n = 2; return NVML_SUCCESS; }
nvmlReturn_t Handle(unsigned int i, nvmlDevice_t* d) {
  calls.push_back("handle");
  *d = reinterpret_cast<nvmlDevice_t>(0x10 * (i + 1));
  return NVML_SUCCESS;
}
nvmlReturn_t Pci(nvmlDevice_t d, nvmlPciInfo_t* p) {
  calls.push_back("pci");
  std::strcpy(p->busId, d == kGpu ? "00000000:83:00.0" : "00000000:04:00.0");
  return NVML_SUCCESS;
}
nvmlReturn_t Clock(nvmlDevice_t, int type, unsigned int* mhz) {
  calls.push_back("clock");
  *mhz = type == NVML_CLOCK_SM ? 1980 : 0;
  return NVML_SUCCESS;
}
nvmlReturn_t Power(nvmlDevice_t, unsigned int* mw) { calls.push_back("power"); *mw = 627320; return NVML_SUCCESS; }
nvmlReturn_t Temperature(nvmlDevice_t, int, unsigned int* c) { calls.push_back("temperature"); *c = 52; return NVML_SUCCESS; }
nvmlReturn_t Reasons(nvmlDevice_t, unsigned long long* r) { calls.push_back("reasons"); *r = reasons; return NVML_SUCCESS; }
nvmlReturn_t Throughput(nvmlDevice_t, int, unsigned int* v) { calls.push_back("pcie_throughput"); *v = 0; return NVML_SUCCESS; }
nvmlReturn_t Memory2(nvmlDevice_t, nvmlMemory_v2_t* m) { calls.push_back("memory_v2"); m->free = 140ull << 30; return NVML_SUCCESS; }

telemetry::NvmlFunctions Fake() {
  telemetry::NvmlFunctions f;
  f.device_count = Count;
  f.handle_by_index = Handle;
  f.pci_info = Pci;
  f.clock_info = Clock;
  f.power_usage = Power;
  f.temperature = Temperature;
  f.clock_event_reasons = Reasons;
  f.pcie_throughput = Throughput;
  f.memory_v2 = Memory2;
  return f;
}

TEST(NvmlDeviceTest, ASampleIsFourCheapCallsAndNoPcieCounters) {
  calls.clear();
  reasons = 0;
  DeviceSample sample = SampleDevice(Fake(), kGpu);
  EXPECT_EQ(calls, (std::vector<std::string>{"clock", "power", "temperature", "reasons"}));
  EXPECT_EQ(sample.note, "SM 1980 MHz, 627 W, 52 C");
  EXPECT_DOUBLE_EQ(sample.clock_hz, 1980e6);
  EXPECT_FALSE(sample.throttled);
  EXPECT_DOUBLE_EQ(sample.power_w, 627.32);
  // At the power cap under load: information, not throttling.
  reasons = telemetry::clock_event::kSwPowerCap;
  sample = SampleDevice(Fake(), kGpu);
  EXPECT_FALSE(sample.throttled);
  EXPECT_TRUE(sample.power_capped);
  EXPECT_EQ(sample.note, "SM 1980 MHz, 627 W, 52 C, at power limit");
  reasons = telemetry::clock_event::kSwPowerCap | telemetry::clock_event::kHwThermal;
  sample = SampleDevice(Fake(), kGpu);
  EXPECT_TRUE(sample.throttled);
  EXPECT_TRUE(sample.power_capped);
  EXPECT_NE(sample.note.find("throttled: thermal"), std::string::npos);
  reasons = telemetry::clock_event::kHwPowerBrake;
  sample = SampleDevice(Fake(), kGpu);
  EXPECT_TRUE(sample.throttled);
  EXPECT_FALSE(sample.power_capped);
  EXPECT_NE(sample.note.find("throttled: hardware slowdown"), std::string::npos);
}

TEST(NvmlDeviceTest, FindsTheDeviceByBusIdAndReadsFreeMemoryWithoutAContext) {
  calls.clear();
  auto device = FindNvmlDevice(Fake(), "0000:83:00.0");  // the runtime prints 4 domain digits
  ASSERT_TRUE(device.ok());
  EXPECT_EQ(*device, kGpu);
  EXPECT_FALSE(FindNvmlDevice(Fake(), "0000:99:00.0").ok());
  EXPECT_EQ(NvmlFreeBytes(Fake(), kGpu).value_or(0), 140ull << 30);
  EXPECT_TRUE(SamePciBusId("00000000:83:00.0", "0000:83:00.0"));
  EXPECT_FALSE(SamePciBusId("00000000:83:00.0", "0000:84:00.0"));
  telemetry::NvmlFunctions none;
  EXPECT_FALSE(NvmlFreeBytes(none, kGpu).has_value());  // no symbol: unknown, never a call
  EXPECT_EQ(SampleDevice(none, kGpu).note, "");
}

}  // namespace
}  // namespace gpuprobe::bench
