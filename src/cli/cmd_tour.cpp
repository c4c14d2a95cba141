// `gpuprobe` with no verb (or `gpuprobe tour`): the machine's CPU and GPU identity, a
// smoke test on each GPU, and where to go next. Later issues add live state, doctor's
// findings and a quick side-by-side bench.
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench/cuda/cuda_device.h"
#include "cli/command.h"
#include "cli/spec_data.h"
#include "core/file_io.h"
#include "core/units.h"
#include "model/cpu_identity.h"
#include "report/json_document.h"
#include "report/table.h"

namespace gpuprobe::cli {
namespace {

constexpr const char* kFooter = R"(Examples:
  gpuprobe                 the tour (same as 'gpuprobe tour')
  gpuprobe --json          the same as one JSON document
  gpuprobe --lang zh       in Chinese)";

struct TourOptions {
  bool skip_smoke_test = false;
};

struct GpuEntry {
  bench::CudaDeviceInfo device;
  const model::GpuSpec* spec = nullptr;  // matched in the spec database, or null
  bool smoke_ran = false;
  core::Result<bench::SmokeTestResult> smoke = core::Status::Internal("not run");
};

model::CpuIdentity ReadCpu() {
  model::CpuIdentity cpu;
  auto cpuinfo = core::ReadSystemFile("/proc/cpuinfo");
  if (cpuinfo.ok()) cpu = model::ParseCpuInfo(*cpuinfo);
  auto meminfo = core::ReadSystemFile("/proc/meminfo");
  if (meminfo.ok()) model::AddMemInfo(*meminfo, &cpu);
  return cpu;
}

std::string Join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

std::string VersionText(int version) {
  return fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
}

core::Result<core::ExitCode> RunTour(VerbContext& ctx, const TourOptions& options) {
  const auto& t = ctx.texts;
  model::CpuIdentity cpu = ReadCpu();
  auto db = EmbeddedSpecDatabase();
  if (!db.ok()) return db.status();

  auto devices = bench::QueryCudaDevices();
  std::vector<GpuEntry> gpus;
  if (devices.ok()) {
    for (const auto& device : *devices) {
      GpuEntry entry;
      entry.device = device;
      auto found = (*db)->Find(device.name);
      if (found.ok()) entry.spec = *found;
      if (!options.skip_smoke_test) {
        entry.smoke_ran = true;
        entry.smoke = bench::RunSmokeTest(device.index);
      }
      gpus.push_back(std::move(entry));
    }
  }
  bool smoke_failed = false;
  for (const auto& g : gpus) {
    if (g.smoke_ran && (!g.smoke.ok() || !g.smoke->verified)) smoke_failed = true;
  }

  if (ctx.options.json) {
    nlohmann::json doc = report::MakeDocument("tour");
    nlohmann::json c;
    c["model"] = cpu.model_name;
    c["vendor"] = cpu.vendor;
    c["logical_cpus"] = cpu.logical_cpus;
    c["physical_cores"] = cpu.physical_cores ? nlohmann::json(*cpu.physical_cores) : nlohmann::json(nullptr);
    c["sockets"] = cpu.sockets ? nlohmann::json(*cpu.sockets) : nlohmann::json(nullptr);
    c["simd"] = cpu.simd;
    c["clock_max_hz"] = cpu.max_mhz ? nlohmann::json(*cpu.max_mhz * 1e6) : nlohmann::json(nullptr);
    c["memory_bytes"] = cpu.memory_total_bytes ? nlohmann::json(*cpu.memory_total_bytes) : nlohmann::json(nullptr);
    doc["cpu"] = c;
    nlohmann::json g = nlohmann::json::object();
    g["cuda_built"] = bench::CudaBuilt();
    g["cuda_runtime_version"] = bench::CudaRuntimeVersion();
    g["driver_cuda_version"] = bench::CudaDriverVersion();
    g["available"] = devices.ok();
    if (!devices.ok()) {
      g["reason"] = devices.status().message();
      g["hint"] = devices.status().hint();
    }
    g["devices"] = nlohmann::json::array();
    for (const auto& entry : gpus) {
      nlohmann::json d;
      d["index"] = entry.device.index;
      d["name"] = entry.device.name;
      d["compute_capability"] = fmt::format("{}.{}", entry.device.compute_capability_major,
                                            entry.device.compute_capability_minor);
      d["sm_count"] = entry.device.sm_count;
      d["sm_clock_max_hz"] = entry.device.sm_clock_max_mhz * 1e6;
      d["memory_clock_max_hz"] = entry.device.memory_clock_max_mhz * 1e6;
      d["memory_bus_width_bits"] = entry.device.memory_bus_width_bits;
      d["memory_bytes"] = entry.device.memory_total_bytes;
      d["memory_free_bytes"] = entry.device.memory_free_bytes;
      d["l2_cache_bytes"] = entry.device.l2_cache_bytes;
      d["pci_bus_id"] = entry.device.pci_bus_id;
      d["spec_database_name"] = entry.spec ? nlohmann::json(entry.spec->name) : nlohmann::json(nullptr);
      if (entry.smoke_ran) {
        nlohmann::json s;
        s["ran"] = true;
        s["verified"] = entry.smoke.ok() && entry.smoke->verified;
        if (entry.smoke.ok()) {
          s["elements"] = entry.smoke->elements;
          s["mismatches"] = entry.smoke->mismatches;
          s["kernel_seconds"] = entry.smoke->kernel_seconds;
        } else {
          s["error"] = entry.smoke.status().message();
        }
        d["smoke_test"] = s;
      }
      g["devices"].push_back(d);
    }
    doc["gpu"] = g;
    doc["next"] = {"gpuprobe gpus", "gpuprobe gpus show NAME", "gpuprobe plan --params 8B --gpu NAME", "gpuprobe bench",
                   "gpuprobe advise --profile matmul"};
    ctx.out << report::RenderJson(doc);
    return smoke_failed ? core::ExitCode::kProblemsFound : core::ExitCode::kOk;
  }

  ctx.out << t.Get("tour.title") << "\n\n";
  ctx.out << t.Get("tour.cpu") << "\n";
  report::TextTable cpu_table;
  cpu_table.AddRow({t.Get("tour.cpu.model"), cpu.model_name.empty() ? t.Get("common.unknown") : cpu.model_name});
  std::string cores = cpu.physical_cores
                          ? Tr(t, "tour.cpu.cores_value", fmt::arg("cores", *cpu.physical_cores),
                               fmt::arg("threads", cpu.logical_cpus))
                          : Tr(t, "tour.cpu.threads_value", fmt::arg("threads", cpu.logical_cpus));
  cpu_table.AddRow({t.Get("tour.cpu.cores"), cores});
  if (!cpu.simd.empty()) cpu_table.AddRow({t.Get("tour.cpu.simd"), Join(cpu.simd, ", ")});
  if (cpu.memory_total_bytes) {
    cpu_table.AddRow({t.Get("tour.cpu.memory"), core::FormatBytesBinary(*cpu.memory_total_bytes)});
  }
  ctx.out << cpu_table.Render(2) << "\n";

  ctx.out << t.Get("tour.gpu") << "\n";
  if (!devices.ok()) {
    ctx.out << "  " << devices.status().message() << "\n";
    if (!devices.status().hint().empty()) ctx.out << "  " << Tr(t, "common.hint", fmt::arg("hint", devices.status().hint())) << "\n";
    ctx.out << "  " << t.Get("tour.gpu.cpu_only") << "\n";
  }
  for (const auto& entry : gpus) {
    const auto& d = entry.device;
    report::TextTable table;
    table.AddSection(fmt::format("GPU {}: {}", d.index, d.name));
    table.AddRow({t.Get("tour.gpu.compute_capability"),
                  fmt::format("{}.{} (sm_{}{})", d.compute_capability_major, d.compute_capability_minor,
                              d.compute_capability_major, d.compute_capability_minor)});
    table.AddRow({t.Get("tour.gpu.sms"), fmt::format("{}", d.sm_count)});
    table.AddRow({t.Get("tour.gpu.memory"),
                  Tr(t, "tour.gpu.memory_value", fmt::arg("total", core::FormatBytesBinary(static_cast<double>(d.memory_total_bytes))),
                     fmt::arg("free", core::FormatBytesBinary(static_cast<double>(d.memory_free_bytes))))});
    if (d.sm_clock_max_mhz > 0) table.AddRow({t.Get("tour.gpu.clock"), fmt::format("{:.0f} MHz", d.sm_clock_max_mhz)});
    if (d.memory_bus_width_bits > 0) {
      table.AddRow({t.Get("tour.gpu.bus"), fmt::format("{}-bit, {:.0f} MHz", d.memory_bus_width_bits, d.memory_clock_max_mhz)});
    }
    table.AddRow({t.Get("tour.gpu.l2"), core::FormatBytesBinary(static_cast<double>(d.l2_cache_bytes))});
    if (!d.pci_bus_id.empty()) table.AddRow({t.Get("tour.gpu.bus_id"), d.pci_bus_id});
    table.AddRow({t.Get("tour.gpu.spec"), entry.spec ? entry.spec->name : t.Get("tour.gpu.spec_missing")});
    if (entry.smoke_ran) {
      std::string smoke = !entry.smoke.ok() ? Tr(t, "tour.gpu.smoke_error", fmt::arg("error", entry.smoke.status().message()))
                          : entry.smoke->verified
                              ? Tr(t, "tour.gpu.smoke_ok", fmt::arg("elements", core::FormatInteger(entry.smoke->elements)))
                              : Tr(t, "tour.gpu.smoke_wrong", fmt::arg("mismatches", entry.smoke->mismatches));
      table.AddRow({t.Get("tour.gpu.smoke"), smoke});
    }
    ctx.out << table.Render(2);
  }
  if (devices.ok()) {
    ctx.out << "  " << Tr(t, "tour.gpu.versions", fmt::arg("driver", VersionText(bench::CudaDriverVersion())),
                          fmt::arg("runtime", VersionText(bench::CudaRuntimeVersion())))
            << "\n";
  }
  ctx.out << "\n" << t.Get("tour.next") << "\n";
  report::TextTable next;
  next.AddRow({"gpuprobe gpus", t.Get("tour.next.gpus")});
  next.AddRow({"gpuprobe gpus show h200", t.Get("tour.next.show")});
  next.AddRow({"gpuprobe gpus --task llm-serving", t.Get("tour.next.task")});
  next.AddRow({"gpuprobe plan --params 8B --gpu h200", t.Get("tour.next.plan")});
  next.AddRow({"gpuprobe plan --model config.json", t.Get("tour.next.plan_model")});
  next.AddRow({"gpuprobe bench", t.Get("tour.next.bench")});
  next.AddRow({"gpuprobe advise --profile matmul", t.Get("tour.next.advise")});
  next.AddRow({"gpuprobe inspect", t.Get("tour.next.inspect")});
  next.AddRow({"gpuprobe doctor", t.Get("tour.next.doctor")});
  next.AddRow({"gpuprobe explain \"ERROR TEXT\"", t.Get("tour.next.explain")});
  ctx.out << next.Render(2);
  return smoke_failed ? core::ExitCode::kProblemsFound : core::ExitCode::kOk;
}

}  // namespace

VerbRunner SetupTourVerb(CLI::App* command) {
  auto options = std::make_shared<TourOptions>();
  command->footer(kFooter);
  command->add_flag("--no-smoke-test", options->skip_smoke_test, "do not run the tiny verified kernel on each GPU");
  return [options](VerbContext& ctx) { return RunTour(ctx, *options); };
}

}  // namespace gpuprobe::cli
