// One benchmark id measured on several backends by separate implementations (the CPU's
// memory.triad and the GPU's memory.triad), so `bench memory.triad` puts both side by side.
// The registry merges implementations that share an id into one of these; each case is
// tagged with its backend so WorkFor and Predict reach the implementation that made it.
//
// Thread safety: immutable after construction, like every Benchmark.
#pragma once

#include <memory>
#include <vector>

#include "bench/benchmark.h"

namespace gpuprobe::bench {

class MultiBackendBenchmark : public Benchmark {
 public:
  /// `first` and `second` must share an id and support disjoint backends.
  MultiBackendBenchmark(std::unique_ptr<Benchmark> first, std::unique_ptr<Benchmark> second);
  /// Adds one more implementation (disjoint backends).
  void Add(std::unique_ptr<Benchmark> implementation);
  /// The implementation for `backend`, or null.
  const Benchmark* For(const std::string& backend) const;

  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext& context, const model::CpuSpec& cpu, bool full,
                               std::uint64_t size_override) const override;
  Availability Check(const BackendContext& context, const BenchCase& c) const override;
  std::optional<Footprint> FootprintFor(const BackendContext& context, const BenchCase& c) const override;
  Work WorkFor(const BenchCase& c) const override;
  Prediction Predict(const PredictionContext& context, const BenchCase& c) const override;
  PlanEstimate Plan(const PredictionContext& context, const BenchCase& c) const override;
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& context, const BenchCase& c) const override;

 private:
  const Benchmark& Implementation(const std::string& backend) const;
  std::vector<std::unique_ptr<Benchmark>> implementations_;
  BenchmarkInfo info_;
};

/// Whether two implementations claim a backend in common.
bool BackendsOverlap(const BenchmarkInfo& a, const BenchmarkInfo& b);

}  // namespace gpuprobe::bench
