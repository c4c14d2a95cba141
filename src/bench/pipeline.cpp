#include "bench/pipeline.h"

#include <chrono>

#include <fmt/format.h>

#include "bench/memory_budget.h"
#include "core/version.h"

namespace gpuprobe::bench {

core::Result<std::vector<const Benchmark*>> SelectForRequest(const BenchmarkRegistry& registry,
                                                            const PipelineRequest& request) {
  if (request.backend != "all" && request.backend != "cpu" && request.backend != "cuda") {
    return core::Status::InvalidArgument("--backend must be cpu, cuda or all, got '" + request.backend + "'")
        .WithKeys("error.bench.backend", {{"backend", request.backend}});
  }
  if (!request.skip_unknown_ids) return registry.Select(request.patterns);
  std::vector<std::string> present;
  for (const auto& id : request.patterns) {
    if (registry.Find(id) != nullptr) present.push_back(id);
  }
  if (present.empty()) return std::vector<const Benchmark*>{};
  return registry.Select(present);
}

core::Result<BenchDocument> RunPipeline(const BenchmarkRegistry& registry, BenchHost& host, const PipelineRequest& request,
                                        const std::function<void(const CaseProgress&)>& progress) {
  GPUPROBE_RETURN_IF_ERROR(registry.status());
  auto selection = SelectForRequest(registry, request);
  if (!selection.ok()) return selection.status();

  BenchDocument doc;
  doc.gpuprobe_version = core::kVersion;
  doc.full = request.settings.full;

  // The GPU first: asked for alone and missing is exit 3, before any CPU time is spent.
  std::vector<std::unique_ptr<BackendContext>> gpus;
  Availability gpu = host.ProbeGpu();
  if (request.backend == "cuda" && !gpu.available) {
    // The reason in the chosen language where the backend gave it a text key.
    core::MessageArgs args = gpu.reason_text.args;
    args.emplace_back("reason_key", gpu.reason_text.empty() ? "bench.reason.raw" : gpu.reason_text.key);
    args.emplace_back("reason_text", gpu.reason);
    return core::Status::Unavailable("no GPU to benchmark: " + gpu.reason, gpu.hint).WithKeys("error.bench.no_gpu", std::move(args));
  }
  if (request.backend != "cpu") {
    if (gpu.available) {
      auto context = host.OpenGpu(0);
      if (!context.ok()) {
        if (request.backend == "cuda") return context.status();
        doc.gpu_absent_reason = context.status().message();
      } else {
        doc.gpus.push_back(fmt::format("GPU 0: {}", (*context)->Device().name));
        gpus.push_back(std::move(context.value()));
      }
    } else {
      doc.gpu_absent_reason = gpu.reason;
    }
  }

  BenchHost::Cpu cpu = host.OpenCpu(request.threads, request.clock_probe_seconds);
  doc.cpu = cpu.spec;
  std::vector<BackendContext*> contexts;
  if (request.backend != "cuda") contexts.push_back(cpu.context.get());
  for (auto& g : gpus) contexts.push_back(g.get());
  for (auto* c : contexts) c->set_requested_seconds(request.requested_seconds);
  // A --size the memory cannot hold is refused before the first buffer is allocated.
  auto shortfall = FindMemoryShortfall(*selection, contexts, cpu.context.get(), doc.cpu, request.settings.full,
                                       request.settings.size_override);
  if (shortfall) return MemoryShortfallStatus(*shortfall, request.settings.size_override);

  auto start = std::chrono::steady_clock::now();
  doc.results = RunSelection(*selection, contexts, doc.cpu, request.settings, progress);
  doc.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return doc;
}

core::Result<BenchDocument> MeasureCpuFigures(BenchHost& host, const std::vector<std::string>& ids) {
  BenchmarkRegistry registry;
  RegisterCpuBenchmarks(&registry);
  PipelineRequest request;
  request.patterns = ids;
  request.backend = "cpu";
  request.clock_probe_seconds = 0.1;
  request.settings.runner.max_seconds = 0.15;
  request.settings.runner.min_seconds = 0.05;
  return RunPipeline(registry, host, request);
}

}  // namespace gpuprobe::bench
