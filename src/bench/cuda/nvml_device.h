// One GPU's NVML handle and the few reads the CUDA backend needs from it, each a single
// cheap NVML call: the clock, power, temperature and throttle reasons after a case (never
// the PCIe throughput counters, which sample for 20 ms each, nor the other GPUs), the link's
// generation and width, and the free memory (so a device query needs no CUDA context).
// CUDA-free: the functions take NVML's function table, so tests drive them with fakes.
//
// Thread safety: one caller at a time per NvmlDevice.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "bench/backend.h"
#include "core/status.h"
#include "telemetry/nvml_library.h"

namespace gpuprobe::bench {

/// Whether the runtime's bus id ("0000:83:00.0") and NVML's ("00000000:83:00.0") name the
/// same device: the domain is printed with 4 or 8 digits, so the tails are compared.
bool SamePciBusId(const std::string& a, const std::string& b);

/// The NVML handle of the GPU at `pci_bus_id` among `f`'s devices; NotFound when none has it.
core::Result<nvmlDevice_t> FindNvmlDevice(const telemetry::NvmlFunctions& f, const std::string& pci_bus_id);

/// The SM clock, power, temperature and throttle reasons now: four NVML calls on `device`.
/// Missing readings stay out of the note; throttled when a thermal limit or a hardware
/// slowdown holds the clocks down; power_capped (not throttled) at the SW power cap.
DeviceSample SampleDevice(const telemetry::NvmlFunctions& f, nvmlDevice_t device);

/// Free memory in bytes (memory v2, else v1); empty when NVML cannot say.
std::optional<std::uint64_t> NvmlFreeBytes(const telemetry::NvmlFunctions& f, nvmlDevice_t device);

/// The PCIe link's maximum generation and width; 0 where NVML cannot say.
struct PcieLink {
  int generation = 0, lanes = 0;
};
PcieLink NvmlPcieLink(const telemetry::NvmlFunctions& f, nvmlDevice_t device);

/// NVML loaded and initialised once per process (shared); nullptr where it cannot be.
std::shared_ptr<telemetry::NvmlLibrary> SharedNvml();

}  // namespace gpuprobe::bench
