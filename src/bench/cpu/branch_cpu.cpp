// The same work behind a data-dependent branch, once with data the branch predictor learns
// (sorted) and once with data it cannot (random): the CPU side of GPU divergence.
#include <algorithm>
#include <chrono>
#include <random>

#include <fmt/format.h>

#include "bench/cpu/cpu_context.h"
#include "bench/gpu_kernel_math.h"
#include "bench/registry.h"

namespace gpuprobe::bench {
namespace {

// A misprediction flushes the pipeline: about 15-20 cycles on current cores.
constexpr double kMispredictCycles = 16;
constexpr std::size_t kElements = 1 << 24;

// Both sides do different work and store it, and the empty asm keeps the compiler from
// turning the branch into a conditional move (which would remove what is measured).
std::uint64_t Classify(const std::uint8_t* data, std::size_t n, std::uint64_t* below, std::uint64_t* above) {
  std::uint64_t low = 0, high = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint8_t x = data[i];
    if (x < 128) {
      low += x * 3u + 1;
      __asm__ volatile("" ::: "memory");
    } else {
      high ^= x * 7u + i;
    }
  }
  *below = low;
  *above = high;
  return low + high;
}

class BranchInstance : public BenchmarkInstance {
 public:
  explicit BranchInstance(bool predictable) : data_(kElements) {
    std::mt19937 rng(9);
    for (std::size_t i = 0; i < kElements; ++i) data_[i] = static_cast<std::uint8_t>(rng() & 0xFF);
    if (predictable) std::sort(data_.data(), data_.data() + kElements);
  }
  core::Result<double> RunOnce() override {
    auto start = std::chrono::steady_clock::now();
    result_ = Classify(data_.data(), kElements, &below_, &above_);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  bool CorruptForTest() override {
    below_ += 1;
    return true;
  }
  Verification Verify() override {
    std::uint64_t low = 0, high = 0;
    for (std::size_t i = 0; i < kElements; ++i) {
      std::uint8_t x = data_[i];
      if (x < 128) low += x * 3u + 1; else high ^= x * 7u + i;
    }
    Verification v;
    v.verified = low == below_ && high == above_;
    v.checksum = static_cast<double>(result_);
    v.detail = v.verified ? "both sides' results match a plain replay" : "results differ";
    return v;
  }

 private:
  AlignedArray<std::uint8_t> data_;
  std::uint64_t result_ = 0, below_ = 0, above_ = 0;
};

class BranchBenchmark : public Benchmark {
 public:
  BranchBenchmark(bool predictable) : predictable_(predictable) {
    info_ = MakeBenchmarkInfo("branch",
                              predictable ? "predictable" : "unpredictable",
                              predictable ? "predictable" : "unpredictable",
                              predictable ? "data-dependent branch over sorted bytes: the predictor learns it (elements/s)"
                                          : "the same branch over random bytes: half the guesses are wrong (elements/s)",
                              "unpredictable branches stall a CPU core; on a GPU they serialise a warp",
                              Metric::kOps);
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext&, const model::CpuSpec&, bool, std::uint64_t) const override {
    return {{"1 thread", kElements, 1, 0, ""}};
  }
  Work WorkFor(const BenchCase& c) const override {
    Work w;
    w.ops = static_cast<double>(c.size);
    w.bytes_read = static_cast<double>(c.size);
    return w;
  }
  Prediction Predict(const PredictionContext& pc, const BenchCase&) const override {
    Prediction p;
    double clock = model::PeakClockHz(pc.cpu);
    if (predictable_) {
      if (clock > 0) {
        p.value = clock / 2;
        p.basis = "about two cycles per element when every branch is predicted";
        p.basis_text = {"bench.basis.branch_predicted", {}};
      }
      return p;
    }
    const EarlierResult* easy = pc.Find("branch.predictable", "cpu");
    if (easy != nullptr && clock > 0) {
      double seconds = 1.0 / easy->value + 0.5 * kMispredictCycles / clock;
      p.value = 1.0 / seconds;
      p.basis = fmt::format("predictable rate + half the elements mispredicted x {:.0f} cycles", kMispredictCycles);
      p.basis_text = {"bench.basis.branch_mispredicted", {{"cycles", fmt::format("{:.0f}", kMispredictCycles)}}};
    }
    return p;
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext&, const BenchCase&) const override {
    return std::unique_ptr<BenchmarkInstance>(new BranchInstance(predictable_));
  }

 private:
  BenchmarkInfo info_;
  bool predictable_;
};

// The CPU twin of the GPU's divergence.serial_thread: the same Collatz function, on the same
// numbers, on one core, so the two rows show what one thread is worth on each.
constexpr std::uint64_t kSerialNumbers = 20000;

class SerialInstance : public BenchmarkInstance {
 public:
  core::Result<double> RunOnce() override {
    auto start = std::chrono::steady_clock::now();
    std::uint64_t total = 0;
    for (std::uint64_t x = gpu::kCollatzFirst; x < gpu::kCollatzFirst + kSerialNumbers; ++x) total += gpu::CollatzSteps(x);
    auto end = std::chrono::steady_clock::now();
    total_ = total;
    return std::chrono::duration<double>(end - start).count();
  }
  Verification Verify() override {
    Verification v;
    std::uint64_t expected = gpu::CollatzTotal(kSerialNumbers);
    v.checksum = static_cast<double>(expected);
    v.verified = total_ == expected;
    v.detail = v.verified ? fmt::format("{} Collatz steps", expected) : "the step count differs from a plain replay";
    return v;
  }
  bool CorruptForTest() override {
    total_ += 1;
    return true;
  }

 private:
  std::uint64_t total_ = 0;
};

class SerialBenchmark : public Benchmark {
 public:
  SerialBenchmark() {
    info_ = MakeBenchmarkInfo("divergence", "serial_thread", "One thread, serial branchy code",
                              "Collatz step counts on one CPU core (numbers/s)",
                              "one GPU thread is far slower than one CPU core: the GPU is fast only in parallel",
                              Metric::kOps);
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext&, const model::CpuSpec&, bool, std::uint64_t) const override {
    return {BenchCase("1 thread", kSerialNumbers, 1, 0, "")};
  }
  Work WorkFor(const BenchCase& c) const override {
    Work w;
    w.ops = static_cast<double>(c.size);
    return w;
  }
  Prediction Predict(const PredictionContext&, const BenchCase&) const override {
    Prediction p;
    p.basis = "no spec figure: the GPU row runs the same function on the same numbers";
    p.basis_text = {"bench.basis.serial_no_spec", {}};
    return p;
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext&, const BenchCase&) const override {
    return std::unique_ptr<BenchmarkInstance>(new SerialInstance());
  }

 private:
  BenchmarkInfo info_;
};

}  // namespace

void RegisterCpuBranchBenchmarks(BenchmarkRegistry* registry) {
  registry->Add(std::make_unique<BranchBenchmark>(true));
  registry->Add(std::make_unique<BranchBenchmark>(false));
  registry->Add(std::make_unique<SerialBenchmark>());
}

}  // namespace gpuprobe::bench
