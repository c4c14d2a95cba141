#include "app/live_state.h"

#include <chrono>

#include <fmt/format.h>

#include "app/doctor_run.h"
#include "app/gpu_absence.h"
#include "app/inspect_state.h"
#include "bench/cuda/cuda_device.h"
#include "bench/pipeline.h"
#include "bench/registry.h"
#include "core/file_io.h"
#include "knowledge/embedded_knowledge.h"
#include "report/case_label.h"

namespace gpuprobe::app {

const std::vector<std::string>& SideBySideBenchmarks() {
  // One figure per row of the side-by-side table, plus the sweep, the transfer sizes and the
  // ladder the report draws: about 10 s on a 2-core machine; GPU ids exist only in CUDA builds.
  static const std::vector<std::string> ids = {
      "memory.triad",      "memory.sweep",         "compute.fma_fp32",   "matmul.naive",       "matmul.blocked",
      "matmul.openblas_sgemm", "matmul.gpu_naive", "matmul.gpu_tiled",  "matmul.cublas_fp32", "matmul.cublas_bf16",
      "transfer.h2d_pinned", "launch.round_trip",  "parallel.fork_join"};
  return ids;
}

model::CpuIdentity ReadCpuIdentity() {
  model::CpuIdentity cpu;
  auto cpuinfo = core::ReadSystemFile("/proc/cpuinfo");
  if (cpuinfo.ok()) cpu = model::ParseCpuInfo(*cpuinfo);
  auto meminfo = core::ReadSystemFile("/proc/meminfo");
  if (meminfo.ok()) model::AddMemInfo(*meminfo, &cpu);
  return cpu;
}

nlohmann::json CpuIdentityJson(const model::CpuIdentity& cpu) {
  using nlohmann::json;
  json c;
  c["model"] = cpu.model_name;
  c["vendor"] = cpu.vendor;
  c["logical_cpus"] = cpu.logical_cpus;
  c["physical_cores"] = cpu.physical_cores ? json(*cpu.physical_cores) : json(nullptr);
  c["sockets"] = cpu.sockets ? json(*cpu.sockets) : json(nullptr);
  c["simd"] = cpu.simd;
  c["clock_max_hz"] = cpu.max_mhz ? json(*cpu.max_mhz * 1e6) : json(nullptr);
  c["memory_bytes"] = cpu.memory_total_bytes ? json(*cpu.memory_total_bytes) : json(nullptr);
  return c;
}

nlohmann::json GpuIdentityJson(bool smoke_test) {
  nlohmann::json g = nlohmann::json::object();
  g["cuda_built"] = bench::CudaBuilt();
  g["cuda_runtime_version"] = bench::CudaRuntimeVersion();
  g["driver_cuda_version"] = bench::CudaDriverVersion();
  auto devices = bench::QueryCudaDevices();
  g["available"] = devices.ok() && !devices->empty();
  if (!devices.ok()) {
    g["reason"] = devices.status().message();
    g["hint"] = devices.status().hint();
    g["reason_id"] = GpuAbsenceId(devices.status());  // what views translate (app/gpu_absence.h)
  }
  g["devices"] = nlohmann::json::array();
  if (!devices.ok()) return g;
  for (const auto& device : *devices) {
    nlohmann::json d;
    d["index"] = device.index;
    d["name"] = device.name;
    d["compute_capability"] = fmt::format("{}.{}", device.compute_capability_major, device.compute_capability_minor);
    d["sm_count"] = device.sm_count;
    d["sm_clock_max_hz"] = device.sm_clock_max_mhz * 1e6;
    d["memory_clock_max_hz"] = device.memory_clock_max_mhz * 1e6;
    d["memory_bus_width_bits"] = device.memory_bus_width_bits;
    d["memory_bytes"] = device.memory_total_bytes;
    // 0 means NVML could not say (no context is made just to ask): unknown, not "0 B free".
    d["memory_free_bytes"] = device.memory_free_bytes > 0 ? nlohmann::json(device.memory_free_bytes) : nlohmann::json(nullptr);
    d["l2_cache_bytes"] = device.l2_cache_bytes;
    d["pci_bus_id"] = device.pci_bus_id;
    // A device is named by the strict rule, not by what a user may type (model/device_match.h).
    const model::GpuSpec* spec = knowledge::DeviceSpec(device.name);
    d["spec_database_name"] = spec ? nlohmann::json(spec->name) : nlohmann::json(nullptr);
    if (smoke_test) {
      auto smoke = bench::RunSmokeTest(device.index);
      nlohmann::json s;
      s["ran"] = true;
      s["verified"] = smoke.ok() && smoke->verified;
      if (smoke.ok()) {
        s["elements"] = smoke->elements;
        s["mismatches"] = smoke->mismatches;
        s["kernel_seconds"] = smoke->kernel_seconds;
      } else {
        s["error"] = smoke.status().message();
      }
      d["smoke_test"] = s;
    }
    g["devices"].push_back(d);
  }
  return g;
}

namespace {

// The quick side-by-side run through the one bench pipeline; a run that cannot start leaves
// the summary without measurements (it says so) rather than failing the tour.
std::optional<bench::BenchDocument> RunSideBySideBench(const LiveRunOptions& options, const report::Texts& texts,
                                                       const std::function<void(const std::string&)>& progress) {
  bench::BenchmarkRegistry registry;
  bench::RegisterAllBenchmarks(&registry);
  bench::PipelineRequest request;
  request.patterns = SideBySideBenchmarks();
  request.skip_unknown_ids = true;  // a build without CUDA lacks the GPU ids: run the rest
  request.clock_probe_seconds = 0.2;
  request.settings.runner.max_seconds = options.seconds_per_case;
  request.settings.runner.min_seconds = std::min(request.settings.runner.min_seconds, options.seconds_per_case);
  std::unique_ptr<bench::BenchHost> host = bench::MachineHost();
  auto doc = bench::RunPipeline(registry, *host, request, [&](const bench::CaseProgress& p) {
    if (progress) {
      progress(report::Tr(texts, "live.progress.bench", fmt::arg("index", p.index), fmt::arg("total", p.total), fmt::arg("id", p.id),
                          fmt::arg("backend", p.backend), fmt::arg("case", report::CaseLabelText(p.case_label, texts))));
    }
  });
  if (!doc.ok()) return std::nullopt;
  return std::move(doc.value());
}

}  // namespace

ReportSources CollectLiveSources(const LiveRunOptions& options, const report::Texts& texts,
                                 const std::function<void(const std::string&)>& progress) {
  ReportSources src;
  if (progress) progress(texts.Get("live.progress.identity"));
  src.cpu = CpuIdentityJson(ReadCpuIdentity());
  src.gpu = GpuIdentityJson(options.smoke_test);
  if (options.live_state) {
    if (progress) progress(texts.Get("live.progress.state"));
    auto inspect = LiveInspectDocument(texts);
    if (inspect.ok()) src.inspect = *inspect;
  }
  if (progress) progress(texts.Get("live.progress.doctor"));
  src.doctor = DoctorToJson(RunDoctorChecks(false), texts);  // the identity step already ran the smoke test
  if (options.bench) src.bench = RunSideBySideBench(options, texts, progress);
  src.origins.push_back(texts.Get("report.origin.live"));
  return src;
}

}  // namespace gpuprobe::app
