// NVML loaded with dlopen (nvtop's strategy as an object): one handle, a table of function
// pointers resolved newest version first ("_v3", "_v2", plain). A missing required symbol
// makes Load() fail naming it; a missing optional one leaves its pointer null and the field
// empty; a call through a null pointer never happens. The same code loads the fake NVML of
// the tests through GPUPROBE_NVML_LIBRARY.
//
// Thread safety: after Load() and Init(), calls may come from one thread at a time (NVML is
// thread-safe, our pointer table is immutable).
#pragma once

#include <memory>
#include <string>

#include "core/dynamic_library.h"
#include "core/status.h"
#include "telemetry/nvml_abi.h"

namespace gpuprobe::telemetry {

struct NvmlFunctions {
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*device_count)(unsigned int*) = nullptr;
  nvmlReturn_t (*handle_by_index)(unsigned int, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*name)(nvmlDevice_t, char*, unsigned int) = nullptr;
  // Optional below.
  nvmlReturn_t (*driver_version)(char*, unsigned int) = nullptr;
  nvmlReturn_t (*cuda_driver_version)(int*) = nullptr;
  nvmlReturn_t (*uuid)(nvmlDevice_t, char*, unsigned int) = nullptr;
  nvmlReturn_t (*serial)(nvmlDevice_t, char*, unsigned int) = nullptr;
  nvmlReturn_t (*vbios)(nvmlDevice_t, char*, unsigned int) = nullptr;
  nvmlReturn_t (*pci_info)(nvmlDevice_t, nvmlPciInfo_t*) = nullptr;
  nvmlReturn_t (*memory_v2)(nvmlDevice_t, nvmlMemory_v2_t*) = nullptr;
  nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
  nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t*) = nullptr;
  nvmlReturn_t (*encoder_utilization)(nvmlDevice_t, unsigned int*, unsigned int*) = nullptr;
  nvmlReturn_t (*decoder_utilization)(nvmlDevice_t, unsigned int*, unsigned int*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*temperature_threshold)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*power_usage)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*enforced_power_limit)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*power_limit_constraints)(nvmlDevice_t, unsigned int*, unsigned int*) = nullptr;
  nvmlReturn_t (*performance_state)(nvmlDevice_t, int*) = nullptr;
  nvmlReturn_t (*clock_info)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*max_clock_info)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*clock_event_reasons)(nvmlDevice_t, unsigned long long*) = nullptr;
  nvmlReturn_t (*pcie_gen_current)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*pcie_gen_max)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*pcie_width_current)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*pcie_width_max)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*pcie_throughput)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*pcie_replay)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*persistence)(nvmlDevice_t, int*) = nullptr;
  nvmlReturn_t (*compute_mode)(nvmlDevice_t, int*) = nullptr;
  nvmlReturn_t (*mig_mode)(nvmlDevice_t, unsigned int*, unsigned int*) = nullptr;
  nvmlReturn_t (*ecc_mode)(nvmlDevice_t, int*, int*) = nullptr;
  nvmlReturn_t (*total_ecc_errors)(nvmlDevice_t, int, int, unsigned long long*) = nullptr;
  nvmlReturn_t (*remapped_rows)(nvmlDevice_t, unsigned int*, unsigned int*, unsigned int*, unsigned int*) = nullptr;
  nvmlReturn_t (*retired_pages_pending)(nvmlDevice_t, int*) = nullptr;
  nvmlReturn_t (*fan_speed)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*compute_capability)(nvmlDevice_t, int*, int*) = nullptr;
  nvmlReturn_t (*compute_processes)(nvmlDevice_t, unsigned int*, void*) = nullptr;
  int compute_processes_version = 0;     ///< 3, 2 or 1: which symbol was found
  nvmlReturn_t (*graphics_processes)(nvmlDevice_t, unsigned int*, void*) = nullptr;
  int graphics_processes_version = 0;    ///< same entry layout as the compute list of that version
  nvmlReturn_t (*process_name)(unsigned int, char*, unsigned int) = nullptr;
  // Topology: common ancestor level (nvmlGpuTopologyLevel_t), NVLink state and far end.
  nvmlReturn_t (*topology_common_ancestor)(nvmlDevice_t, nvmlDevice_t, int*) = nullptr;
  nvmlReturn_t (*nvlink_state)(nvmlDevice_t, unsigned int, int*) = nullptr;
  nvmlReturn_t (*nvlink_remote_pci)(nvmlDevice_t, unsigned int, nvmlPciInfo_t*) = nullptr;
  // Presence-only probes for the 535.43-535.85 process layout (nvitop's heuristic).
  void* conf_compute_mem_size_info = nullptr;
  void* running_process_detail_list = nullptr;
};

class NvmlLibrary {
 public:
  /// Opens `path` when given (or $GPUPROBE_NVML_LIBRARY), else libnvidia-ml.so.1 then
  /// libnvidia-ml.so, and resolves the symbols. Unavailable with the loader's message, or
  /// naming the first missing required symbol.
  static core::Result<std::unique_ptr<NvmlLibrary>> Load(const std::string& path = {});
  /// Load(path) then Init(): the library ready to read, the one way every reader opens NVML
  /// (doctor alone calls nvmlInit itself, to word the raw code). Load's or Init's Status.
  static core::Result<std::unique_ptr<NvmlLibrary>> Open(const std::string& path = {});
  ~NvmlLibrary();

  /// nvmlInit; a Status with the meaning of NVML's code (driver not loaded, library/driver
  /// mismatch, blocked by the OS, ...) on failure.
  core::Status Init();
  const NvmlFunctions& fn() const { return fn_; }
  const std::string& loaded_from() const { return library_->name(); }
  /// NVML's own text for a return code, or a generic one.
  std::string ErrorString(nvmlReturn_t code) const;
  /// Whether the process list uses the 32-byte layout of drivers 535.43-535.85.
  bool ProcessLayoutIs535() const;

 private:
  explicit NvmlLibrary(std::unique_ptr<core::DynamicLibrary> library) : library_(std::move(library)) {}
  std::unique_ptr<core::DynamicLibrary> library_;
  NvmlFunctions fn_;
  bool initialised_ = false;
};

/// Maps an NVML return code of nvmlInit (or of any call) to a Status for the user.
core::Status StatusFromNvml(const std::string& context, nvmlReturn_t code, const std::string& nvml_text);

}  // namespace gpuprobe::telemetry
