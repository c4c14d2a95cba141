// Snapshot: one GPU's state at one moment, whatever it was read from (NVML live, an
// nvidia-smi XML / text / CSV capture, or gpuprobe's own JSON). Every measured field is
// optional (unavailable = empty) and carries its unit in its name. Derived values are
// computed by the findings and views, never stored half-filled.
//
// Thread safety: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpuprobe::telemetry {

struct ProcessInfo {
  std::uint32_t pid = 0;
  std::string type;                       ///< as printed: "C" compute, "G" graphics, "C+G", "M" (MPS); see process_kind.h
  std::string name;
  std::optional<double> used_memory_bytes;  ///< empty when not reported (Windows WDDM, vGPU guests)
  std::optional<int> gpu_instance_id;     ///< MIG
  std::optional<int> compute_instance_id; ///< MIG
};

struct MigInstance {
  std::optional<int> gpu_instance_id;
  std::optional<int> compute_instance_id;
  std::optional<int> sm_count;
  std::optional<double> memory_total_bytes;
  std::optional<double> memory_used_bytes;
};

/// Clock-event ("throttle") reason bits as NVML defines them.
namespace clock_event {
inline constexpr std::uint64_t kGpuIdle = 0x1;
inline constexpr std::uint64_t kApplicationsClocks = 0x2;
inline constexpr std::uint64_t kSwPowerCap = 0x4;
inline constexpr std::uint64_t kHwSlowdown = 0x8;
inline constexpr std::uint64_t kSyncBoost = 0x10;
inline constexpr std::uint64_t kSwThermal = 0x20;
inline constexpr std::uint64_t kHwThermal = 0x40;
inline constexpr std::uint64_t kHwPowerBrake = 0x80;
inline constexpr std::uint64_t kDisplayClock = 0x100;
}  // namespace clock_event

struct Snapshot {
  // Provenance.
  std::string source;                    ///< "nvml", "nvidia-smi-xml", "nvidia-smi-text", "nvidia-smi-csv", "gpuprobe-json"
  std::string timestamp;                 ///< as the source printed it
  std::optional<int> index;

  // Identity.
  std::string name, uuid, pci_bus_id, serial, vbios_version, architecture;
  std::optional<std::uint32_t> pci_device_id;  ///< combined id as nvidia-smi prints it (0x233510DE)
  std::string driver_version;            ///< "590.48.01"
  std::string cuda_version;              ///< the driver's CUDA ceiling, "13.1"
  std::string compute_capability;        ///< "9.0"

  // Modes.
  std::optional<bool> persistence_mode;
  std::string driver_model;              ///< "WDDM", "TCC", "MCDM" (Windows); empty where not reported (Linux)
  std::optional<bool> display_active;    ///< a display is driven from this GPU now
  std::string virtualization_mode;       ///< "None", "Pass-Through", "VGPU" (guest), "Host VGPU"; empty = not reported
  std::optional<bool> multi_gpu_board;   ///< one of several GPUs on one board (K80, M10), linked through an on-board switch
  std::string compute_mode;              ///< "Default", "Exclusive_Process", ...
  std::optional<bool> mig_enabled;
  std::vector<MigInstance> mig_instances;

  // Memory.
  std::optional<double> memory_total_bytes, memory_reserved_bytes, memory_used_bytes, memory_free_bytes;
  std::optional<double> bar1_total_bytes, bar1_used_bytes;

  // Utilisation (percent, 0..100).
  std::optional<double> utilization_gpu_percent, utilization_memory_percent;
  std::optional<double> utilization_encoder_percent, utilization_decoder_percent;

  // Thermal and power.
  std::optional<double> temperature_celsius, memory_temperature_celsius;
  std::optional<double> temperature_slowdown_celsius, temperature_shutdown_celsius;
  /// "GPU T.Limit Temp" (R525+): degrees left before the maximum operating temperature; it
  /// falls as the GPU heats and is negative past it.
  std::optional<double> temperature_margin_celsius;
  /// The T.Limit values at which the GPU slows down and shuts down (negative: "-2 C" = 2
  /// degrees past the maximum operating temperature).
  std::optional<double> temperature_slowdown_tlimit_celsius, temperature_shutdown_tlimit_celsius;
  std::optional<double> power_draw_watts, power_limit_watts, power_max_limit_watts;
  std::string performance_state;         ///< "P0"
  std::optional<double> fan_speed_percent;
  bool fan_speed_error = false;          ///< nvidia-smi printed "ERR!" / "Unknown Error" for the fan: the driver could not read it

  // Clocks (MHz).
  std::optional<double> sm_clock_mhz, memory_clock_mhz, graphics_clock_mhz;
  std::optional<double> sm_clock_max_mhz, memory_clock_max_mhz;
  std::optional<std::uint64_t> clock_event_reasons;  ///< active bits, see clock_event

  // PCIe.
  std::optional<int> pcie_generation_current, pcie_generation_max;
  std::optional<int> pcie_width_current, pcie_width_max;
  std::optional<double> pcie_tx_bytes_per_s, pcie_rx_bytes_per_s;
  std::optional<double> pcie_replay_count;

  // ECC and memory health.
  std::optional<bool> ecc_enabled;
  std::optional<double> ecc_corrected_volatile, ecc_uncorrected_volatile;
  std::optional<double> ecc_corrected_aggregate, ecc_uncorrected_aggregate;
  std::optional<double> retired_pages_sbe, retired_pages_dbe;
  std::optional<bool> retired_pages_pending;
  std::optional<double> remapped_rows_correctable, remapped_rows_uncorrectable;
  std::optional<bool> remapped_rows_pending, remapped_rows_failure;
  std::optional<bool> ecc_sram_threshold_exceeded;   ///< Hopper+: SRAM uncorrectable errors past the RMA threshold
  std::optional<bool> repair_pending_other;          ///< Blackwell: a channel or TPC repair waits for a reset

  // NVLink.
  std::optional<int> nvlink_links_active, nvlink_links_total;

  std::vector<ProcessInfo> processes;
  bool processes_known = false;          ///< the source reports processes (an empty list means none)
  bool graphics_processes_known = true;  ///< false when the list holds compute processes only (NVML without the graphics call)
};

}  // namespace gpuprobe::telemetry
