// The GPUs the CUDA runtime sees, and a minimal verified kernel run. This header is
// CUDA-free: it compiles everywhere. CMake builds cuda_device.cu where nvcc exists and
// cuda_device_absent.cpp where it does not (file selection, no #ifdef).
//
// Thread safety: functions may be called from any thread; the CUDA runtime serialises.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace gpuprobe::bench {

struct CudaDeviceInfo {
  int index = 0;
  std::string name;                 ///< "NVIDIA H200"
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int sm_count = 0;
  double sm_clock_max_mhz = 0;      ///< 0 when the runtime does not report it
  double memory_clock_max_mhz = 0;
  int memory_bus_width_bits = 0;
  std::uint64_t memory_total_bytes = 0;
  std::uint64_t memory_free_bytes = 0;  ///< from NVML; 0 when NVML cannot say (no context is made to ask)
  std::uint64_t l2_cache_bytes = 0;
  std::string pci_bus_id;           ///< "0000:01:00.0"
};

/// Whether this gpuprobe was built with the CUDA backend.
bool CudaBuilt();
/// The CUDA runtime version this binary was built against (e.g. 13000), 0 when not built.
int CudaRuntimeVersion();
/// The driver's CUDA ceiling (e.g. 13010), 0 when there is no driver or no CUDA build.
int CudaDriverVersion();

/// Every visible GPU, without creating a CUDA context on any (attribute queries and NVML
/// only). Unavailable with a one-line reason when there is no driver ("no NVIDIA driver
/// found"), the driver is too old, or CUDA was not built; NotFound when the driver works but
/// no GPU is visible.
core::Result<std::vector<CudaDeviceInfo>> QueryCudaDevices();

struct SmokeTestResult {
  std::uint64_t elements = 0;   ///< vector length used
  bool verified = false;        ///< every element matched the host's computation
  std::uint64_t mismatches = 0;
  double kernel_seconds = 0;    ///< event-timed kernel duration (informational)
};

/// Allocates, runs a tiny kernel (y = a*x + b over a pattern), copies back and verifies on
/// the host. Errors as QueryCudaDevices, or Internal when a CUDA call fails mid-way.
core::Result<SmokeTestResult> RunSmokeTest(int device_index);

}  // namespace gpuprobe::bench
