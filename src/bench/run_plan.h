// Running a selection of benchmarks on a set of backend contexts: the part of `bench` that is
// neither parsing flags nor printing, so tests and the tour can drive it too.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "bench/benchmark.h"
#include "bench/registry.h"
#include "bench/result.h"
#include "bench/runner.h"

namespace gpuprobe::bench {

struct BenchSettings {
  bool full = false;
  std::uint64_t size_override = 0;  ///< --size, in the benchmark's own unit (bytes, n)
  RunnerOptions runner = QuickRunnerOptions();
};

/// Runs every selected benchmark on every context whose backend it supports, CPU results
/// first so GPU predictions can build on them.
std::vector<BenchResult> RunSelection(const std::vector<const Benchmark*>& selection,
                                      const std::vector<BackendContext*>& contexts, const model::CpuSpec& cpu,
                                      const BenchSettings& settings,
                                      const std::function<void(const CaseProgress&)>& progress = {});

}  // namespace gpuprobe::bench
