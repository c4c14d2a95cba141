#include "telemetry/findings.h"

#include <algorithm>

#include <fmt/format.h>

namespace gpuprobe::telemetry {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kBusyPercent = 30;      // "under load" for link and throttle rules
constexpr double kIdlePercent = 5;

std::string GiB(double bytes) { return fmt::format("{:.1f} GiB", bytes / kGiB); }

bool Busy(const Snapshot& s) { return s.utilization_gpu_percent && *s.utilization_gpu_percent >= kBusyPercent; }

// Memory in use by programs: "used" excludes the driver's reservation where the source
// reports it separately (NVML v2, nvidia-smi); otherwise it is all there is.
std::optional<double> UsedBytes(const Snapshot& s) { return s.memory_used_bytes; }

std::vector<std::string> ReasonNames(std::uint64_t bits) {
  std::vector<std::string> names;
  if (bits & clock_event::kHwSlowdown) names.push_back("HW slowdown");
  if (bits & clock_event::kHwThermal) names.push_back("HW thermal slowdown");
  if (bits & clock_event::kHwPowerBrake) names.push_back("HW power brake");
  if (bits & clock_event::kSwThermal) names.push_back("SW thermal slowdown");
  if (bits & clock_event::kSwPowerCap) names.push_back("SW power cap");
  return names;
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

void Check(const Snapshot& s, int gpu, std::vector<Finding>* out) {
  auto add = [&](const char* id, Severity severity, std::string evidence) {
    out->push_back({id, severity, gpu, std::move(evidence)});
  };
  std::optional<double> used = UsedBytes(s);
  double total = s.memory_total_bytes.value_or(0);
  double usable = total - s.memory_reserved_bytes.value_or(0);
  std::size_t compute_processes = s.processes.size();

  // ECC and memory health first: they mean the hardware itself is at fault.
  if (s.ecc_uncorrected_volatile && *s.ecc_uncorrected_volatile > 0) {
    add("ecc_uncorrectable", Severity::kFail, fmt::format("{:.0f} uncorrectable ECC errors since the driver loaded", *s.ecc_uncorrected_volatile));
  } else if (s.ecc_uncorrected_aggregate && *s.ecc_uncorrected_aggregate > 0) {
    add("ecc_uncorrectable_history", Severity::kWarn, fmt::format("{:.0f} uncorrectable ECC errors over the board's life", *s.ecc_uncorrected_aggregate));
  }
  if (s.remapped_rows_failure && *s.remapped_rows_failure) {
    add("row_remap_failure", Severity::kFail, "Remapping Failure Occurred: Yes");
  }
  if ((s.remapped_rows_pending && *s.remapped_rows_pending) || (s.retired_pages_pending && *s.retired_pages_pending)) {
    add("memory_repair_pending", Severity::kWarn, s.remapped_rows_pending && *s.remapped_rows_pending ? "Remapped Rows Pending: Yes"
                                                                                                       : "Retired Pages Pending: Yes");
  }
  if (s.retired_pages_dbe && *s.retired_pages_dbe > 0) {
    add("retired_pages", Severity::kWarn, fmt::format("{:.0f} pages retired for double-bit errors", *s.retired_pages_dbe));
  }

  // Throttling: the hardware bits and SW thermal are real; SW power cap at full load is normal.
  if (s.clock_event_reasons) {
    std::uint64_t bits = *s.clock_event_reasons;
    std::uint64_t real = bits & (clock_event::kHwSlowdown | clock_event::kHwThermal | clock_event::kHwPowerBrake | clock_event::kSwThermal);
    if (real) {
      add("thermal_or_power_throttling", Severity::kWarn,
          fmt::format("active clock-event reasons: {}{}", Join(ReasonNames(real)),
                      s.sm_clock_mhz && s.sm_clock_max_mhz ? fmt::format("; SM clock {:.0f} of {:.0f} MHz", *s.sm_clock_mhz, *s.sm_clock_max_mhz) : ""));
    } else if ((bits & clock_event::kSwPowerCap) && Busy(s)) {
      add("power_capped", Severity::kInfo,
          fmt::format("SW power cap active at {:.0f}% utilisation{}", *s.utilization_gpu_percent,
                      s.power_draw_watts && s.power_limit_watts ? fmt::format(", {:.0f} of {:.0f} W", *s.power_draw_watts, *s.power_limit_watts) : ""));
    }
  }
  if (s.temperature_celsius && s.temperature_slowdown_celsius && *s.temperature_celsius >= *s.temperature_slowdown_celsius - 5) {
    add("near_thermal_slowdown", Severity::kWarn,
        fmt::format("{:.0f} C, slowdown at {:.0f} C", *s.temperature_celsius, *s.temperature_slowdown_celsius));
  } else if (s.temperature_margin_celsius && *s.temperature_margin_celsius <= 5 && *s.temperature_margin_celsius > -50) {
    add("near_thermal_slowdown", Severity::kWarn, fmt::format("{:.0f} C below the slowdown limit", *s.temperature_margin_celsius));
  }

  // The PCIe link: only meaningful under load (idle links downtrain to save power).
  if (Busy(s) && s.pcie_generation_current && s.pcie_generation_max && s.pcie_width_current && s.pcie_width_max &&
      (*s.pcie_generation_current < *s.pcie_generation_max || *s.pcie_width_current < *s.pcie_width_max)) {
    add("pcie_link_degraded", Severity::kWarn,
        fmt::format("PCIe Gen{} x{} under load, the link can do Gen{} x{}", *s.pcie_generation_current, *s.pcie_width_current,
                    *s.pcie_generation_max, *s.pcie_width_max));
  }

  // Memory.
  if (used && usable > 0 && *used / usable >= 0.95) {
    add("memory_nearly_full", Severity::kWarn, fmt::format("{} of {} in use ({:.1f}%)", GiB(*used), GiB(usable), 100 * *used / usable));
  }
  bool mig = s.mig_enabled.value_or(false);
  if (used && *used >= kGiB && s.processes_known && compute_processes == 0 && !mig) {
    add("memory_held_without_process", Severity::kWarn,
        fmt::format("{} in use but no process is listed on this GPU", GiB(*used)));
  }
  if (s.utilization_gpu_percent && *s.utilization_gpu_percent <= kIdlePercent && used && usable > 0 && *used / usable >= 0.10 &&
      compute_processes > 0) {
    add("memory_reserved_idle", Severity::kInfo,
        fmt::format("{} held by {} process(es) at {:.0f}% utilisation", GiB(*used), compute_processes, *s.utilization_gpu_percent));
  } else if (s.utilization_gpu_percent && *s.utilization_gpu_percent > kIdlePercent && *s.utilization_gpu_percent < kBusyPercent &&
             compute_processes > 0) {
    add("gpu_starved_by_host", Severity::kWarn,
        fmt::format("{:.0f}% utilisation while {} process(es) hold the GPU", *s.utilization_gpu_percent, compute_processes));
  }
  if (s.utilization_gpu_percent && *s.utilization_gpu_percent >= 90 && s.utilization_memory_percent) {
    if (*s.utilization_memory_percent < 20) {
      add("busy_not_bandwidth_bound", Severity::kInfo,
          fmt::format("GPU {:.0f}% busy, memory {:.0f}% busy", *s.utilization_gpu_percent, *s.utilization_memory_percent));
    } else if (*s.utilization_memory_percent >= 70) {
      add("bandwidth_bound", Severity::kInfo,
          fmt::format("GPU {:.0f}% busy, memory {:.0f}% busy", *s.utilization_gpu_percent, *s.utilization_memory_percent));
    }
  }

  // Configuration.
  if (s.persistence_mode && !*s.persistence_mode) add("persistence_off", Severity::kInfo, "Persistence Mode: Disabled");
  if (mig && !s.utilization_gpu_percent) {
    add("mig_hides_utilization", Severity::kInfo,
        fmt::format("MIG enabled with {} instance(s); whole-GPU utilisation is not reported", s.mig_instances.size()));
  }
}

}  // namespace

std::string SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kInfo: return "info";
    case Severity::kWarn: return "warn";
    case Severity::kFail: return "fail";
  }
  return "?";
}

const std::vector<std::string>& FindingIds() {
  static const std::vector<std::string> kIds = {
      "ecc_uncorrectable",  "ecc_uncorrectable_history", "row_remap_failure",          "memory_repair_pending",
      "retired_pages",      "thermal_or_power_throttling", "power_capped",             "near_thermal_slowdown",
      "pcie_link_degraded", "memory_nearly_full",        "memory_held_without_process", "memory_reserved_idle",
      "gpu_starved_by_host", "busy_not_bandwidth_bound", "bandwidth_bound",            "persistence_off",
      "mig_hides_utilization"};
  return kIds;
}

std::vector<Finding> EvaluateFindings(const std::vector<Snapshot>& gpus) {
  std::vector<Finding> out;
  for (size_t i = 0; i < gpus.size(); ++i) Check(gpus[i], gpus[i].index.value_or(static_cast<int>(i)), &out);
  return out;
}

Severity WorstSeverity(const std::vector<Finding>& findings) {
  Severity worst = Severity::kInfo;
  for (const auto& f : findings) worst = std::max(worst, f.severity);
  return worst;
}

}  // namespace gpuprobe::telemetry
