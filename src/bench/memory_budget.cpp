#include "bench/memory_budget.h"

#include <algorithm>
#include <cctype>
#include <string>

#include <fmt/format.h>

#include "core/units.h"

namespace gpuprobe::bench {
namespace {

bool Supports(const Benchmark& b, const BackendContext& context) {
  const auto& backends = b.Info().backends;
  return std::find(backends.begin(), backends.end(), context.BackendName()) != backends.end();
}

// The first case of the selection that does not fit with `size`, in run order; with
// `runnable`, a case the benchmark itself refuses at that size (Check: a matrix order above
// its limit) counts as not fitting too, so the largest size offered is one that runs.
std::optional<MemoryShortfall> FirstMiss(const std::vector<const Benchmark*>& selection,
                                         const std::vector<BackendContext*>& contexts, const BackendContext* host,
                                         const model::CpuSpec& cpu, bool full, std::uint64_t size, bool runnable = false) {
  const double host_free = host != nullptr ? static_cast<double>(host->Device().memory_free_bytes) : 0;
  for (const Benchmark* b : selection) {
    for (BackendContext* context : contexts) {
      if (!Supports(*b, *context)) continue;
      const bool gpu = context->BackendName() != "cpu";
      const double device_free = gpu ? static_cast<double>(context->Device().memory_free_bytes) : 0;
      for (const BenchCase& c : b->Cases(*context, cpu, full, size)) {
        auto footprint = b->FootprintFor(*context, c);
        if (!footprint) continue;
        auto miss = [&](bool on_device, double bytes, double free_bytes) {
          return MemoryShortfall{b->Info().id, context->BackendName(), c.label, on_device, bytes, free_bytes, 0};
        };
        if (runnable && !b->Check(*context, c).available) return miss(gpu, 0, gpu ? device_free : host_free);
        // Each buffer against the memory it lives in: a GPU case's pinned host buffers count
        // against the RAM, its device buffers against the GPU. An unknown figure checks nothing.
        if (gpu && device_free > 0 && footprint->device_bytes > device_free * kFreeMemoryShare) {
          return miss(true, footprint->device_bytes, device_free);
        }
        if (host_free > 0 && footprint->host_bytes > host_free * kFreeMemoryShare) return miss(false, footprint->host_bytes, host_free);
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::uint64_t> MemAvailableBytes(std::string_view meminfo) {
  constexpr std::string_view kKey = "MemAvailable:";
  size_t at = 0;
  while (at < meminfo.size()) {
    size_t end = meminfo.find('\n', at);
    if (end == std::string_view::npos) end = meminfo.size();
    std::string_view line = meminfo.substr(at, end - at);
    at = end + 1;
    if (line.substr(0, kKey.size()) != kKey) continue;
    line.remove_prefix(kKey.size());
    size_t i = 0;
    while (i < line.size() && line[i] == ' ') ++i;
    std::uint64_t kib = 0;
    size_t digits = 0;
    for (; i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])) && digits < 15; ++i, ++digits) {
      kib = kib * 10 + static_cast<std::uint64_t>(line[i] - '0');
    }
    if (digits == 0) return std::nullopt;
    return kib * 1024;  // /proc/meminfo's "kB" are KiB
  }
  return std::nullopt;
}

std::optional<MemoryShortfall> FindMemoryShortfall(const std::vector<const Benchmark*>& selection,
                                                   const std::vector<BackendContext*>& contexts, const BackendContext* host,
                                                   const model::CpuSpec& cpu, bool full, std::uint64_t size_override) {
  if (size_override == 0) return std::nullopt;
  auto miss = FirstMiss(selection, contexts, host, cpu, full, size_override);
  if (!miss) return std::nullopt;
  // The largest size that fits everywhere: the footprints grow with the size, so a bisection
  // over [0, size_override) finds it in at most 64 steps.
  std::uint64_t fits = 0, misses = size_override;
  while (misses - fits > 1) {
    std::uint64_t mid = fits + (misses - fits) / 2;
    if (FirstMiss(selection, contexts, host, cpu, full, mid, /*runnable=*/true)) {
      misses = mid;
    } else {
      fits = mid;
    }
  }
  miss->largest_size = fits;
  return miss;
}

core::Status MemoryShortfallStatus(const MemoryShortfall& s, std::uint64_t size_override) {
  // --size is in bytes for the memory benchmarks and a matrix order for matmul: the largest
  // that fits is said the way it was given.
  const bool order = s.id.rfind("matmul.", 0) == 0 || s.id.rfind("crossover.", 0) == 0 || s.id.rfind("burn.", 0) == 0;
  auto size_text = [&](std::uint64_t v) { return order ? std::to_string(v) : core::FormatBytesBinary(static_cast<double>(v)); };
  const std::string where = s.device ? "GPU memory" : "RAM";
  const std::string largest = s.largest_size > 0 ? size_text(s.largest_size) : std::string("none");
  std::string message = fmt::format(
      "--size {}: {} ({}) would allocate {} of {} (all its buffers), but {} is free ({:.0f}% of it may be used); "
      "the largest --size that fits is {}",
      size_text(size_override), s.id, s.backend, core::FormatBytesBinary(s.bytes), where,
      core::FormatBytesBinary(s.free_bytes), kFreeMemoryShare * 100, largest);
  return core::Status::InvalidArgument(message).WithKeys(
      s.largest_size > 0 ? (s.device ? "bench.error.size_exceeds_gpu_memory" : "bench.error.size_exceeds_ram")
                         : (s.device ? "bench.error.size_exceeds_gpu_memory_none" : "bench.error.size_exceeds_ram_none"),
      {{"size", size_text(size_override)},
       {"id", s.id},
       {"backend", s.backend},
       {"bytes", core::FormatBytesBinary(s.bytes)},
       {"free", core::FormatBytesBinary(s.free_bytes)},
       {"share", fmt::format("{:.0f}", kFreeMemoryShare * 100)},
       {"largest", largest}});
}

}  // namespace gpuprobe::bench
