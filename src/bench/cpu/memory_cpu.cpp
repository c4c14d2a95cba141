// The CPU memory suite: STREAM's copy, scale, add and triad plus dot, on all threads and on
// one, over arrays at least 4x the last-level cache; and a read-only working-set sweep from
// 4 KiB to 4x the LLC that shows the L1/L2/L3/DRAM plateaus.
// Byte counting follows STREAM: bytes the program reads and writes, without write-allocate
// traffic (non-temporal stores avoid it for real on the all-threads runs).
#include <algorithm>
#include <cmath>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "bench/cpu/cpu_context.h"
#include "bench/cpu/cpu_kernels.h"
#include "bench/registry.h"
#include "core/units.h"

namespace gpuprobe::bench {
namespace {

using kernels::StreamOp;

constexpr double kScalar = 0.4;

std::uint64_t DefaultArrayBytes(const model::CpuSpec& cpu) {
  std::uint64_t llc = model::LastLevelCacheBytes(cpu);
  std::uint64_t bytes = std::max<std::uint64_t>(4 * llc, 32ull << 20);
  // Three arrays must fit comfortably: at most an eighth of RAM each.
  if (cpu.memory_total_bytes > 0) bytes = std::min<std::uint64_t>(bytes, cpu.memory_total_bytes / 8);
  return bytes;
}

// The DRAM peak from the memory's configured speed (channels x MT/s x 8 B). Without it there
// is no prediction: a per-core rule of thumb (Little's law with a guessed latency) was wrong
// by 2-3x on real machines, and a wrong prediction is worse than none.
Prediction DramPrediction(const model::CpuSpec& cpu, int threads) {
  Prediction p;
  if (cpu.dram_bandwidth_bytes_per_s) {
    p.value = *cpu.dram_bandwidth_bytes_per_s;
    p.basis = fmt::format("DRAM peak {} ({}); {} of {} core(s) streaming", core::FormatBytesPerSecond(*cpu.dram_bandwidth_bytes_per_s),
                          cpu.dram_basis, std::min(threads, cpu.physical_cores), cpu.physical_cores);
    if (!cpu.dram_basis_text.empty()) {
      core::MessageArgs args = {{"bandwidth", core::FormatBytesPerSecond(*cpu.dram_bandwidth_bytes_per_s)},
                                {"threads", std::to_string(std::min(threads, cpu.physical_cores))},
                                {"cores", std::to_string(cpu.physical_cores)},
                                {"dram_key", cpu.dram_basis_text.key}};
      args.insert(args.end(), cpu.dram_basis_text.args.begin(), cpu.dram_basis_text.args.end());
      p.basis_text = {"bench.basis.dram_peak", std::move(args)};
    }
  } else {
    p.basis = "no prediction: the DRAM peak is " + cpu.dram_basis;
    if (!cpu.dram_basis_text.empty()) {
      core::MessageArgs args = {{"dram_key", cpu.dram_basis_text.key}};
      args.insert(args.end(), cpu.dram_basis_text.args.begin(), cpu.dram_basis_text.args.end());
      p.basis_text = {"bench.basis.no_dram_peak", std::move(args)};
    }
  }
  return p;
}

class StreamInstance : public BenchmarkInstance {
 public:
  StreamInstance(CpuContext& ctx, std::optional<StreamOp> op, std::size_t n, int threads)
      : ctx_(ctx), op_(op), n_(n), threads_(threads), a_(n), b_(n), c_(n) {}

  core::Status Init() {
    if (!a_.ok() || !b_.ok() || !c_.ok()) return AllocationFailed("three STREAM arrays", "error.bench.alloc.what.stream_arrays", 3.0 * n_ * sizeof(double));
    // The workers that will stream the data touch it first (their NUMA node gets the pages).
    FillRandom(ctx_.pool(), threads_, a_, 1);
    FillRandom(ctx_.pool(), threads_, b_, 2);
    FillRandom(ctx_.pool(), threads_, c_, 3);
    // Non-temporal stores help when the output cannot stay in cache anyway.
    non_temporal_ = static_cast<double>(n_) * sizeof(double) > 2.0 * model::LastLevelCacheBytes(ctx_.spec());
    return core::Status::Ok();
  }

  core::Result<double> RunOnce() override {
    std::vector<double> partial(static_cast<size_t>(threads_), 0.0);
    double seconds = TimeParallel(ctx_.pool(), threads_, [&](int w) {
      std::size_t begin, end;
      Partition(n_, threads_, w, &begin, &end);
      if (op_) {
        isa_ = kernels::Stream(*op_, c_.data(), a_.data(), b_.data(), kScalar, begin, end, non_temporal_);
      } else {
        partial[static_cast<size_t>(w)] = kernels::Dot(a_.data(), b_.data(), begin, end);
      }
    });
    if (!op_) {
      double sum = 0;
      for (double p : partial) sum += p;
      last_dot_ = sum;
    }
    return seconds;
  }

  Verification Verify() override {
    Verification v;
    std::size_t bad = 0;
    double checksum = 0;
    if (op_) {
      for (std::size_t i = 0; i < n_; ++i) {
        double a = a_[i], b = b_[i];
        double expected = *op_ == StreamOp::kCopy    ? a
                          : *op_ == StreamOp::kScale ? kScalar * a
                          : *op_ == StreamOp::kAdd   ? a + b
                                                     : a + kScalar * b;
        // Fused multiply-add rounds once; allow that difference, nothing more.
        if (std::fabs(c_[i] - expected) > 1e-15 * (1 + std::fabs(expected))) ++bad;
        checksum += c_[i];
      }
    } else {
      long double reference = 0;
      for (std::size_t i = 0; i < n_; ++i) reference += static_cast<long double>(a_[i]) * b_[i];
      checksum = last_dot_;
      if (std::fabs(last_dot_ - static_cast<double>(reference)) > 1e-9 * std::fabs(static_cast<double>(reference))) bad = 1;
    }
    v.verified = bad == 0;
    v.checksum = checksum;
    v.detail = v.verified ? fmt::format("all {} elements match", n_) : fmt::format("{} wrong results", bad);
    return v;
  }

  bool CorruptForTest() override {
    if (op_) c_[n_ / 2] += 1.0; else last_dot_ += 1.0;
    return true;
  }

  std::string Note() const override {
    return fmt::format("{} kernel{}", isa_, op_ && non_temporal_ && std::string(isa_) == "AVX2" ? ", non-temporal stores" : "");
  }

 private:
  CpuContext& ctx_;
  std::optional<StreamOp> op_;  // empty: dot
  std::size_t n_;
  int threads_;
  AlignedArray<double> a_, b_, c_;
  bool non_temporal_ = false;
  const char* isa_ = "portable";
  double last_dot_ = 0;
};

class StreamBenchmark : public Benchmark {
 public:
  StreamBenchmark(std::optional<StreamOp> op, const char* name, const char* formula, double reads, double writes,
                  double flops)
      : op_(op), reads_(reads), writes_(writes), flops_(flops) {
    info_ = MakeBenchmarkInfo("memory",
                              name,
                              name,
                              fmt::format("STREAM {}: {} over arrays 4x the last-level cache (bandwidth)", name, formula),
                              "memory bandwidth, not arithmetic, limits simple array loops",
                              Metric::kBandwidth);
  }
  const BenchmarkInfo& Info() const override { return info_; }

  std::vector<BenchCase> Cases(const BackendContext& ctx, const model::CpuSpec& cpu, bool,
                               std::uint64_t size_override) const override {
    std::uint64_t bytes = size_override > 0 ? size_override : DefaultArrayBytes(cpu);
    std::uint64_t n = std::max<std::uint64_t>(bytes / sizeof(double), 1024);
    std::vector<BenchCase> cases;
    cases.push_back({"all threads", n, ctx.Threads(), 0, ""});
    if (ctx.Threads() > 1) cases.push_back({"1 thread", n, 1, 0, ""});
    return cases;
  }

  // Every operation allocates the three STREAM arrays (a, b, c), whichever it reads.
  std::optional<Footprint> FootprintFor(const BackendContext&, const BenchCase& c) const override {
    Footprint f;
    f.host_bytes = 3.0 * static_cast<double>(c.size) * sizeof(double);
    return f;
  }
  Work WorkFor(const BenchCase& c) const override {
    Work w;
    double n = static_cast<double>(c.size);
    w.bytes_read = reads_ * 8 * n;
    w.bytes_written = writes_ * 8 * n;
    w.flops = flops_ * n;
    return w;
  }

  Prediction Predict(const PredictionContext& pc, const BenchCase& c) const override {
    return DramPrediction(pc.cpu, c.threads);
  }

  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& ctx, const BenchCase& c) const override {
    auto instance = std::make_unique<StreamInstance>(static_cast<CpuContext&>(ctx), op_, c.size, c.threads);
    GPUPROBE_RETURN_IF_ERROR(instance->Init());
    return std::unique_ptr<BenchmarkInstance>(std::move(instance));
  }

 private:
  BenchmarkInfo info_;
  std::optional<StreamOp> op_;
  double reads_, writes_, flops_;
};

// --- working-set sweep ---------------------------------------------------------------------

class SweepInstance : public BenchmarkInstance {
 public:
  SweepInstance(std::size_t n) : n_(n), a_(n) {}
  core::Status Init(CpuContext& ctx) {
    if (!a_.ok()) return AllocationFailed("the sweep array", "error.bench.alloc.what.sweep_array", 8.0 * n_);
    FillRandom(ctx.pool(), 1, a_, 7);
    for (std::size_t i = 0; i < n_; ++i) reference_ += a_[i];
    // Small sets repeat so one iteration lasts long enough to time (~64 MiB read).
    repeats_ = std::max<std::size_t>(1, (64u << 20) / (n_ * sizeof(double)));
    return core::Status::Ok();
  }
  std::size_t repeats() const { return repeats_; }
  core::Result<double> RunOnce() override {
    auto start = std::chrono::steady_clock::now();
    double total = 0;
    for (std::size_t r = 0; r < repeats_; ++r) total += kernels::Sum(a_.data(), 0, n_);
    auto end = std::chrono::steady_clock::now();
    last_ = total / static_cast<double>(repeats_);
    return std::chrono::duration<double>(end - start).count();
  }
  bool CorruptForTest() override {
    last_ += 1.0;
    return true;
  }
  Verification Verify() override {
    Verification v;
    v.checksum = last_;
    v.verified = std::fabs(last_ - reference_) <= 1e-9 * std::fabs(reference_) + 1e-12;
    v.detail = v.verified ? "sum matches" : fmt::format("sum {} differs from {}", last_, reference_);
    return v;
  }

 private:
  std::size_t n_;
  AlignedArray<double> a_;
  std::size_t repeats_ = 1;
  double reference_ = 0, last_ = 0;
};

class SweepBenchmark : public Benchmark {
 public:
  SweepBenchmark() {
    info_ = MakeBenchmarkInfo("memory",
                              "sweep",
                              "working-set sweep",
                              "read bandwidth of one thread from 4 KiB to 4x the last-level cache: L1, L2, L3, DRAM",
                              "data that fits a cache is read many times faster than data in DRAM",
                              Metric::kBandwidth);
  }
  const BenchmarkInfo& Info() const override { return info_; }

  std::vector<BenchCase> Cases(const BackendContext&, const model::CpuSpec& cpu, bool full,
                               std::uint64_t size_override) const override {
    std::uint64_t top = size_override > 0 ? size_override : std::max<std::uint64_t>(4 * model::LastLevelCacheBytes(cpu), 16ull << 20);
    std::vector<BenchCase> cases;
    double step = full ? 2.0 : 4.0;
    for (double bytes = 4096; bytes <= static_cast<double>(top) * 1.0001; bytes *= step) {
      std::uint64_t b = static_cast<std::uint64_t>(bytes);
      cases.push_back({core::FormatBytesBinary(static_cast<double>(b)), b / sizeof(double), 1, static_cast<double>(b), ""});
    }
    if (cases.empty() || cases.back().param < static_cast<double>(top) * 0.99) {
      cases.push_back({core::FormatBytesBinary(static_cast<double>(top)), top / sizeof(double), 1, static_cast<double>(top), ""});
    }
    return cases;
  }

  // One array of the case's size, read many times per iteration (the work counts the repeats).
  std::optional<Footprint> FootprintFor(const BackendContext&, const BenchCase& c) const override {
    Footprint f;
    f.host_bytes = static_cast<double>(c.size) * sizeof(double);
    return f;
  }
  Work WorkFor(const BenchCase& c) const override {
    Work w;
    std::size_t n = c.size;
    std::size_t repeats = std::max<std::size_t>(1, (64u << 20) / (n * sizeof(double)));
    w.bytes_read = static_cast<double>(n) * sizeof(double) * static_cast<double>(repeats);
    w.flops = static_cast<double>(n) * static_cast<double>(repeats);
    return w;
  }

  Prediction Predict(const PredictionContext& pc, const BenchCase& c) const override {
    const model::CpuSpec& cpu = pc.cpu;
    double clock = model::PeakClockHz(cpu);
    double bytes = c.param;
    Prediction p;
    double vector_bytes = model::FmaPipes(cpu).width_bits / 8.0;
    if (clock > 0 && cpu.l1d_bytes > 0 && bytes <= cpu.l1d_bytes) {
      p.value = 2 * vector_bytes * clock;
      p.basis = fmt::format("fits L1 ({}): two {}-byte loads per cycle", core::FormatBytesBinary(static_cast<double>(cpu.l1d_bytes)), vector_bytes);
      p.basis_text = {"bench.basis.fits_l1", {{"size", core::FormatBytesBinary(static_cast<double>(cpu.l1d_bytes))},
                                              {"bytes", fmt::format("{}", vector_bytes)}}};
    } else if (clock > 0 && cpu.l2_bytes > 0 && bytes <= cpu.l2_bytes) {
      p.value = 32 * clock;
      p.basis = fmt::format("fits L2 ({}): about 32 bytes per cycle (typical L2 fill rate)", core::FormatBytesBinary(static_cast<double>(cpu.l2_bytes)));
      p.basis_text = {"bench.basis.fits_l2", {{"size", core::FormatBytesBinary(static_cast<double>(cpu.l2_bytes))}}};
    } else if (clock > 0 && cpu.l3_bytes > 0 && bytes <= cpu.l3_bytes) {
      p.value = 16 * clock;
      p.basis = fmt::format("fits L3 ({}): about 16 bytes per cycle per core (typical)", core::FormatBytesBinary(static_cast<double>(cpu.l3_bytes)));
      p.basis_text = {"bench.basis.fits_l3", {{"size", core::FormatBytesBinary(static_cast<double>(cpu.l3_bytes))}}};
    } else {
      return DramPrediction(cpu, 1);
    }
    return p;
  }

  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& ctx, const BenchCase& c) const override {
    auto instance = std::make_unique<SweepInstance>(c.size);
    GPUPROBE_RETURN_IF_ERROR(instance->Init(static_cast<CpuContext&>(ctx)));
    return std::unique_ptr<BenchmarkInstance>(std::move(instance));
  }

 private:
  BenchmarkInfo info_;
};

}  // namespace

void RegisterCpuMemoryBenchmarks(BenchmarkRegistry* registry) {
  registry->Add(std::make_unique<StreamBenchmark>(StreamOp::kCopy, "copy", "c = a", 1, 1, 0));
  registry->Add(std::make_unique<StreamBenchmark>(StreamOp::kScale, "scale", "c = s*a", 1, 1, 1));
  registry->Add(std::make_unique<StreamBenchmark>(StreamOp::kAdd, "add", "c = a + b", 2, 1, 1));
  registry->Add(std::make_unique<StreamBenchmark>(StreamOp::kTriad, "triad", "c = a + s*b", 2, 1, 2));
  registry->Add(std::make_unique<StreamBenchmark>(std::nullopt, "dot", "sum of a*b", 2, 0, 2));
  registry->Add(std::make_unique<SweepBenchmark>());
}

}  // namespace gpuprobe::bench
