// BenchmarkRegistry: every benchmark in one explicit list, filled by one Register<Family>
// function per family (static self-registration vanishes from static libraries).
//
// Thread safety: fill once, then read from any thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "bench/benchmark.h"
#include "core/status.h"

namespace gpuprobe::bench {

class BenchmarkRegistry {
 public:
  /// Adds a benchmark; InvalidArgument (a programming error) for a duplicate id.
  core::Status Add(std::unique_ptr<Benchmark> benchmark);
  const std::vector<std::unique_ptr<Benchmark>>& all() const { return benchmarks_; }
  const Benchmark* Find(const std::string& id) const;

  /// Selects by exact id, group ("memory") or id prefix ("memory.tri"), in registration order
  /// without duplicates; everything when `patterns` is empty. InvalidArgument with "did you
  /// mean" for a pattern that matches nothing.
  core::Result<std::vector<const Benchmark*>> Select(const std::vector<std::string>& patterns) const;

 private:
  std::vector<std::unique_ptr<Benchmark>> benchmarks_;
};

/// Registers every benchmark family of this build (CPU now; CUDA where built).
void RegisterAllBenchmarks(BenchmarkRegistry* registry);
/// One function per family (defined in bench/cpu/*.cpp).
void RegisterCpuMemoryBenchmarks(BenchmarkRegistry* registry);
void RegisterCpuComputeBenchmarks(BenchmarkRegistry* registry);
void RegisterCpuLatencyBenchmarks(BenchmarkRegistry* registry);
void RegisterCpuMatmulBenchmarks(BenchmarkRegistry* registry);
void RegisterCpuAccessBenchmarks(BenchmarkRegistry* registry);
void RegisterCpuBranchBenchmarks(BenchmarkRegistry* registry);
void RegisterCpuParallelBenchmarks(BenchmarkRegistry* registry);

/// The backends of this build: cpu always; cuda from register_cuda(_absent).cpp.
void RegisterCpuBackend(BackendRegistry* registry);
void RegisterCudaBackend(BackendRegistry* registry);

}  // namespace gpuprobe::bench
