#include "bench/run_plan.h"

#include <algorithm>

namespace gpuprobe::bench {

std::vector<BenchResult> RunSelection(const std::vector<const Benchmark*>& selection,
                                      const std::vector<BackendContext*>& contexts, const model::CpuSpec& cpu,
                                      const BenchSettings& settings,
                                      const std::function<void(const CaseProgress&)>& progress) {
  struct Job {
    const Benchmark* benchmark;
    BackendContext* context;
    std::vector<BenchCase> cases;
  };
  std::vector<Job> jobs;
  int total = 0;
  for (const auto* benchmark : selection) {
    for (auto* context : contexts) {
      const auto& backends = benchmark->Info().backends;
      if (std::find(backends.begin(), backends.end(), context->BackendName()) == backends.end()) continue;
      Job job{benchmark, context, benchmark->Cases(*context, cpu, settings.full, settings.size_override)};
      total += static_cast<int>(job.cases.size());
      jobs.push_back(std::move(job));
    }
  }
  std::vector<BenchResult> results;
  std::vector<EarlierResult> earlier;
  int counter = 0;
  for (auto& job : jobs) {
    RunBenchmark(*job.benchmark, *job.context, cpu, job.cases, settings.runner, &results, &earlier, progress, &counter,
                 total);
  }
  return results;
}

}  // namespace gpuprobe::bench
