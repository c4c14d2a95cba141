// gpuprobe-gpu-plan [--gpu NAME] [--limit-seconds S]: what scripts/gpu-check will run on a GPU
// and how long each part should take there, computed on any machine (no GPU needed): every
// case of the full GPU bench with its size and expected duration, from the spec database's
// figures for NAME (default h200), the model's predictions and the runner's rules
// (bench/run_estimate.h). Exit 0 when the total fits the limit (default 480 s), 1 when it
// does not, 2 for bad usage, 3 when this build has no CUDA backend or NAME is not known.
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/live_state.h"
#include "bench/registry.h"
#include "bench/run_estimate.h"
#include "core/units.h"
#include "knowledge/embedded_knowledge.h"

namespace {

using gpuprobe::bench::Benchmark;
using gpuprobe::bench::PlannedCase;

// What gpu-check spends outside the benchmarks, from its steps (scripts/gpu-check).
constexpr double kTourCpuAllowance = 30;       // the tour's CPU half: about 10-30 s (docs/bench.md)
constexpr double kTourStateAllowance = 10;     // identity, smoke test, NVML state, doctor, the report page
constexpr double kInspectAllowance = 40;       // inspect, doctor, captures, 2 x 23 timed runs of inspect vs nvidia-smi
constexpr double kTorchAllowance = 20;         // importing torch, then 2 x 21 timed calls
constexpr double kBurnSeconds = 20;            // gpu-check's separate burn

double Sum(const std::vector<PlannedCase>& cases) {
  double total = 0;
  for (const auto& c : cases) total += c.seconds;
  return total;
}

std::vector<const Benchmark*> CudaBenchmarks(const gpuprobe::bench::BenchmarkRegistry& registry, const std::vector<std::string>& only) {
  std::vector<const Benchmark*> out;
  for (const auto& b : registry.all()) {
    bool cuda = false;
    for (const auto& backend : b->Info().backends) cuda = cuda || backend == "cuda";
    if (!cuda) continue;
    if (!only.empty()) {
      bool wanted = false;
      for (const auto& id : only) wanted = wanted || id == b->Info().id;
      if (!wanted) continue;
    }
    out.push_back(b.get());
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string gpu_name = "h200";
  double limit = 480;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--gpu" && i + 1 < argc) {
      gpu_name = argv[++i];
    } else if (arg == "--limit-seconds" && i + 1 < argc) {
      limit = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: gpuprobe-gpu-plan [--gpu NAME] [--limit-seconds S]\n");
      return 2;
    }
  }
  // The GPU as a user names it (partial names and aliases, as `gpuprobe gpus show` finds it).
  const gpuprobe::model::GpuSpec* spec = nullptr;
  if (auto db = gpuprobe::knowledge::Specs(); db.ok()) {
    auto found = (*db)->Find(gpu_name);
    if (found.ok()) spec = *found;
  }
  if (spec == nullptr) {
    std::fprintf(stderr, "gpuprobe-gpu-plan: '%s' is not one GPU of the spec database\n", gpu_name.c_str());
    return 3;
  }
  gpuprobe::bench::BenchmarkRegistry registry;
  gpuprobe::bench::RegisterAllBenchmarks(&registry);
  auto all = CudaBenchmarks(registry, {});
  if (all.empty()) {
    std::fprintf(stderr, "gpuprobe-gpu-plan: this build has no CUDA backend, so there are no GPU suites to plan\n");
    return 3;
  }
  gpuprobe::bench::PlannedGpu gpu(*spec);

  // 1. The GPU tests: each GPU benchmark's first case, prepared, run twice (the first run
  //    calibrates), verified, damaged, verified again; memory and transfer at 16 MiB; the
  //    burn asked for 2 s.
  std::vector<PlannedCase> tests;
  {
    gpuprobe::bench::BenchSettings settings;
    gpu.set_requested_seconds(2);
    for (const Benchmark* b : all) {
      bool sized = b->Info().group == "memory" || b->Info().group == "transfer";
      settings.size_override = sized ? (16ull << 20) : 0;
      auto cases = gpuprobe::bench::PlanCases({b}, gpu, settings);
      if (cases.empty()) continue;
      PlannedCase first = cases.front();
      // Two runs instead of the runner's loop: the first calibrates (one untimed and one timed
      // iteration, then a batch of >= 100 us), the second is a batch; unknown iterations are
      // taken as 1 ms.
      double t = first.iteration_seconds.value_or(1e-3);
      first.seconds = first.fixed_seconds + 2 * t + 2 * std::max(100e-6, t);
      tests.push_back(first);
    }
  }
  // 2. The full GPU bench, 0.5 s of samples per case.
  gpuprobe::bench::BenchSettings full;
  full.full = true;
  full.runner = gpuprobe::bench::FullRunnerOptions();
  full.runner.max_seconds = 0.5;
  full.runner.min_seconds = 0.5;
  gpu.set_requested_seconds(0.5);
  std::vector<PlannedCase> bench = gpuprobe::bench::PlanCases(all, gpu, full);
  // 3. The separate burn: 20 s of load, then samples until they settle (quick runner).
  gpuprobe::bench::BenchSettings burn_settings;
  burn_settings.runner.max_seconds = kBurnSeconds;
  burn_settings.runner.min_seconds = std::min(burn_settings.runner.min_seconds, kBurnSeconds);
  gpu.set_requested_seconds(kBurnSeconds);
  std::vector<PlannedCase> burn = gpuprobe::bench::PlanCases(CudaBenchmarks(registry, {"burn.gemm"}), gpu, burn_settings, true);
  // 4. The tour's GPU cases (quick, 0.25 s each).
  gpuprobe::bench::BenchSettings tour_settings;
  tour_settings.runner.max_seconds = 0.25;
  tour_settings.runner.min_seconds = std::min(tour_settings.runner.min_seconds, 0.25);
  std::vector<PlannedCase> tour = gpuprobe::bench::PlanCases(CudaBenchmarks(registry, gpuprobe::app::SideBySideBenchmarks()), gpu, tour_settings);

  double total = Sum(tests) + Sum(bench) + Sum(burn) + Sum(tour) + kTourCpuAllowance + kTourStateAllowance + kInspectAllowance +
                 kTorchAllowance;
  std::printf("gpu-check plan for %s: durations from the spec's figures, the model's predictions and the runner's rules\n",
              spec->name.c_str());
  std::printf("== GPU tests (ctest -L gpu): %zu benchmarks, one small case each %30.1f s\n", tests.size(), Sum(tests));
  std::printf("== bench --backend cuda --full --seconds 0.5: %zu cases %33.1f s\n", bench.size(), Sum(bench));
  int unmodelled = 0;
  for (const auto& c : bench) {
    std::printf("   %-28s %-44s %7.2f s  %s\n", c.id.c_str(), c.label.c_str(), c.seconds, c.basis.c_str());
    unmodelled += c.modelled ? 0 : 1;
  }
  std::printf("   (%d cases without a model figure are planned at the runner's floor)\n", unmodelled);
  std::printf("== burn: %.0f s of sustained GEMMs, then samples until they settle %21.1f s\n", kBurnSeconds, Sum(burn));
  std::printf("== tour: %zu GPU cases (%.1f s), the CPU half (allowance %.0f s), state and doctor (allowance %.0f s) %5.1f s\n",
              tour.size(), Sum(tour), kTourCpuAllowance, kTourStateAllowance, Sum(tour) + kTourCpuAllowance + kTourStateAllowance);
  std::printf("== inspect, doctor, report, nvidia-smi captures and their timing (allowance) %12.1f s\n", kInspectAllowance);
  std::printf("== PyTorch comparison where torch is installed (allowance) %29.1f s\n", kTorchAllowance);
  std::printf("total: %.0f s (%.1f min) of %.0f s; the build before it is not counted (it depends on the machine's cores "
              "and ccache)\n",
              total, total / 60, limit);
  if (total > limit) {
    std::printf("OVER: the run would not fit in %.0f s\n", limit);
    return 1;
  }
  return 0;
}
