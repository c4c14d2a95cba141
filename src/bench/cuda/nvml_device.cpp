#include "bench/cuda/nvml_device.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

#include "core/strings.h"
#include "telemetry/snapshot.h"

namespace gpuprobe::bench {
namespace {

template <typename Fn, typename... Args>
nvmlReturn_t Call(Fn fn, Args... args) {
  if (fn == nullptr) return NVML_ERROR_FUNCTION_NOT_FOUND;
  return fn(args...);
}

using core::Lower;

}  // namespace

bool SamePciBusId(const std::string& a, const std::string& b) {
  // "bus:device.function" is the last 7 characters of both forms.
  std::string x = Lower(a), y = Lower(b);
  return x.size() >= 7 && y.size() >= 7 && x.substr(x.size() - 7) == y.substr(y.size() - 7);
}

core::Result<nvmlDevice_t> FindNvmlDevice(const telemetry::NvmlFunctions& f, const std::string& pci_bus_id) {
  unsigned int count = 0;
  if (Call(f.device_count, &count) != NVML_SUCCESS) return core::Status::Unavailable("NVML cannot count the GPUs").WithKeys("error.nvml.cannot_count");
  for (unsigned int i = 0; i < count; ++i) {
    nvmlDevice_t device = nullptr;
    if (Call(f.handle_by_index, i, &device) != NVML_SUCCESS) continue;
    nvmlPciInfo_t pci;
    std::memset(&pci, 0, sizeof pci);
    if (Call(f.pci_info, device, &pci) != NVML_SUCCESS) continue;
    if (SamePciBusId(std::string(pci.busId, strnlen(pci.busId, sizeof pci.busId)), pci_bus_id)) return device;
  }
  return core::Status::NotFound("NVML has no GPU at " + pci_bus_id).WithKeys("error.nvml.no_gpu_at", {{"bus", pci_bus_id}});
}

DeviceSample SampleDevice(const telemetry::NvmlFunctions& f, nvmlDevice_t device) {
  DeviceSample sample;
  std::string note;
  auto add = [&note](const std::string& part) { note += (note.empty() ? "" : ", ") + part; };
  unsigned int mhz = 0, milliwatts = 0, celsius = 0;
  unsigned long long reasons = 0;
  if (Call(f.clock_info, device, static_cast<int>(NVML_CLOCK_SM), &mhz) == NVML_SUCCESS) {
    add(fmt::format("SM {} MHz", mhz));
    sample.clock_hz = mhz * 1e6;
  }
  if (Call(f.power_usage, device, &milliwatts) == NVML_SUCCESS) {
    add(fmt::format("{:.0f} W", milliwatts / 1000.0));
    sample.power_w = milliwatts / 1000.0;
  }
  if (Call(f.temperature, device, static_cast<int>(NVML_TEMPERATURE_GPU), &celsius) == NVML_SUCCESS) add(fmt::format("{} C", celsius));
  if (Call(f.clock_event_reasons, device, &reasons) == NVML_SUCCESS) {
    namespace ce = telemetry::clock_event;
    // The SW power cap is where a GPU under sustained GEMM load normally sits (telemetry's
    // power_capped finding is info too): not a throttle. Thermal limits and hardware
    // slowdowns are.
    sample.power_capped = (reasons & ce::kSwPowerCap) != 0;
    if (sample.power_capped) add("at power limit");
    const std::uint64_t limits = ce::kHwSlowdown | ce::kSwThermal | ce::kHwThermal | ce::kHwPowerBrake;
    if ((reasons & limits) != 0) {
      sample.throttled = true;
      std::string why;
      if (reasons & (ce::kSwThermal | ce::kHwThermal)) why += "thermal";
      if (reasons & (ce::kHwSlowdown | ce::kHwPowerBrake)) why += std::string(why.empty() ? "" : ", ") + "hardware slowdown";
      add("throttled: " + why);
    }
  }
  sample.note = note;
  return sample;
}

std::optional<std::uint64_t> NvmlFreeBytes(const telemetry::NvmlFunctions& f, nvmlDevice_t device) {
  nvmlMemory_v2_t memory2;
  std::memset(&memory2, 0, sizeof memory2);
  memory2.version = GPUPROBE_NVML_MEMORY_V2_VERSION;
  if (Call(f.memory_v2, device, &memory2) == NVML_SUCCESS) return memory2.free;
  nvmlMemory_t memory1{};
  if (Call(f.memory, device, &memory1) == NVML_SUCCESS) return memory1.free;
  return std::nullopt;
}

PcieLink NvmlPcieLink(const telemetry::NvmlFunctions& f, nvmlDevice_t device) {
  PcieLink link;
  unsigned int value = 0;
  if (Call(f.pcie_gen_max, device, &value) == NVML_SUCCESS) link.generation = static_cast<int>(value);
  if (Call(f.pcie_width_max, device, &value) == NVML_SUCCESS) link.lanes = static_cast<int>(value);
  return link;
}

std::shared_ptr<telemetry::NvmlLibrary> SharedNvml() {
  static std::once_flag once;
  static std::shared_ptr<telemetry::NvmlLibrary> nvml;
  std::call_once(once, [] {
    auto opened = telemetry::NvmlLibrary::Open();
    if (opened.ok()) nvml = std::shared_ptr<telemetry::NvmlLibrary>(std::move(opened.value()));
  });
  return nvml;
}

}  // namespace gpuprobe::bench
