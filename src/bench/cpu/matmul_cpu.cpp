// The CPU rungs of the matmul ladder: naive triple loop, our cache-blocked kernel, OpenBLAS
// SGEMM and DGEMM, at 512 to 2048. Every rung is checked against the same reference
// (entries recomputed in double precision), so the rungs are checked against each other.
#include <chrono>
#include <cmath>
#include <random>

#include <fmt/format.h>

#include "bench/cpu/cpu_context.h"
#include "bench/cpu/gemm_kernels.h"
#include "bench/registry.h"

namespace gpuprobe::bench {
namespace {

enum class Rung { kNaive, kBlocked, kOpenBlasS, kOpenBlasD };
constexpr int kChecks = 256;  // sampled entries recomputed in double

template <typename T>
class MatmulInstance : public BenchmarkInstance {
 public:
  MatmulInstance(CpuContext& ctx, Rung rung, int n, int threads)
      : ctx_(ctx), rung_(rung), n_(n), threads_(threads), a_(Count()), b_(Count()), c_(Count()) {}

  core::Status Init() {
    if (!a_.ok() || !b_.ok() || !c_.ok()) return AllocationFailed("three matrices", "error.bench.alloc.what.matrices", 3.0 * Count() * sizeof(T));
    FillRandom(ctx_.pool(), threads_, a_, 21, 2.0, -1.0);
    FillRandom(ctx_.pool(), threads_, b_, 22, 2.0, -1.0);
    return core::Status::Ok();
  }

  core::Result<double> RunOnce() override {
    auto start = std::chrono::steady_clock::now();
    if constexpr (std::is_same_v<T, float>) {
      if (rung_ == Rung::kNaive) {
        gemm::NaiveSgemm(a_.data(), b_.data(), c_.data(), n_, n_, n_);
      } else if (rung_ == Rung::kBlocked) {
        isa_ = gemm::BlockedSgemm(ctx_.pool(), threads_, a_.data(), b_.data(), c_.data(), n_, n_, n_);
      } else {
        gemm::OpenBlasSgemm(a_.data(), b_.data(), c_.data(), n_, n_, n_, threads_);
      }
    } else {
      gemm::OpenBlasDgemm(a_.data(), b_.data(), c_.data(), n_, n_, n_, threads_);
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  Verification Verify() override {
    std::mt19937 rng(77);
    std::uniform_int_distribution<int> pick(0, n_ - 1);
    int bad = 0;
    double worst = 0;
    // fp32 sums of n products of [-1, 1) values: error grows like n x 2^-24 at worst.
    double tolerance = std::is_same_v<T, float> ? 1e-6 * n_ + 1e-5 : 1e-12 * n_;
    for (int t = 0; t < kChecks; ++t) {
      int i = pick(rng), j = pick(rng);
      double ref = 0;
      for (int p = 0; p < n_; ++p) ref += static_cast<double>(a_[Idx(i, p)]) * static_cast<double>(b_[Idx(p, j)]);
      double err = std::fabs(static_cast<double>(c_[Idx(i, j)]) - ref);
      worst = std::max(worst, err);
      if (err > tolerance) ++bad;
    }
    double checksum = 0;
    for (std::size_t x = 0; x < Count(); ++x) checksum += static_cast<double>(c_[x]);
    Verification v;
    v.verified = bad == 0;
    v.checksum = checksum;
    v.detail = v.verified ? fmt::format("{} sampled entries match a double-precision reference (max error {:.2g})", kChecks, worst)
                          : fmt::format("{} of {} sampled entries off by more than {:.2g}", bad, kChecks, tolerance);
    return v;
  }

  bool CorruptForTest() override {
    for (std::size_t x = 0; x < Count(); ++x) c_[x] += static_cast<T>(1);
    return true;
  }

  std::string Note() const override {
    double working_set = 3.0 * Count() * sizeof(T);
    std::string where = working_set <= static_cast<double>(model::LastLevelCacheBytes(ctx_.spec())) ? "fits" : "exceeds";
    std::string isa = rung_ == Rung::kBlocked ? std::string(isa_) + " kernel, " : "";
    return fmt::format("{}{} thread(s); working set {:.0f} MiB {} the last-level cache", isa, threads_,
                       working_set / (1 << 20), where);
  }

 private:
  std::size_t Count() const { return static_cast<std::size_t>(n_) * n_; }
  std::size_t Idx(int i, int j) const { return static_cast<std::size_t>(i) * n_ + j; }
  CpuContext& ctx_;
  Rung rung_;
  int n_;
  int threads_;
  AlignedArray<T> a_, b_, c_;
  const char* isa_ = "";
};

class MatmulBenchmark : public Benchmark {
 public:
  MatmulBenchmark(Rung rung, const char* name, const char* description) : rung_(rung) {
    info_ = MakeBenchmarkInfo("matmul",
                              name,
                              name,
                              description,
                              "the same arithmetic runs 10-100x faster when it reuses data from cache and registers",
                              Metric::kFlops);
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext& ctx, const model::CpuSpec&, bool full,
                               std::uint64_t size_override) const override {
    std::vector<int> sizes;
    if (size_override > 0) {
      sizes = {static_cast<int>(size_override)};
    } else if (rung_ == Rung::kNaive) {
      sizes = full ? std::vector<int>{512, 1024} : std::vector<int>{512};  // 2048 takes minutes
    } else if (rung_ == Rung::kOpenBlasD) {
      sizes = full ? std::vector<int>{512, 1024, 2048} : std::vector<int>{1024};
    } else {
      sizes = full ? std::vector<int>{512, 1024, 2048} : std::vector<int>{1024, 2048};
    }
    int threads = rung_ == Rung::kNaive ? 1 : ctx.Threads();
    std::vector<BenchCase> cases;
    for (int n : sizes) cases.push_back({fmt::format("n={}", n), static_cast<std::uint64_t>(n), threads, 0, ""});
    return cases;
  }
  Availability Check(const BackendContext&, const BenchCase& c) const override {
    if (c.size < 16 || c.size > 16384) {
      return Availability::NoKeyed("matrix order must be between 16 and 16384", "bench.skip.matrix_order");
    }
    return Availability::Yes();
  }
  // A, B and C, n x n each.
  std::optional<Footprint> FootprintFor(const BackendContext&, const BenchCase& c) const override {
    double n = static_cast<double>(c.size);
    Footprint f;
    f.host_bytes = 3 * n * n * (rung_ == Rung::kOpenBlasD ? 8 : 4);
    return f;
  }
  Work WorkFor(const BenchCase& c) const override {
    Work w;
    double n = static_cast<double>(c.size);
    double element = rung_ == Rung::kOpenBlasD ? 8 : 4;
    w.flops = 2 * n * n * n;
    w.bytes_read = 2 * n * n * element;
    w.bytes_written = n * n * element;
    return w;
  }
  Prediction Predict(const PredictionContext& pc, const BenchCase& c) const override {
    Prediction p;
    std::string dtype = rung_ == Rung::kOpenBlasD ? "fp64" : "fp32";
    int cores = std::min(c.threads, pc.cpu.physical_cores);
    p.value = model::CpuPeakFlops(pc.cpu, dtype, cores);
    p.basis = fmt::format("{} peak of {} core(s): the roofline's compute bound (matmul does n/6 FLOP per byte)", dtype, cores);
    p.basis_text = {"bench.basis.matmul_peak", {{"dtype", dtype}, {"cores", std::to_string(cores)}}};
    return p;
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& ctx, const BenchCase& c) const override {
    auto& cpu = static_cast<CpuContext&>(ctx);
    int n = static_cast<int>(c.size);
    if (rung_ == Rung::kOpenBlasD) {
      auto instance = std::make_unique<MatmulInstance<double>>(cpu, rung_, n, c.threads);
      GPUPROBE_RETURN_IF_ERROR(instance->Init());
      return std::unique_ptr<BenchmarkInstance>(std::move(instance));
    }
    auto instance = std::make_unique<MatmulInstance<float>>(cpu, rung_, n, c.threads);
    GPUPROBE_RETURN_IF_ERROR(instance->Init());
    return std::unique_ptr<BenchmarkInstance>(std::move(instance));
  }

 private:
  BenchmarkInfo info_;
  Rung rung_;
};

}  // namespace

void RegisterCpuMatmulBenchmarks(BenchmarkRegistry* registry) {
  registry->Add(std::make_unique<MatmulBenchmark>(Rung::kNaive, "naive", "textbook triple loop, one thread, fp32 (FLOP/s)"));
  registry->Add(std::make_unique<MatmulBenchmark>(Rung::kBlocked, "blocked",
                                                  "our cache-blocked kernel: packed panels, 6x16 register tile, all threads, fp32"));
  registry->Add(std::make_unique<MatmulBenchmark>(Rung::kOpenBlasS, "openblas_sgemm", "OpenBLAS SGEMM, all threads, fp32"));
  registry->Add(std::make_unique<MatmulBenchmark>(Rung::kOpenBlasD, "openblas_dgemm", "OpenBLAS DGEMM, all threads, fp64"));
}

}  // namespace gpuprobe::bench
