#include "bench/cpu/openmp_anchor.h"

#include <omp.h>
#include <pthread.h>
#include <sched.h>

#include <chrono>

namespace gpuprobe::bench {

bool OpenMpAvailable() { return true; }

core::Result<double> TimeOpenMpRegions(int threads, int regions, const std::vector<int>& cpus,
                                       std::vector<std::uint64_t>* counts, std::size_t stride) {
  // OpenMP's threads inherit the affinity of the thread that first starts a region. The
  // caller is pinned to one CPU (worker 0 of the pool): opened up to the pool's CPUs for the
  // regions, the OpenMP team spreads over the same cores the pool uses; pinned back after.
  cpu_set_t before;
  bool restore = pthread_getaffinity_np(pthread_self(), sizeof before, &before) == 0;
  cpu_set_t team;
  CPU_ZERO(&team);
  bool any = false;
  for (int cpu : cpus) {
    if (cpu >= 0 && cpu < CPU_SETSIZE) {
      CPU_SET(cpu, &team);
      any = true;
    }
  }
  if (any) pthread_setaffinity_np(pthread_self(), sizeof team, &team);

  std::uint64_t* slots = counts->data();
  // One region outside the timing: the first one creates the team.
#pragma omp parallel num_threads(threads)
  { ++slots[static_cast<std::size_t>(omp_get_thread_num()) * stride]; }
  auto start = std::chrono::steady_clock::now();
  for (int r = 1; r < regions; ++r) {
#pragma omp parallel num_threads(threads)
    { ++slots[static_cast<std::size_t>(omp_get_thread_num()) * stride]; }
  }
  auto end = std::chrono::steady_clock::now();
  if (restore) pthread_setaffinity_np(pthread_self(), sizeof before, &before);
  // regions - 1 were timed; scale to `regions` so the caller's per-region arithmetic holds.
  double seconds = std::chrono::duration<double>(end - start).count();
  return regions > 1 ? seconds * regions / (regions - 1) : seconds;
}

}  // namespace gpuprobe::bench
