// Sequential, strided and random reads of the same bytes: the memory system moves whole
// 64-byte lines, so reading one float per line wastes fifteen sixteenths of the bandwidth.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>

#include <fmt/format.h>

#include "bench/cpu/cpu_context.h"
#include "bench/registry.h"
#include "core/units.h"

namespace gpuprobe::bench {
namespace {

class AccessInstance : public BenchmarkInstance {
 public:
  AccessInstance(CpuContext& ctx, std::size_t n, int stride, bool random, int threads)
      : ctx_(ctx), n_(n), stride_(stride), random_(random), threads_(threads), data_(n) {}

  core::Status Init() {
    if (!data_.ok()) return AllocationFailed("the access array", "error.bench.alloc.what.access_array", 4.0 * n_);
    FillRandom(ctx_.pool(), threads_, data_, 11);
    if (random_) {
      index_ = AlignedArray<std::uint32_t>(n_);
      if (!index_.ok()) return AllocationFailed("the random index", "error.bench.alloc.what.random_index", 4.0 * n_);
      std::vector<std::uint32_t> order(n_);
      std::iota(order.begin(), order.end(), 0u);
      std::shuffle(order.begin(), order.end(), std::mt19937(5));
      std::copy(order.begin(), order.end(), index_.data());
    }
    for (std::size_t i = 0; i < n_; ++i) reference_ += data_[i];
    return core::Status::Ok();
  }

  core::Result<double> RunOnce() override {
    std::vector<double> partial(static_cast<size_t>(threads_), 0.0);
    double seconds = TimeParallel(ctx_.pool(), threads_, [&](int w) {
      // Eight independent sums: one running sum would make the loop wait on the adder's
      // latency instead of on memory.
      double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      const float* d = data_.data();
      std::size_t begin, end;
      Partition(n_, threads_, w, &begin, &end);
      if (random_) {
        const std::uint32_t* idx = index_.data();
        std::size_t i = begin;
        for (; i + 8 <= end; i += 8) {
          for (int k = 0; k < 8; ++k) acc[k] += d[idx[i + static_cast<std::size_t>(k)]];
        }
        for (; i < end; ++i) acc[0] += d[idx[i]];
      } else {
        // Stride s: pass o reads elements o, o+s, o+2s...; s passes cover every element once.
        std::size_t s = static_cast<std::size_t>(stride_);
        for (std::size_t o = 0; o < s; ++o) {
          std::size_t i = begin + o;
          for (; i + 7 * s < end; i += 8 * s) {
            for (std::size_t k = 0; k < 8; ++k) acc[k] += d[i + k * s];
          }
          for (; i < end; i += s) acc[0] += d[i];
        }
      }
      double sum = 0;
      for (double a : acc) sum += a;
      partial[static_cast<size_t>(w)] = sum;
    });
    last_ = std::accumulate(partial.begin(), partial.end(), 0.0);
    return seconds;
  }

  bool CorruptForTest() override {
    last_ += 1.0;
    return true;
  }

  Verification Verify() override {
    Verification v;
    v.checksum = last_;
    // Summation order differs between patterns; float elements summed in double agree closely.
    v.verified = std::fabs(last_ - reference_) <= 1e-9 * std::fabs(reference_);
    v.detail = v.verified ? fmt::format("every one of {} elements read once", n_) : "sum differs: elements missed or read twice";
    return v;
  }

 private:
  CpuContext& ctx_;
  std::size_t n_;
  int stride_;
  bool random_;
  int threads_;
  AlignedArray<float> data_;
  AlignedArray<std::uint32_t> index_;
  double reference_ = 0, last_ = 0;
};

class AccessBenchmark : public Benchmark {
 public:
  AccessBenchmark(const char* name, int stride, bool random, const char* description)
      : stride_(stride), random_(random) {
    info_ = MakeBenchmarkInfo("access",
                              name,
                              name,
                              description,
                              "memory moves whole cache lines: sparse or random access wastes bandwidth",
                              Metric::kBandwidth);
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext& ctx, const model::CpuSpec& cpu, bool full,
                               std::uint64_t size_override) const override {
    std::uint64_t bytes = size_override > 0 ? size_override : std::max<std::uint64_t>(4 * model::LastLevelCacheBytes(cpu), 32ull << 20);
    std::uint64_t n = bytes / sizeof(float);
    std::vector<BenchCase> cases;
    if (stride_ == 0 && !random_) {
      std::vector<int> strides = full ? std::vector<int>{2, 4, 8, 16, 32} : std::vector<int>{4, 16};
      for (int s : strides) cases.push_back({fmt::format("stride {}", s), n, ctx.Threads(), static_cast<double>(s), ""});
    } else {
      cases.push_back({random_ ? "random" : "sequential", n, ctx.Threads(), static_cast<double>(stride_), ""});
    }
    return cases;
  }
  // The float array; the random walk adds its uint32 index and, while it is built, the order.
  std::optional<Footprint> FootprintFor(const BackendContext&, const BenchCase& c) const override {
    Footprint f;
    f.host_bytes = static_cast<double>(c.size) * 4 * (random_ ? 3 : 1);
    return f;
  }
  Work WorkFor(const BenchCase& c) const override {
    Work w;
    w.bytes_read = static_cast<double>(c.size) * sizeof(float);  // useful bytes
    w.flops = static_cast<double>(c.size);
    return w;
  }
  Prediction Predict(const PredictionContext& pc, const BenchCase& c) const override {
    Prediction p;
    const EarlierResult* seq = pc.Find("access.sequential", "cpu");
    if (info_.id == "access.sequential" || seq == nullptr) {
      double little = 14.2e9 * std::min(c.threads, pc.cpu.physical_cores);
      p.value = pc.cpu.dram_bandwidth_bytes_per_s ? std::min(*pc.cpu.dram_bandwidth_bytes_per_s, little) : little;
      p.basis = "whole lines used: DRAM bandwidth (Little's law per core where the DRAM peak is unknown)";
      p.basis_text = {"bench.basis.access_whole_lines", {}};
      return p;
    }
    // Each 64-byte line brings 16 floats; stride s uses 16/s of them (at least one).
    double useful = random_ ? 1.0 / 16 : std::max(1.0 / 16, 1.0 / c.param);
    p.value = seq->value * useful;
    p.basis = fmt::format("sequential {} x {:.3f} of each 64-byte line used", core::FormatBytesPerSecond(seq->value), useful);
    p.basis_text = {"bench.basis.access_useful",
                    {{"bandwidth", core::FormatBytesPerSecond(seq->value)}, {"fraction", fmt::format("{:.3f}", useful)}}};
    return p;
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& ctx, const BenchCase& c) const override {
    int stride = random_ ? 1 : std::max(1, static_cast<int>(c.param));
    auto instance = std::make_unique<AccessInstance>(static_cast<CpuContext&>(ctx), c.size, stride, random_, c.threads);
    GPUPROBE_RETURN_IF_ERROR(instance->Init());
    return std::unique_ptr<BenchmarkInstance>(std::move(instance));
  }

 private:
  BenchmarkInfo info_;
  int stride_;
  bool random_;
};

}  // namespace

void RegisterCpuAccessBenchmarks(BenchmarkRegistry* registry) {
  registry->Add(std::make_unique<AccessBenchmark>("sequential", 1, false, "read every float in order (useful bytes/s)"));
  registry->Add(std::make_unique<AccessBenchmark>("strided", 0, false, "read every float with a stride, pass by pass (useful bytes/s)"));
  registry->Add(std::make_unique<AccessBenchmark>("random", 1, true, "read every float once in random order (useful bytes/s)"));
}

}  // namespace gpuprobe::bench
