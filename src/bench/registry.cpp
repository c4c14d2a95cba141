#include "bench/registry.h"

#include <algorithm>

#include <fmt/format.h>

#include "bench/multi_backend.h"
#include "core/spelling.h"

namespace gpuprobe::bench {

void BenchmarkRegistry::Add(std::unique_ptr<Benchmark> benchmark) {
  core::Status added = AddChecked(std::move(benchmark));
  if (!added.ok() && status_.ok()) status_ = added;
}

core::Status BenchmarkRegistry::AddChecked(std::unique_ptr<Benchmark> benchmark) {
  for (auto& existing : benchmarks_) {
    const BenchmarkInfo& have = existing->Info();
    const BenchmarkInfo& add = benchmark->Info();
    if (have.id != add.id) continue;
    // The same claim on another backend: merge, so one id shows CPU and GPU side by side.
    if (BackendsOverlap(have, add)) {
      return core::Status::Internal("benchmark id registered twice for one backend: " + add.id);
    }
    // One id is one measured quantity: results of a shared id are compared side by side,
    // which means nothing if the backends measure it in different metrics. (Titles and
    // claims are texts keyed by the id, one per id whatever the backend.)
    if (have.group != add.group || have.metric != add.metric) {
      return core::Status::Internal("benchmark " + add.id +
                                    " is declared differently on two backends (group or metric)");
    }
    if (auto* multi = dynamic_cast<MultiBackendBenchmark*>(existing.get())) {
      multi->Add(std::move(benchmark));
    } else {
      existing = std::make_unique<MultiBackendBenchmark>(std::move(existing), std::move(benchmark));
    }
    return core::Status::Ok();
  }
  benchmarks_.push_back(std::move(benchmark));
  return core::Status::Ok();
}

const Benchmark* BenchmarkRegistry::Find(const std::string& id) const {
  for (const auto& b : benchmarks_) {
    if (b->Info().id == id) return b.get();
  }
  return nullptr;
}

core::Result<std::vector<const Benchmark*>> BenchmarkRegistry::Select(const std::vector<std::string>& patterns) const {
  std::vector<const Benchmark*> out;
  auto add = [&](const Benchmark* b) {
    if (std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
  };
  if (patterns.empty()) {
    for (const auto& b : benchmarks_) add(b.get());
    return out;
  }
  for (const auto& pattern : patterns) {
    bool matched = false;
    for (const auto& b : benchmarks_) {
      const auto& info = b->Info();
      if (info.id == pattern || info.group == pattern || info.id.rfind(pattern, 0) == 0) {
        add(b.get());
        matched = true;
      }
    }
    if (!matched) {
      std::vector<std::string> names;
      for (const auto& b : benchmarks_) {
        names.push_back(b->Info().id);
        if (std::find(names.begin(), names.end(), b->Info().group) == names.end()) names.push_back(b->Info().group);
      }
      auto near = core::ClosestMatches(pattern, names);
      std::string message = fmt::format("no benchmark or group named '{}'", pattern);
      if (!near.empty()) message += fmt::format("; did you mean '{}'?", near.front());
      core::Status status = core::Status::InvalidArgument(message, "run 'gpuprobe bench --list' for every id");
      return near.empty() ? status.WithKeys("error.unknown.benchmark", {{"name", pattern}}, "error.unknown.benchmark.hint")
                          : status.WithKeys("error.unknown.benchmark.near", {{"name", pattern}, {"near", near.front()}},
                                            "error.unknown.benchmark.hint");
    }
  }
  // Keep registration order whatever order the patterns came in.
  std::vector<const Benchmark*> ordered;
  for (const auto& b : benchmarks_) {
    if (std::find(out.begin(), out.end(), b.get()) != out.end()) ordered.push_back(b.get());
  }
  return ordered;
}

void RegisterCpuBenchmarks(BenchmarkRegistry* registry) {
  RegisterCpuMemoryBenchmarks(registry);
  RegisterCpuComputeBenchmarks(registry);
  RegisterCpuLatencyBenchmarks(registry);
  RegisterCpuMatmulBenchmarks(registry);
  RegisterCpuAccessBenchmarks(registry);
  RegisterCpuBranchBenchmarks(registry);
  RegisterCpuParallelBenchmarks(registry);
  RegisterCpuCrossoverBenchmarks(registry);
}

}  // namespace gpuprobe::bench
