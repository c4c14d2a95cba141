// Pointer chase: every load's address comes from the previous load, so nothing overlaps and
// the time per step is the memory latency of the level the working set lives in.
#include <algorithm>
#include <chrono>
#include <numeric>
#include <random>

#include <fmt/format.h>

#include "bench/cpu/cpu_context.h"
#include "bench/registry.h"
#include "core/units.h"

namespace gpuprobe::bench {
namespace {

constexpr std::size_t kLine = 64;            // one node per cache line
constexpr std::uint64_t kStepsPerRun = 1 << 20;

class ChaseInstance : public BenchmarkInstance {
 public:
  explicit ChaseInstance(std::uint64_t bytes) : nodes_(std::max<std::uint64_t>(bytes / kLine, 2)), memory_(nodes_ * (kLine / sizeof(std::uint64_t))) {}

  core::Status Init() {
    if (!memory_.ok()) return AllocationFailed("the pointer-chase array", "error.bench.alloc.what.pointer_chase", static_cast<double>(nodes_ * kLine));
    // A single random cycle through every line (Sattolo's algorithm): no line repeats
    // before all were visited, and the order defeats the prefetchers.
    std::vector<std::uint64_t> order(nodes_);
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 rng(42);
    for (std::size_t i = nodes_ - 1; i > 0; --i) {
      std::uniform_int_distribution<std::size_t> pick(0, i - 1);
      std::swap(order[i], order[pick(rng)]);
    }
    const std::size_t stride = kLine / sizeof(std::uint64_t);
    for (std::size_t i = 0; i < nodes_; ++i) memory_[order[i] * stride] = order[(i + 1) % nodes_] * stride;
    return core::Status::Ok();
  }

  core::Result<double> RunOnce() override {
    std::uint64_t p = position_;
    const std::uint64_t* m = memory_.data();
    auto start = std::chrono::steady_clock::now();
    for (std::uint64_t i = 0; i < kStepsPerRun; ++i) p = m[p];
    auto end = std::chrono::steady_clock::now();
    position_ = p;
    steps_ += kStepsPerRun;
    return std::chrono::duration<double>(end - start).count();
  }

  bool CorruptForTest() override {
    memory_[0] = 0;  // a self-loop: the cycle no longer reaches every line
    return true;
  }

  Verification Verify() override {
    // Following the cycle from the start for nodes_ steps must come back to the start, and
    // the position reached must be where a replay of the same number of steps ends.
    const std::size_t stride = kLine / sizeof(std::uint64_t);
    std::uint64_t p = 0;
    std::size_t length = 0;
    do {
      p = memory_[p];
      ++length;
    } while (p != 0 && length <= nodes_);
    std::uint64_t replay = 0;
    for (std::uint64_t i = 0; i < steps_ % nodes_; ++i) replay = memory_[replay];
    Verification v;
    v.verified = length == nodes_ && replay == position_ && position_ % stride == 0;
    v.checksum = static_cast<double>(length);
    v.detail = v.verified ? fmt::format("one cycle through all {} lines", nodes_) : "the chain is broken";
    return v;
  }

 private:
  std::uint64_t nodes_;
  AlignedArray<std::uint64_t> memory_;
  std::uint64_t position_ = 0;
  std::uint64_t steps_ = 0;
};

class LatencyBenchmark : public Benchmark {
 public:
  LatencyBenchmark() {
    info_ = MakeBenchmarkInfo("latency",
                              "chase",
                              "pointer chase",
                              "nanoseconds per dependent load, working sets from 4 KiB to beyond the last-level cache",
                              "a cache miss to DRAM costs about 100 ns: a hundred times an L1 hit",
                              Metric::kLatency);
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext&, const model::CpuSpec& cpu, bool full,
                               std::uint64_t size_override) const override {
    std::uint64_t top = size_override > 0 ? size_override : std::max<std::uint64_t>(8 * model::LastLevelCacheBytes(cpu), 64ull << 20);
    std::vector<BenchCase> cases;
    for (double b = 4096; b <= static_cast<double>(top) * 1.0001; b *= full ? 2.0 : 8.0) {
      cases.push_back({core::FormatBytesBinary(b), static_cast<std::uint64_t>(b), 1, b, ""});
    }
    return cases;
  }
  // One cache line per node of the cycle, and the 8-byte order it is shuffled from while built.
  std::optional<Footprint> FootprintFor(const BackendContext&, const BenchCase& c) const override {
    double nodes = std::max(static_cast<double>(c.size) / kLine, 2.0);
    Footprint f;
    f.host_bytes = nodes * (kLine + 8);
    return f;
  }
  Work WorkFor(const BenchCase&) const override {
    Work w;
    w.items = static_cast<double>(kStepsPerRun);
    w.bytes_read = static_cast<double>(kStepsPerRun) * 8;
    return w;
  }
  Prediction Predict(const PredictionContext& pc, const BenchCase& c) const override {
    Prediction p;
    p.value = model::TypicalLatencySeconds(pc.cpu, c.param);
    p.basis = "typical load-to-use latency of the level it fits: L1 4 cycles, L2 14, L3 45, DRAM 90 ns";
    p.basis_text = {"bench.basis.latency_typical", {}};
    return p;
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext&, const BenchCase& c) const override {
    auto instance = std::make_unique<ChaseInstance>(c.size);
    GPUPROBE_RETURN_IF_ERROR(instance->Init());
    return std::unique_ptr<BenchmarkInstance>(std::move(instance));
  }

 private:
  BenchmarkInfo info_;
};

}  // namespace

void RegisterCpuLatencyBenchmarks(BenchmarkRegistry* registry) { registry->Add(std::make_unique<LatencyBenchmark>()); }

}  // namespace gpuprobe::bench
