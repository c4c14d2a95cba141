#include "bench/benchmark.h"

namespace gpuprobe::bench {

const char* MetricUnit(Metric metric) {
  switch (metric) {
    case Metric::kBandwidth: return "B/s";
    case Metric::kFlops: return "FLOP/s";
    case Metric::kOps: return "op/s";
    case Metric::kLatency: return "s";
  }
  return "?";
}

BenchmarkInfo MakeBenchmarkInfo(std::string group, const std::string& name, std::string title, std::string description,
                                std::string claim, Metric metric, std::vector<std::string> backends) {
  BenchmarkInfo info;
  info.id = group + "." + name;
  info.group = std::move(group);
  info.title = std::move(title);
  info.description = std::move(description);
  info.claim = std::move(claim);
  info.backends = std::move(backends);
  info.metric = metric;
  return info;
}

const char* MetricName(Metric metric) {
  switch (metric) {
    case Metric::kBandwidth: return "bandwidth";
    case Metric::kFlops: return "flops";
    case Metric::kOps: return "ops";
    case Metric::kLatency: return "latency";
  }
  return "?";
}

Availability Benchmark::Check(const BackendContext&, const BenchCase&) const { return Availability::Yes(); }

std::optional<Footprint> Benchmark::FootprintFor(const BackendContext&, const BenchCase&) const { return std::nullopt; }

PlanEstimate Benchmark::Plan(const PredictionContext& context, const BenchCase& c) const {
  PlanEstimate plan;
  Prediction p = Predict(context, c);
  if (!p.value || *p.value <= 0) return plan;
  Work w = WorkFor(c);
  double amount = 0;
  switch (Info().metric) {
    case Metric::kBandwidth: amount = w.Bytes(); break;
    case Metric::kFlops: amount = w.flops; break;
    case Metric::kOps: amount = w.ops; break;
    case Metric::kLatency: plan.seconds_per_iteration = *p.value * w.items; break;
  }
  if (Info().metric != Metric::kLatency && amount > 0) plan.seconds_per_iteration = amount / *p.value;
  plan.basis = p.basis;
  return plan;
}

const EarlierResult* PredictionContext::Find(const std::string& id, const std::string& backend,
                                             const std::string& case_label) const {
  for (auto it = earlier.rbegin(); it != earlier.rend(); ++it) {
    if (it->id == id && it->backend == backend && (case_label.empty() || it->case_label == case_label)) return &*it;
  }
  return nullptr;
}

Backend* BackendRegistry::Find(const std::string& name) const {
  for (const auto& b : backends_) {
    if (b->Name() == name) return b.get();
  }
  return nullptr;
}

}  // namespace gpuprobe::bench
