// The CPU side of the crossover suite: one synchronous call of a vector triad (all worker
// threads, the fork-join included) and of an fp32 matmul (OpenBLAS) at growing sizes. The GPU
// side (bench/cuda/crossover_cuda.cu) times the same calls resident and with copies; the
// size where the GPU's time drops below these is the crossover.
#include <chrono>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "bench/cpu/cpu_context.h"
#include "bench/cpu/gemm_kernels.h"
#include "bench/gpu_kernel_math.h"
#include "bench/registry.h"
#include "core/units.h"

namespace gpuprobe::bench {
namespace {

double Now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

class VectorCallInstance : public BenchmarkInstance {
 public:
  VectorCallInstance(CpuContext& ctx, std::uint64_t n) : ctx_(ctx), n_(n), a_(n), b_(n), c_(n) {
    for (std::uint64_t i = 0; i < n; ++i) {
      a_[i] = gpu::FillValue(i, gpu::kSeedA);
      b_[i] = gpu::FillValue(i, gpu::kSeedB);
    }
  }
  core::Result<double> RunOnce() override {
    int workers = ctx_.Threads();
    double start = Now();
    ctx_.pool().Run(workers, [&](int w) {
      std::size_t begin = 0, end = 0;
      Partition(n_, workers, w, &begin, &end);
      for (std::size_t i = begin; i < end; ++i) c_[i] = a_[i] + gpu::kStreamScalar * b_[i];
    });
    return Now() - start;
  }
  Verification Verify() override {
    std::uint64_t bad = 0;
    for (std::uint64_t i = 0; i < n_; ++i) bad += c_[i] != gpu::StreamElement(gpu::StreamOp::kTriad, i);
    Verification v;
    v.checksum = static_cast<double>(n_);
    v.verified = bad == 0;
    v.detail = v.verified ? "every element matched" : fmt::format("{} elements wrong", bad);
    return v;
  }
  bool CorruptForTest() override {
    c_[0] += 1;
    return true;
  }

 private:
  CpuContext& ctx_;
  std::uint64_t n_;
  std::vector<float> a_, b_, c_;
};

class MatmulCallInstance : public BenchmarkInstance {
 public:
  MatmulCallInstance(CpuContext& ctx, int n) : ctx_(ctx), n_(n), a_(static_cast<size_t>(n) * n), b_(a_.size()), c_(a_.size()) {
    for (std::uint64_t i = 0; i < a_.size(); ++i) {
      a_[i] = gpu::MatmulValue(i, gpu::kSeedA);
      b_[i] = gpu::MatmulValue(i, gpu::kSeedB);
    }
  }
  core::Result<double> RunOnce() override {
    double start = Now();
    gemm::OpenBlasSgemm(a_.data(), b_.data(), c_.data(), n_, n_, n_, ctx_.Threads());
    return Now() - start;
  }
  Verification Verify() override {
    double total = 0;
    for (float v : c_) total += v;
    Verification v;
    v.checksum = gpu::MatmulTotal(static_cast<std::uint64_t>(n_));
    v.verified = total == v.checksum && static_cast<double>(c_[0]) == gpu::MatmulElement(static_cast<std::uint64_t>(n_), 0, 0);
    v.detail = v.verified ? "the sum of all elements and the first element are exact" : "the product differs from the exact one";
    return v;
  }
  bool CorruptForTest() override {
    c_[0] += 1;
    return true;
  }

 private:
  CpuContext& ctx_;
  int n_;
  std::vector<float> a_, b_, c_;
};

class CrossoverCpuBenchmark : public Benchmark {
 public:
  explicit CrossoverCpuBenchmark(bool matmul) : matmul_(matmul) {
    info_ = MakeBenchmarkInfo("crossover", matmul ? "matmul" : "vector", matmul ? "Matmul crossover" : "Vector crossover",
                              matmul ? "one fp32 matmul call by size (s per call): CPU (OpenBLAS), GPU resident and with copies"
                                     : "one vector triad call by size (s per call): CPU (all threads), GPU resident and with copies",
                              "small jobs stay on the CPU: the GPU wins only once the work pays for the launch and the copies",
                              Metric::kLatency);
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext& ctx, const model::CpuSpec&, bool full, std::uint64_t) const override {
    std::vector<BenchCase> cases;
    for (std::uint64_t size : gpu::CrossoverSizes(matmul_, full)) {
      cases.push_back(BenchCase(gpu::CrossoverLabel(matmul_, size, ""), size, ctx.Threads(), 0, "cpu"));
    }
    return cases;
  }
  Work WorkFor(const BenchCase&) const override {
    Work w;
    w.items = 1;
    return w;
  }
  Prediction Predict(const PredictionContext&, const BenchCase&) const override {
    Prediction p;
    p.basis = "the curve is the measurement: 'gpuprobe' and the report draw it beside the model";
    p.basis_text = {"bench.basis.crossover_curve", {}};
    return p;
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& context, const BenchCase& c) const override {
    auto& ctx = static_cast<CpuContext&>(context);
    if (matmul_) return std::unique_ptr<BenchmarkInstance>(new MatmulCallInstance(ctx, static_cast<int>(c.size)));
    return std::unique_ptr<BenchmarkInstance>(new VectorCallInstance(ctx, c.size));
  }

 private:
  bool matmul_;
  BenchmarkInfo info_;
};

}  // namespace

void RegisterCpuCrossoverBenchmarks(BenchmarkRegistry* registry) {
  registry->Add(std::make_unique<CrossoverCpuBenchmark>(false));
  registry->Add(std::make_unique<CrossoverCpuBenchmark>(true));
}

}  // namespace gpuprobe::bench
