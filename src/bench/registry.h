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
  /// Adds a benchmark. An id already registered for other backends is merged with it (one
  /// id, CPU and GPU side by side). A second claim on the same backend, or a shared id whose
  /// group or metric differ between backends, is a programming error: the
  /// benchmark is not added and the error is kept in status(), which every caller of the
  /// Register* functions checks (a test checks it for the whole build).
  void Add(std::unique_ptr<Benchmark> benchmark);
  /// Ok, or the first registration error.
  core::Status status() const { return status_; }
  const std::vector<std::unique_ptr<Benchmark>>& all() const { return benchmarks_; }
  const Benchmark* Find(const std::string& id) const;

  /// Selects by exact id, group ("memory") or id prefix ("memory.tri"), in registration order
  /// without duplicates; everything when `patterns` is empty. InvalidArgument with "did you
  /// mean" for a pattern that matches nothing.
  core::Result<std::vector<const Benchmark*>> Select(const std::vector<std::string>& patterns) const;

 private:
  core::Status AddChecked(std::unique_ptr<Benchmark> benchmark);
  std::vector<std::unique_ptr<Benchmark>> benchmarks_;
  core::Status status_;
};

/// Every CPU family (bench/registry.cpp).
void RegisterCpuBenchmarks(BenchmarkRegistry* registry);
/// Every benchmark of this build: the CPU families, then the GPU suites where CUDA is built
/// (defined in bench/cuda/register_cuda_benchmarks*.cpp, so the CPU library needs no CUDA).
void RegisterAllBenchmarks(BenchmarkRegistry* registry);
/// One function per family (defined in bench/cpu/*.cpp).
void RegisterCpuMemoryBenchmarks(BenchmarkRegistry* registry);
void RegisterCpuComputeBenchmarks(BenchmarkRegistry* registry);
void RegisterCpuLatencyBenchmarks(BenchmarkRegistry* registry);
void RegisterCpuMatmulBenchmarks(BenchmarkRegistry* registry);
void RegisterCpuAccessBenchmarks(BenchmarkRegistry* registry);
void RegisterCpuBranchBenchmarks(BenchmarkRegistry* registry);
void RegisterCpuParallelBenchmarks(BenchmarkRegistry* registry);
void RegisterCpuCrossoverBenchmarks(BenchmarkRegistry* registry);


/// The backends of this build: cpu always; cuda from register_cuda(_absent).cpp.
void RegisterCpuBackend(BackendRegistry* registry);
void RegisterCudaBackend(BackendRegistry* registry);

}  // namespace gpuprobe::bench
