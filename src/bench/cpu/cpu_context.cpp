#include "bench/cpu/cpu_context.h"

#include <sys/mman.h>

#include <algorithm>

#include <fmt/format.h>

#include "core/units.h"

namespace gpuprobe::bench {

CpuContext::CpuContext(model::CpuSpec spec, std::vector<int> cpu_ids)
    : spec_(std::move(spec)), pool_(std::move(cpu_ids)) {
  device_.backend = "cpu";
  device_.name = spec_.model_name.empty() ? "CPU" : spec_.model_name;
  device_.memory_total_bytes = spec_.memory_total_bytes;
}

void* AllocateAlignedBytes(std::size_t bytes) {
  constexpr std::size_t kAlign = 2 << 20;
  void* p = nullptr;
  std::size_t rounded = (std::max<std::size_t>(bytes, 1) + kAlign - 1) / kAlign * kAlign;
  if (posix_memalign(&p, kAlign, rounded) != 0) return nullptr;
  // Huge pages cut TLB misses, which would otherwise pollute latency and random-access runs.
  if (rounded >= kAlign) madvise(p, rounded, MADV_HUGEPAGE);
  return p;
}

void Partition(std::size_t n, int workers, int w, std::size_t* begin, std::size_t* end) {
  std::size_t chunk = (n + static_cast<std::size_t>(workers) - 1) / static_cast<std::size_t>(workers);
  chunk = (chunk + 63) / 64 * 64;
  *begin = std::min(n, chunk * static_cast<std::size_t>(w));
  *end = std::min(n, *begin + chunk);
}

double RandomUnit(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0);
}

double TimeParallel(ThreadPool& pool, int workers, const std::function<void(int)>& fn) {
  auto start = std::chrono::steady_clock::now();
  pool.Run(workers, fn);
  auto end = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(end - start).count();
}

core::Status AllocationFailed(const std::string& what, const std::string& what_key, double bytes) {
  return core::Status::Unavailable(fmt::format("could not allocate {} for {}", core::FormatBytesBinary(bytes), what),
                                   "use --size to choose a smaller working set")
      .WithKeys("error.bench.alloc", {{"size", core::FormatBytesBinary(bytes)}, {"what_key", what_key}}, "error.bench.alloc.hint");
}

}  // namespace gpuprobe::bench
