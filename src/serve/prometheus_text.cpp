#include "serve/prometheus_text.h"

#include <cmath>
#include <functional>
#include <optional>

#include <fmt/format.h>

namespace gpuprobe::serve {

std::string EscapeLabelValue(const std::string& value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// The shortest text that reads back as the same double ("0.3", not the "0.29999999999999999"
// that %.17g prints), which is what fmt's "{}" gives.
std::string Number(double v) { return FormatSampleValue(v); }

}  // namespace

std::string FormatSampleValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

namespace {

std::string GpuLabels(const telemetry::Snapshot& g, size_t position, const std::string& hostname) {
  int index = g.index.value_or(static_cast<int>(position));
  return fmt::format(R"(gpu="{}",uuid="{}",pci_bus_id="{}",device="nvidia{}",model_name="{}",hostname="{}")", index,
                     EscapeLabelValue(g.uuid), EscapeLabelValue(g.pci_bus_id), index, EscapeLabelValue(g.name),
                     EscapeLabelValue(hostname));
}

/// One metric family: HELP and TYPE once, then a sample per GPU that has the value.
void Family(std::string* out, const char* name, const char* type, const char* help, const std::vector<telemetry::Snapshot>& gpus,
            const std::string& hostname, const std::function<std::optional<double>(const telemetry::Snapshot&)>& value) {
  std::string samples;
  for (size_t i = 0; i < gpus.size(); ++i) {
    if (auto v = value(gpus[i])) samples += fmt::format("{}{{{}}} {}\n", name, GpuLabels(gpus[i], i, hostname), Number(*v));
  }
  if (samples.empty()) return;  // a family without samples is left out rather than shown empty
  *out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  *out += samples;
}

std::optional<double> ToMiB(const std::optional<double>& bytes) {
  if (!bytes) return std::nullopt;
  return *bytes / kMiB;
}

std::optional<double> ToDouble(const std::optional<int>& v) {
  if (!v) return std::nullopt;
  return static_cast<double>(*v);
}

}  // namespace

std::string RenderMetrics(const std::vector<telemetry::Snapshot>& gpus, const std::vector<telemetry::Finding>& findings,
                          const PollHealth& health, const std::string& hostname) {
  using S = telemetry::Snapshot;
  std::string out;
  // dcgm-exporter's metric names and units (MHz, C, W, MiB, %), so its panels find them. Two
  // deliberate differences, for Prometheus' naming rules (promtool check metrics): labels are
  // snake_case (uuid, model_name, hostname instead of UUID, modelName, Hostname), and the error
  // counts are gauges, since the driver's volatile counts reset when it reloads.
  Family(&out, "DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", gpus, hostname, [](const S& g) { return g.sm_clock_mhz; });
  Family(&out, "DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).", gpus, hostname, [](const S& g) { return g.memory_clock_mhz; });
  Family(&out, "DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", gpus, hostname, [](const S& g) { return g.temperature_celsius; });
  Family(&out, "DCGM_FI_DEV_MEMORY_TEMP", "gauge", "Memory temperature (in C).", gpus, hostname,
         [](const S& g) { return g.memory_temperature_celsius; });
  Family(&out, "DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", gpus, hostname, [](const S& g) { return g.power_draw_watts; });
  Family(&out, "DCGM_FI_DEV_POWER_MGMT_LIMIT", "gauge", "Power management limit (in W).", gpus, hostname,
         [](const S& g) { return g.power_limit_watts; });
  Family(&out, "DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %): share of time a kernel ran.", gpus, hostname,
         [](const S& g) { return g.utilization_gpu_percent; });
  Family(&out, "DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).", gpus, hostname,
         [](const S& g) { return g.utilization_memory_percent; });
  Family(&out, "DCGM_FI_DEV_ENC_UTIL", "gauge", "Encoder utilization (in %).", gpus, hostname,
         [](const S& g) { return g.utilization_encoder_percent; });
  Family(&out, "DCGM_FI_DEV_DEC_UTIL", "gauge", "Decoder utilization (in %).", gpus, hostname,
         [](const S& g) { return g.utilization_decoder_percent; });
  Family(&out, "DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).", gpus, hostname, [](const S& g) { return ToMiB(g.memory_free_bytes); });
  Family(&out, "DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", gpus, hostname, [](const S& g) { return ToMiB(g.memory_used_bytes); });
  Family(&out, "DCGM_FI_DEV_FB_RESERVED", "gauge", "Framebuffer memory reserved (in MiB).", gpus, hostname,
         [](const S& g) { return ToMiB(g.memory_reserved_bytes); });
  Family(&out, "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "gauge", "Total number of PCIe retries.", gpus, hostname,
         [](const S& g) { return g.pcie_replay_count; });
  Family(&out, "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "gauge", "Single-bit volatile ECC errors.", gpus, hostname,
         [](const S& g) { return g.ecc_corrected_volatile; });
  Family(&out, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "gauge", "Double-bit volatile ECC errors.", gpus, hostname,
         [](const S& g) { return g.ecc_uncorrected_volatile; });
  Family(&out, "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", "gauge", "Number of remapped rows for correctable errors.", gpus, hostname,
         [](const S& g) { return g.remapped_rows_correctable; });
  Family(&out, "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "gauge", "Number of remapped rows for uncorrectable errors.", gpus, hostname,
         [](const S& g) { return g.remapped_rows_uncorrectable; });

  // gpuprobe's own, in base units.
  Family(&out, "gpuprobe_pcie_link_generation", "gauge", "PCIe generation the link runs at now (idle links slow down on purpose).", gpus,
         hostname, [](const S& g) { return ToDouble(g.pcie_generation_current); });
  Family(&out, "gpuprobe_pcie_link_generation_max", "gauge", "Highest PCIe generation the link can run at.", gpus, hostname,
         [](const S& g) { return ToDouble(g.pcie_generation_max); });
  Family(&out, "gpuprobe_pcie_link_width", "gauge", "PCIe lanes in use now.", gpus, hostname, [](const S& g) { return ToDouble(g.pcie_width_current); });
  Family(&out, "gpuprobe_pcie_link_width_max", "gauge", "PCIe lanes the link can use.", gpus, hostname, [](const S& g) { return ToDouble(g.pcie_width_max); });
  Family(&out, "gpuprobe_memory_total_bytes", "gauge", "GPU memory in all.", gpus, hostname, [](const S& g) { return g.memory_total_bytes; });
  Family(&out, "gpuprobe_clock_event_reasons", "gauge", "Why clocks are below max, as NVML's bitmask (1 = idle, normal).", gpus, hostname,
         [](const S& g) -> std::optional<double> {
           if (!g.clock_event_reasons) return std::nullopt;
           return static_cast<double>(*g.clock_event_reasons);
         });

  // Findings as labelled gauges: one sample per active finding (absent = not active).
  out += "# HELP gpuprobe_finding A finding gpuprobe inspect would report (1 = active); see 'gpuprobe inspect' for its meaning.\n";
  out += "# TYPE gpuprobe_finding gauge\n";
  for (const auto& f : findings) {
    std::string uuid = f.gpu >= 0 && static_cast<size_t>(f.gpu) < gpus.size() ? gpus[static_cast<size_t>(f.gpu)].uuid : "";
    out += fmt::format("gpuprobe_finding{{gpu=\"{}\",uuid=\"{}\",id=\"{}\",severity=\"{}\",hostname=\"{}\"}} 1\n", f.gpu,
                       EscapeLabelValue(uuid), EscapeLabelValue(f.id), telemetry::SeverityName(f.severity), EscapeLabelValue(hostname));
  }

  // The poller's health: a scrape never waits on NVML, so staleness is visible here instead.
  out += "# HELP gpuprobe_up Whether the last NVML poll succeeded (1) or failed (0).\n# TYPE gpuprobe_up gauge\n";
  out += fmt::format("gpuprobe_up {}\n", health.last_poll_ok ? 1 : 0);
  out += "# HELP gpuprobe_gpus Number of GPUs in the last successful poll.\n# TYPE gpuprobe_gpus gauge\n";
  out += fmt::format("gpuprobe_gpus {}\n", gpus.size());
  out += "# HELP gpuprobe_last_poll_success_timestamp_seconds Unix time of the last successful poll (0 = never).\n";
  out += "# TYPE gpuprobe_last_poll_success_timestamp_seconds gauge\n";
  out += fmt::format("gpuprobe_last_poll_success_timestamp_seconds {}\n", Number(health.last_success_unix_seconds));
  out += "# HELP gpuprobe_poll_duration_seconds How long the last NVML poll took.\n# TYPE gpuprobe_poll_duration_seconds gauge\n";
  out += fmt::format("gpuprobe_poll_duration_seconds {}\n", Number(health.last_poll_duration_seconds));
  out += "# HELP gpuprobe_poll_interval_seconds The configured polling interval.\n# TYPE gpuprobe_poll_interval_seconds gauge\n";
  out += fmt::format("gpuprobe_poll_interval_seconds {}\n", Number(health.poll_interval_seconds));
  out += "# HELP gpuprobe_polls_total NVML polls since start.\n# TYPE gpuprobe_polls_total counter\n";
  out += fmt::format("gpuprobe_polls_total {}\n", health.polls_total);
  out += "# HELP gpuprobe_poll_errors_total NVML polls that failed since start.\n# TYPE gpuprobe_poll_errors_total counter\n";
  out += fmt::format("gpuprobe_poll_errors_total {}\n", health.poll_errors_total);
  return out;
}

}  // namespace gpuprobe::serve
