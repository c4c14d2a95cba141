#include "telemetry/nvml_source.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "telemetry/smi_values.h"

namespace gpuprobe::telemetry {
namespace {

// Calls a resolved function; a missing symbol reads as FUNCTION_NOT_FOUND, never a call.
template <typename Fn, typename... Args>
nvmlReturn_t Call(Fn fn, Args... args) {
  if (fn == nullptr) return NVML_ERROR_FUNCTION_NOT_FOUND;
  return fn(args...);
}

std::string VersionText(int cuda) { return fmt::format("{}.{}", cuda / 1000, (cuda % 1000) / 10); }

// A C string from a fixed NVML buffer, made valid UTF-8 (a note when bytes were replaced).
std::string Text(const char* buffer, size_t size, const char* field, const std::string& where, smi::Diagnostics* diagnostics) {
  return smi::CleanText(std::string(buffer, strnlen(buffer, size)), field, where, diagnostics);
}

// One process list (compute or graphics): count first, then fill; grow on INSUFFICIENT_SIZE.
// The entry stride depends on the driver (24 bytes, or 32 on 535.43-535.85). Empty when the
// symbol is missing or the call fails.
using ProcessListFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*, void*);
std::optional<std::vector<ProcessInfo>> ReadProcessList(ProcessListFn fn, int version, bool wide, nvmlDevice_t device,
                                                        std::optional<double> memory_total) {
  if (fn == nullptr) return std::nullopt;
  const size_t stride = version == 1 ? 16 : wide ? sizeof(nvmlProcessInfo_v3_535_t) : sizeof(nvmlProcessInfo_v2_t);
  unsigned int entries = 0;
  std::vector<unsigned char> buffer;
  nvmlReturn_t rc = fn(device, &entries, nullptr);
  for (int attempt = 0; attempt < 3 && (rc == NVML_ERROR_INSUFFICIENT_SIZE || (rc == NVML_SUCCESS && entries > 0 && buffer.empty())); ++attempt) {
    entries = std::min(entries, 4096u) + 4;  // processes may start between the two calls
    buffer.assign(entries * stride, 0);
    rc = fn(device, &entries, buffer.data());
  }
  if (rc != NVML_SUCCESS) return std::nullopt;
  std::vector<ProcessInfo> out;
  for (unsigned int p = 0; p < entries && (p + 1) * stride <= buffer.size(); ++p) {
    const unsigned char* e = buffer.data() + p * stride;
    ProcessInfo info;
    std::memcpy(&info.pid, e, sizeof info.pid);
    unsigned long long used = 0;
    std::memcpy(&used, e + 8, sizeof used);
    // ~0 is NVML_VALUE_NOT_AVAILABLE (Windows WDDM); an absurd size means a wrong stride.
    if (used != ~0ull && (!memory_total || static_cast<double>(used) <= *memory_total)) info.used_memory_bytes = static_cast<double>(used);
    if (stride >= 24) {
      unsigned int gi = 0, ci = 0;
      std::memcpy(&gi, e + 16, sizeof gi);
      std::memcpy(&ci, e + 20, sizeof ci);
      if (gi <= 0x7FFFFFFFu) info.gpu_instance_id = static_cast<int>(gi);
      if (ci <= 0x7FFFFFFFu) info.compute_instance_id = static_cast<int>(ci);
    }
    if (info.pid != 0) out.push_back(info);
  }
  return out;
}

}  // namespace

core::Result<std::vector<Snapshot>> ReadNvmlSnapshots(const NvmlLibrary& nvml, smi::Diagnostics* diagnostics) {
  const NvmlFunctions& f = nvml.fn();
  unsigned int count = 0;
  nvmlReturn_t rc = f.device_count(&count);
  if (rc != NVML_SUCCESS) return StatusFromNvml("counting GPUs", rc, nvml.ErrorString(rc));
  std::string driver;
  {
    char buffer[GPUPROBE_NVML_VERSION_BUFFER] = {};
    if (Call(f.driver_version, buffer, static_cast<unsigned int>(sizeof buffer)) == NVML_SUCCESS) {
      driver = Text(buffer, sizeof buffer, "driver version", "NVML", diagnostics);
    }
  }
  std::string cuda;
  {
    int version = 0;
    if (Call(f.cuda_driver_version, &version) == NVML_SUCCESS && version > 0) cuda = VersionText(version);
  }
  std::vector<Snapshot> out;
  for (unsigned int i = 0; i < count; ++i) {
    nvmlDevice_t device = nullptr;
    rc = f.handle_by_index(i, &device);
    if (rc != NVML_SUCCESS) return StatusFromNvml(fmt::format("opening GPU {}", i), rc, nvml.ErrorString(rc));
    Snapshot s;
    s.source = "nvml";
    s.index = static_cast<int>(i);
    s.driver_version = driver;
    s.cuda_version = cuda;
    const std::string where = fmt::format("NVML GPU {}", i);
    char text[GPUPROBE_NVML_NAME_BUFFER] = {};
    rc = f.name(device, text, sizeof text);
    if (rc == NVML_ERROR_GPU_IS_LOST) return StatusFromNvml(fmt::format("reading GPU {}", i), rc, nvml.ErrorString(rc));
    if (rc == NVML_SUCCESS) s.name = Text(text, sizeof text, "name", where, diagnostics);
    if (Call(f.uuid, device, text, static_cast<unsigned int>(sizeof text)) == NVML_SUCCESS) s.uuid = Text(text, sizeof text, "uuid", where, diagnostics);
    if (Call(f.serial, device, text, static_cast<unsigned int>(sizeof text)) == NVML_SUCCESS) s.serial = Text(text, sizeof text, "serial", where, diagnostics);
    if (Call(f.vbios, device, text, static_cast<unsigned int>(sizeof text)) == NVML_SUCCESS) {
      s.vbios_version = Text(text, sizeof text, "vbios_version", where, diagnostics);
    }
    nvmlPciInfo_t pci;
    std::memset(&pci, 0, sizeof pci);
    if (Call(f.pci_info, device, &pci) == NVML_SUCCESS) {
      s.pci_bus_id = Text(pci.busId, sizeof pci.busId, "pci.bus_id", where, diagnostics);
      s.pci_device_id = pci.pciDeviceId;
    }
    // Memory v2 first (it separates the driver's reservation); the version field must be
    // sizeof | 2 << 24, not 2.
    nvmlMemory_v2_t memory2;
    std::memset(&memory2, 0, sizeof memory2);
    memory2.version = GPUPROBE_NVML_MEMORY_V2_VERSION;
    if (Call(f.memory_v2, device, &memory2) == NVML_SUCCESS) {
      s.memory_total_bytes = static_cast<double>(memory2.total);
      s.memory_reserved_bytes = static_cast<double>(memory2.reserved);
      s.memory_used_bytes = static_cast<double>(memory2.used);
      s.memory_free_bytes = static_cast<double>(memory2.free);
    } else {
      nvmlMemory_t memory1{};
      if (Call(f.memory, device, &memory1) == NVML_SUCCESS) {
        s.memory_total_bytes = static_cast<double>(memory1.total);
        s.memory_used_bytes = static_cast<double>(memory1.used);  // includes the reservation in v1
        s.memory_free_bytes = static_cast<double>(memory1.free);
      }
    }
    nvmlUtilization_t util{};
    if (Call(f.utilization, device, &util) == NVML_SUCCESS) {
      s.utilization_gpu_percent = smi::Checked(util.gpu, smi::Quantity::kPercent, "utilization.gpu", std::to_string(util.gpu), where, diagnostics);
      s.utilization_memory_percent =
          smi::Checked(util.memory, smi::Quantity::kPercent, "utilization.memory", std::to_string(util.memory), where, diagnostics);
    }
    unsigned int value = 0, period = 0;
    if (Call(f.encoder_utilization, device, &value, &period) == NVML_SUCCESS) s.utilization_encoder_percent = value;
    if (Call(f.decoder_utilization, device, &value, &period) == NVML_SUCCESS) s.utilization_decoder_percent = value;
    if (Call(f.temperature, device, static_cast<int>(NVML_TEMPERATURE_GPU), &value) == NVML_SUCCESS) s.temperature_celsius = value;
    if (Call(f.temperature_threshold, device, static_cast<int>(NVML_TEMPERATURE_THRESHOLD_SLOWDOWN), &value) == NVML_SUCCESS) {
      s.temperature_slowdown_celsius = value;
    }
    if (Call(f.temperature_threshold, device, static_cast<int>(NVML_TEMPERATURE_THRESHOLD_SHUTDOWN), &value) == NVML_SUCCESS) {
      s.temperature_shutdown_celsius = value;
    }
    if (Call(f.power_usage, device, &value) == NVML_SUCCESS) s.power_draw_watts = value / 1000.0;  // mW
    if (Call(f.enforced_power_limit, device, &value) == NVML_SUCCESS) s.power_limit_watts = value / 1000.0;
    unsigned int min_limit = 0, max_limit = 0;
    if (Call(f.power_limit_constraints, device, &min_limit, &max_limit) == NVML_SUCCESS) s.power_max_limit_watts = max_limit / 1000.0;
    int pstate = 0;
    if (Call(f.performance_state, device, &pstate) == NVML_SUCCESS && pstate >= 0 && pstate < 32) {
      s.performance_state = fmt::format("P{}", pstate);
    }
    if (Call(f.clock_info, device, static_cast<int>(NVML_CLOCK_SM), &value) == NVML_SUCCESS) s.sm_clock_mhz = value;
    if (Call(f.clock_info, device, static_cast<int>(NVML_CLOCK_MEM), &value) == NVML_SUCCESS) s.memory_clock_mhz = value;
    if (Call(f.clock_info, device, static_cast<int>(NVML_CLOCK_GRAPHICS), &value) == NVML_SUCCESS) s.graphics_clock_mhz = value;
    if (Call(f.max_clock_info, device, static_cast<int>(NVML_CLOCK_SM), &value) == NVML_SUCCESS) s.sm_clock_max_mhz = value;
    if (Call(f.max_clock_info, device, static_cast<int>(NVML_CLOCK_MEM), &value) == NVML_SUCCESS) s.memory_clock_max_mhz = value;
    unsigned long long reasons = 0;
    if (Call(f.clock_event_reasons, device, &reasons) == NVML_SUCCESS) s.clock_event_reasons = reasons;
    // A link NVML cannot read reports 0 (or garbage): only possible values are kept.
    auto link = [&](const char* field, smi::Quantity quantity, std::optional<int>* target) {
      *target = smi::ToInt(smi::Checked(static_cast<double>(value), quantity, field, std::to_string(value), where, diagnostics));
    };
    if (Call(f.pcie_gen_current, device, &value) == NVML_SUCCESS) link("pcie.link.gen.current", smi::Quantity::kPcieGeneration, &s.pcie_generation_current);
    if (Call(f.pcie_gen_max, device, &value) == NVML_SUCCESS) link("pcie.link.gen.max", smi::Quantity::kPcieGeneration, &s.pcie_generation_max);
    if (Call(f.pcie_width_current, device, &value) == NVML_SUCCESS) link("pcie.link.width.current", smi::Quantity::kPcieWidth, &s.pcie_width_current);
    if (Call(f.pcie_width_max, device, &value) == NVML_SUCCESS) link("pcie.link.width.max", smi::Quantity::kPcieWidth, &s.pcie_width_max);
    if (Call(f.pcie_throughput, device, static_cast<int>(NVML_PCIE_UTIL_TX_BYTES), &value) == NVML_SUCCESS) s.pcie_tx_bytes_per_s = value * 1024.0;
    if (Call(f.pcie_throughput, device, static_cast<int>(NVML_PCIE_UTIL_RX_BYTES), &value) == NVML_SUCCESS) s.pcie_rx_bytes_per_s = value * 1024.0;
    if (Call(f.pcie_replay, device, &value) == NVML_SUCCESS) s.pcie_replay_count = value;
    int mode = 0, pending = 0;
    if (Call(f.persistence, device, &mode) == NVML_SUCCESS) s.persistence_mode = mode != 0;
    if (Call(f.compute_mode, device, &mode) == NVML_SUCCESS) {
      static const char* kModes[] = {"Default", "Exclusive_Thread", "Prohibited", "Exclusive_Process"};
      if (mode >= 0 && mode < 4) s.compute_mode = kModes[mode];
    }
    unsigned int mig_current = 0, mig_pending = 0;
    if (Call(f.mig_mode, device, &mig_current, &mig_pending) == NVML_SUCCESS) s.mig_enabled = mig_current != 0;
    if (Call(f.ecc_mode, device, &mode, &pending) == NVML_SUCCESS) s.ecc_enabled = mode != 0;
    unsigned long long errors = 0;
    if (Call(f.total_ecc_errors, device, static_cast<int>(NVML_MEMORY_ERROR_TYPE_CORRECTED), static_cast<int>(NVML_VOLATILE_ECC), &errors) == NVML_SUCCESS) {
      s.ecc_corrected_volatile = static_cast<double>(errors);
    }
    if (Call(f.total_ecc_errors, device, static_cast<int>(NVML_MEMORY_ERROR_TYPE_UNCORRECTED), static_cast<int>(NVML_VOLATILE_ECC), &errors) == NVML_SUCCESS) {
      s.ecc_uncorrected_volatile = static_cast<double>(errors);
    }
    if (Call(f.total_ecc_errors, device, static_cast<int>(NVML_MEMORY_ERROR_TYPE_UNCORRECTED), static_cast<int>(NVML_AGGREGATE_ECC), &errors) == NVML_SUCCESS) {
      s.ecc_uncorrected_aggregate = static_cast<double>(errors);
    }
    unsigned int corr = 0, unc = 0, is_pending = 0, failure = 0;
    if (Call(f.remapped_rows, device, &corr, &unc, &is_pending, &failure) == NVML_SUCCESS) {
      s.remapped_rows_correctable = corr;
      s.remapped_rows_uncorrectable = unc;
      s.remapped_rows_pending = is_pending != 0;
      s.remapped_rows_failure = failure != 0;
    }
    if (Call(f.retired_pages_pending, device, &mode) == NVML_SUCCESS) s.retired_pages_pending = mode != 0;
    if (Call(f.fan_speed, device, &value) == NVML_SUCCESS) s.fan_speed_percent = value;
    int major = 0, minor = 0;
    if (Call(f.compute_capability, device, &major, &minor) == NVML_SUCCESS) s.compute_capability = fmt::format("{}.{}", major, minor);

    // Compute processes, then graphics ones (a pid in both is "C+G"), as nvidia-smi lists them.
    const bool wide = nvml.ProcessLayoutIs535();
    auto compute = ReadProcessList(f.compute_processes, f.compute_processes_version, wide, device, s.memory_total_bytes);
    if (compute) {
      s.processes_known = true;
      for (auto& p : *compute) {
        p.type = "C";
        s.processes.push_back(std::move(p));
      }
    }
    auto graphics = ReadProcessList(f.graphics_processes, f.graphics_processes_version, wide, device, s.memory_total_bytes);
    s.graphics_processes_known = graphics.has_value();
    if (graphics) {
      for (auto& p : *graphics) {
        auto same = std::find_if(s.processes.begin(), s.processes.end(), [&](const ProcessInfo& q) { return q.pid == p.pid; });
        if (same != s.processes.end()) {
          same->type = "C+G";
          continue;
        }
        p.type = "G";
        s.processes.push_back(std::move(p));
      }
    }
    for (auto& p : s.processes) {
      char name[256] = {};
      if (Call(f.process_name, p.pid, name, static_cast<unsigned int>(sizeof name)) == NVML_SUCCESS) {
        p.name = smi::CleanText(std::string(name, strnlen(name, sizeof name)), "process name", where, diagnostics);
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace gpuprobe::telemetry
