#include "telemetry/nvml_library.h"

#include <cstdlib>

#include <fmt/format.h>

namespace gpuprobe::telemetry {
namespace {

template <typename Fn>
void Resolve(const core::DynamicLibrary& lib, Fn* out, std::initializer_list<const char*> names, int* version = nullptr) {
  int v = static_cast<int>(names.size());
  for (const char* name : names) {
    if (void* symbol = lib.Symbol(name)) {
      *out = reinterpret_cast<Fn>(symbol);
      if (version) *version = v;
      return;
    }
    --v;
  }
}

}  // namespace

core::Status StatusFromNvml(const std::string& context, nvmlReturn_t code, const std::string& nvml_text) {
  std::string detail = nvml_text.empty() ? fmt::format("NVML error {}", code) : nvml_text;
  switch (code) {
    case NVML_SUCCESS: return core::Status::Ok();
    case NVML_ERROR_DRIVER_NOT_LOADED:
      return core::Status::Unavailable(fmt::format("{}: the NVIDIA kernel driver is not loaded ({})", context, detail),
                                       "run 'gpuprobe doctor' to see why (module, nouveau, Secure Boot)")
          .WithKeys("error.nvml.driver_not_loaded", {{"context", context}, {"detail", detail}}, "error.nvml.driver_not_loaded.hint");
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
      return core::Status::Unavailable(fmt::format("{}: driver/library version mismatch ({})", context, detail),
                                       "the driver was upgraded while the old kernel module is loaded: reboot, or reload the nvidia modules")
          .WithKeys("error.nvml.version_mismatch", {{"context", context}, {"detail", detail}}, "error.nvml.version_mismatch.hint");
    case NVML_ERROR_NO_PERMISSION:
    case NVML_ERROR_OPERATING_SYSTEM:
      return core::Status::Unavailable(fmt::format("{}: the OS blocked access to the GPU ({})", context, detail),
                                       "check /dev/nvidia* permissions and the container's device cgroup")
          .WithKeys("error.nvml.no_permission", {{"context", context}, {"detail", detail}}, "error.nvml.no_permission.hint");
    case NVML_ERROR_GPU_IS_LOST:
      return core::Status::Unavailable(fmt::format("{}: the GPU has fallen off the bus ({})", context, detail),
                                       "see 'gpuprobe explain \"Xid 79\"': the node needs a reboot and a hardware check")
          .WithKeys("error.nvml.gpu_lost", {{"context", context}, {"detail", detail}}, "error.nvml.gpu_lost.hint");
    case NVML_ERROR_LIBRARY_NOT_FOUND:
      return core::Status::Unavailable(fmt::format("{}: NVML could not find its library ({})", context, detail))
          .WithKeys("error.nvml.no_library", {{"context", context}, {"detail", detail}});
    default:
      return core::Status::Unavailable(fmt::format("{}: {}", context, detail))
          .WithKeys("error.nvml.other", {{"context", context}, {"detail", detail}});
  }
}

core::Result<std::unique_ptr<NvmlLibrary>> NvmlLibrary::Load(const std::string& path) {
  std::vector<std::string> candidates;
  std::string chosen = path;
  if (chosen.empty()) {
    const char* env = std::getenv("GPUPROBE_NVML_LIBRARY");
    if (env != nullptr && *env != '\0') chosen = env;
  }
  if (!chosen.empty()) {
    candidates = {chosen};
  } else {
    // .so.1 first: it is what the driver installs; the unversioned name may be a toolkit stub.
    candidates = {"libnvidia-ml.so.1", "libnvidia-ml.so"};
  }
  auto library = core::DynamicLibrary::Open(candidates);
  if (!library.ok()) {
    return core::Status::Unavailable("NVML (libnvidia-ml.so.1) cannot be loaded: " + library.status().message(),
                                     "no NVIDIA driver is installed here, or the container was started without GPU support")
        .WithKeys("error.nvml.cannot_load", {{"detail", library.status().message()}}, "error.nvml.cannot_load.hint");
  }
  std::unique_ptr<NvmlLibrary> nvml(new NvmlLibrary(std::move(library.value())));
  const core::DynamicLibrary& lib = *nvml->library_;
  NvmlFunctions& f = nvml->fn_;
  Resolve(lib, &f.init, {"nvmlInit_v2", "nvmlInit"});
  Resolve(lib, &f.shutdown, {"nvmlShutdown"});
  Resolve(lib, &f.error_string, {"nvmlErrorString"});
  Resolve(lib, &f.device_count, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"});
  Resolve(lib, &f.handle_by_index, {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"});
  Resolve(lib, &f.name, {"nvmlDeviceGetName"});
  struct Required {
    void* pointer;
    const char* name;
  };
  for (const Required& r : {Required{reinterpret_cast<void*>(f.init), "nvmlInit_v2"},
                            Required{reinterpret_cast<void*>(f.shutdown), "nvmlShutdown"},
                            Required{reinterpret_cast<void*>(f.device_count), "nvmlDeviceGetCount_v2"},
                            Required{reinterpret_cast<void*>(f.handle_by_index), "nvmlDeviceGetHandleByIndex_v2"},
                            Required{reinterpret_cast<void*>(f.name), "nvmlDeviceGetName"}}) {
    if (r.pointer == nullptr) {
      return core::Status::Unavailable(fmt::format("{} does not export {}: not a usable NVML", lib.name(), r.name))
          .WithKeys("error.nvml.missing_symbol", {{"library", lib.name()}, {"symbol", r.name}});
    }
  }
  Resolve(lib, &f.driver_version, {"nvmlSystemGetDriverVersion"});
  Resolve(lib, &f.cuda_driver_version, {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"});
  Resolve(lib, &f.uuid, {"nvmlDeviceGetUUID"});
  Resolve(lib, &f.serial, {"nvmlDeviceGetSerial"});
  Resolve(lib, &f.vbios, {"nvmlDeviceGetVbiosVersion"});
  Resolve(lib, &f.pci_info, {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo"});
  Resolve(lib, &f.memory_v2, {"nvmlDeviceGetMemoryInfo_v2"});
  Resolve(lib, &f.memory, {"nvmlDeviceGetMemoryInfo"});
  Resolve(lib, &f.utilization, {"nvmlDeviceGetUtilizationRates"});
  Resolve(lib, &f.encoder_utilization, {"nvmlDeviceGetEncoderUtilization"});
  Resolve(lib, &f.decoder_utilization, {"nvmlDeviceGetDecoderUtilization"});
  Resolve(lib, &f.temperature, {"nvmlDeviceGetTemperature"});
  Resolve(lib, &f.temperature_threshold, {"nvmlDeviceGetTemperatureThreshold"});
  Resolve(lib, &f.power_usage, {"nvmlDeviceGetPowerUsage"});
  Resolve(lib, &f.enforced_power_limit, {"nvmlDeviceGetEnforcedPowerLimit"});
  Resolve(lib, &f.power_limit_constraints, {"nvmlDeviceGetPowerManagementLimitConstraints"});
  Resolve(lib, &f.performance_state, {"nvmlDeviceGetPerformanceState"});
  Resolve(lib, &f.clock_info, {"nvmlDeviceGetClockInfo"});
  Resolve(lib, &f.max_clock_info, {"nvmlDeviceGetMaxClockInfo"});
  Resolve(lib, &f.clock_event_reasons, {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"});
  Resolve(lib, &f.pcie_gen_current, {"nvmlDeviceGetCurrPcieLinkGeneration"});
  Resolve(lib, &f.pcie_gen_max, {"nvmlDeviceGetMaxPcieLinkGeneration"});
  Resolve(lib, &f.pcie_width_current, {"nvmlDeviceGetCurrPcieLinkWidth"});
  Resolve(lib, &f.pcie_width_max, {"nvmlDeviceGetMaxPcieLinkWidth"});
  Resolve(lib, &f.pcie_throughput, {"nvmlDeviceGetPcieThroughput"});
  Resolve(lib, &f.pcie_replay, {"nvmlDeviceGetPcieReplayCounter"});
  Resolve(lib, &f.persistence, {"nvmlDeviceGetPersistenceMode"});
  Resolve(lib, &f.compute_mode, {"nvmlDeviceGetComputeMode"});
  Resolve(lib, &f.mig_mode, {"nvmlDeviceGetMigMode"});
  Resolve(lib, &f.ecc_mode, {"nvmlDeviceGetEccMode"});
  Resolve(lib, &f.total_ecc_errors, {"nvmlDeviceGetTotalEccErrors"});
  Resolve(lib, &f.remapped_rows, {"nvmlDeviceGetRemappedRows"});
  Resolve(lib, &f.retired_pages_pending, {"nvmlDeviceGetRetiredPagesPendingStatus"});
  Resolve(lib, &f.fan_speed, {"nvmlDeviceGetFanSpeed"});
  Resolve(lib, &f.compute_capability, {"nvmlDeviceGetCudaComputeCapability"});
  Resolve(lib, &f.compute_processes,
          {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2", "nvmlDeviceGetComputeRunningProcesses"},
          &f.compute_processes_version);
  Resolve(lib, &f.graphics_processes,
          {"nvmlDeviceGetGraphicsRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses_v2", "nvmlDeviceGetGraphicsRunningProcesses"},
          &f.graphics_processes_version);
  Resolve(lib, &f.process_name, {"nvmlSystemGetProcessName"});
  Resolve(lib, &f.topology_common_ancestor, {"nvmlDeviceGetTopologyCommonAncestor"});
  Resolve(lib, &f.nvlink_state, {"nvmlDeviceGetNvLinkState"});
  Resolve(lib, &f.nvlink_remote_pci, {"nvmlDeviceGetNvLinkRemotePciInfo_v2", "nvmlDeviceGetNvLinkRemotePciInfo"});
  f.conf_compute_mem_size_info = lib.Symbol("nvmlDeviceGetConfComputeMemSizeInfo");
  f.running_process_detail_list = lib.Symbol("nvmlDeviceGetRunningProcessDetailList");
  return nvml;
}

NvmlLibrary::~NvmlLibrary() {
  if (initialised_ && fn_.shutdown != nullptr) fn_.shutdown();
}

core::Result<std::unique_ptr<NvmlLibrary>> NvmlLibrary::Open(const std::string& path) {
  auto nvml = Load(path);
  if (!nvml.ok()) return nvml.status();
  GPUPROBE_RETURN_IF_ERROR((*nvml)->Init());
  return nvml;
}

core::Status NvmlLibrary::Init() {
  nvmlReturn_t code = fn_.init();
  if (code != NVML_SUCCESS) return StatusFromNvml("NVML initialisation failed", code, ErrorString(code));
  initialised_ = true;
  return core::Status::Ok();
}

std::string NvmlLibrary::ErrorString(nvmlReturn_t code) const {
  if (fn_.error_string != nullptr) {
    const char* text = fn_.error_string(code);
    if (text != nullptr) return text;
  }
  return fmt::format("NVML error {}", code);
}

bool NvmlLibrary::ProcessLayoutIs535() const {
  // nvitop's heuristic: 535.43-535.85 export the confidential-computing size query but not yet
  // the process detail list, and fill 32-byte process entries from the _v3 symbols.
  return fn_.compute_processes_version == 3 && fn_.conf_compute_mem_size_info != nullptr &&
         fn_.running_process_detail_list == nullptr;
}

}  // namespace gpuprobe::telemetry
