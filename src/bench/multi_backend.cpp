#include "bench/multi_backend.h"

#include <algorithm>

namespace gpuprobe::bench {

bool BackendsOverlap(const BenchmarkInfo& a, const BenchmarkInfo& b) {
  for (const auto& x : a.backends) {
    if (std::find(b.backends.begin(), b.backends.end(), x) != b.backends.end()) return true;
  }
  return false;
}

MultiBackendBenchmark::MultiBackendBenchmark(std::unique_ptr<Benchmark> first, std::unique_ptr<Benchmark> second) {
  info_ = first->Info();
  implementations_.push_back(std::move(first));
  Add(std::move(second));
}

void MultiBackendBenchmark::Add(std::unique_ptr<Benchmark> implementation) {
  for (const auto& b : implementation->Info().backends) info_.backends.push_back(b);
  info_.description += "; " + implementation->Info().backends.front() + ": " + implementation->Info().description;
  implementations_.push_back(std::move(implementation));
}

const Benchmark* MultiBackendBenchmark::For(const std::string& backend) const {
  for (const auto& impl : implementations_) {
    const auto& backends = impl->Info().backends;
    if (std::find(backends.begin(), backends.end(), backend) != backends.end()) return impl.get();
  }
  return nullptr;
}

const Benchmark& MultiBackendBenchmark::Implementation(const std::string& backend) const {
  const Benchmark* b = For(backend);
  return b != nullptr ? *b : *implementations_.front();  // untagged cases belong to the first (CPU)
}

std::vector<BenchCase> MultiBackendBenchmark::Cases(const BackendContext& context, const model::CpuSpec& cpu, bool full,
                                                    std::uint64_t size_override) const {
  const Benchmark* b = For(context.BackendName());
  if (b == nullptr) return {};
  auto cases = b->Cases(context, cpu, full, size_override);
  for (auto& c : cases) c.backend = context.BackendName();
  return cases;
}

Availability MultiBackendBenchmark::Check(const BackendContext& context, const BenchCase& c) const {
  return Implementation(context.BackendName()).Check(context, c);
}

std::optional<Footprint> MultiBackendBenchmark::FootprintFor(const BackendContext& context, const BenchCase& c) const {
  return Implementation(context.BackendName()).FootprintFor(context, c);
}

Work MultiBackendBenchmark::WorkFor(const BenchCase& c) const { return Implementation(c.backend).WorkFor(c); }

Prediction MultiBackendBenchmark::Predict(const PredictionContext& context, const BenchCase& c) const {
  return Implementation(c.backend).Predict(context, c);
}

PlanEstimate MultiBackendBenchmark::Plan(const PredictionContext& context, const BenchCase& c) const {
  return Implementation(c.backend).Plan(context, c);
}

core::Result<std::unique_ptr<BenchmarkInstance>> MultiBackendBenchmark::Prepare(BackendContext& context,
                                                                                const BenchCase& c) const {
  return Implementation(context.BackendName()).Prepare(context, c);
}

}  // namespace gpuprobe::bench
