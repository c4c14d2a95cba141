// The CPU compute suite: FMA peaks for fp64 and fp32 (bf16 where AVX512-BF16 exists) and
// int32 multiply-add, every core running independent chains (enough to hide FMA latency).
// The ISA is chosen at run time by cpuid; the result says which ran. Each chain follows a
// recurrence the host replays in scalar code, so a wrong result is caught exactly.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "bench/cpu/cpu_context.h"
#include "bench/cpu/cpu_facts.h"
#include "bench/registry.h"
#include "core/units.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define GPUPROBE_X86 1
#endif

namespace gpuprobe::bench {
namespace {

enum class Kind { kFp64, kFp32, kBf16, kInt32 };
constexpr int kChains = 12;  // independent accumulators per thread

struct KernelOutput {
  std::vector<double> chains;  // final value of each chain (first lane)
  const char* isa = "portable";
  int lanes = 1;               // elements per chain instruction
  double flops_per_step = 0;   // per chain per step (FMA = 2 per lane)
};

// Chain recurrences: x = x * m + c. Values stay bounded (|m| < 1 for floats).
constexpr double kM = 0.999999, kC = 1e-6;
constexpr std::uint32_t kIm = 1664525u, kIc = 1013904223u;  // Numerical Recipes LCG

double ChainStart(int k) { return 0.5 + 0.01 * k; }

#ifdef GPUPROBE_X86
// Twelve named accumulators: with an array, GCC writes every chain back to the stack on each
// step and the loop becomes bound by stores instead of FMAs.
#define GPUPROBE_CHAINS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

// Each hot loop is its own function that calls nothing: values live across a call must sit in
// memory (every vector register is caller-saved), and GCC then keeps them there in the loop too.
__attribute__((target("avx2,fma"), noinline)) void Fp64Loop(long steps, double* result) {
#define GPUPROBE_INIT(k) __m256d r##k = _mm256_set1_pd(ChainStart(k));
  GPUPROBE_CHAINS(GPUPROBE_INIT)
#undef GPUPROBE_INIT
  const __m256d m = _mm256_set1_pd(kM), c = _mm256_set1_pd(kC);
  for (long s = 0; s < steps; ++s) {
#define GPUPROBE_STEP(k) r##k = _mm256_fmadd_pd(r##k, m, c);
    GPUPROBE_CHAINS(GPUPROBE_STEP)
#undef GPUPROBE_STEP
  }
#define GPUPROBE_OUT(k) result[k] = _mm256_cvtsd_f64(r##k);
  GPUPROBE_CHAINS(GPUPROBE_OUT)
#undef GPUPROBE_OUT
}

__attribute__((target("avx2,fma"), noinline)) void Fp32Loop(long steps, double* result) {
#define GPUPROBE_INIT(k) __m256 r##k = _mm256_set1_ps(static_cast<float>(ChainStart(k)));
  GPUPROBE_CHAINS(GPUPROBE_INIT)
#undef GPUPROBE_INIT
  const __m256 m = _mm256_set1_ps(static_cast<float>(kM)), c = _mm256_set1_ps(static_cast<float>(kC));
  for (long s = 0; s < steps; ++s) {
#define GPUPROBE_STEP(k) r##k = _mm256_fmadd_ps(r##k, m, c);
    GPUPROBE_CHAINS(GPUPROBE_STEP)
#undef GPUPROBE_STEP
  }
#define GPUPROBE_OUT(k) result[k] = _mm256_cvtss_f32(r##k);
  GPUPROBE_CHAINS(GPUPROBE_OUT)
#undef GPUPROBE_OUT
}

__attribute__((target("avx2,fma"), noinline)) void Int32Loop(long steps, double* result) {
#define GPUPROBE_INIT(k) __m256i r##k = _mm256_set1_epi32(k + 1);
  GPUPROBE_CHAINS(GPUPROBE_INIT)
#undef GPUPROBE_INIT
  const __m256i m = _mm256_set1_epi32(static_cast<int>(kIm)), c = _mm256_set1_epi32(static_cast<int>(kIc));
  for (long s = 0; s < steps; ++s) {
#define GPUPROBE_STEP(k) r##k = _mm256_add_epi32(_mm256_mullo_epi32(r##k, m), c);
    GPUPROBE_CHAINS(GPUPROBE_STEP)
#undef GPUPROBE_STEP
  }
#define GPUPROBE_OUT(k) result[k] = static_cast<std::uint32_t>(_mm256_extract_epi32(r##k, 0));
  GPUPROBE_CHAINS(GPUPROBE_OUT)
#undef GPUPROBE_OUT
}

KernelOutput RunAvx2(Kind kind, long steps) {
  KernelOutput out;
  out.isa = "AVX2+FMA";
  double result[kChains];
  if (kind == Kind::kFp64) {
    Fp64Loop(steps, result);
    out.lanes = 4;
  } else if (kind == Kind::kFp32) {
    Fp32Loop(steps, result);
    out.lanes = 8;
  } else {
    Int32Loop(steps, result);
    out.lanes = 8;
  }
  out.chains.assign(result, result + kChains);
  out.flops_per_step = 2.0 * out.lanes;
  return out;
}

// Summed by hand: GCC 12's _mm512_reduce_add_ps trips -Wmaybe-uninitialized in its header.
// AVX-512 versions: on a CPU with 512-bit FMA pipes the AVX2 kernel reaches only half the
// peak the model predicts, so the peak is measured with the widest instructions there are.
__attribute__((target("avx512f"), noinline)) void Fp64Loop512(long steps, double* result) {
#define GPUPROBE_INIT(k) __m512d r##k = _mm512_set1_pd(ChainStart(k));
  GPUPROBE_CHAINS(GPUPROBE_INIT)
#undef GPUPROBE_INIT
  const __m512d m = _mm512_set1_pd(kM), c = _mm512_set1_pd(kC);
  for (long s = 0; s < steps; ++s) {
#define GPUPROBE_STEP(k) r##k = _mm512_fmadd_pd(r##k, m, c);
    GPUPROBE_CHAINS(GPUPROBE_STEP)
#undef GPUPROBE_STEP
  }
#define GPUPROBE_OUT(k) result[k] = _mm512_cvtsd_f64(r##k);
  GPUPROBE_CHAINS(GPUPROBE_OUT)
#undef GPUPROBE_OUT
}

__attribute__((target("avx512f"), noinline)) void Fp32Loop512(long steps, double* result) {
#define GPUPROBE_INIT(k) __m512 r##k = _mm512_set1_ps(static_cast<float>(ChainStart(k)));
  GPUPROBE_CHAINS(GPUPROBE_INIT)
#undef GPUPROBE_INIT
  const __m512 m = _mm512_set1_ps(static_cast<float>(kM)), c = _mm512_set1_ps(static_cast<float>(kC));
  for (long s = 0; s < steps; ++s) {
#define GPUPROBE_STEP(k) r##k = _mm512_fmadd_ps(r##k, m, c);
    GPUPROBE_CHAINS(GPUPROBE_STEP)
#undef GPUPROBE_STEP
  }
#define GPUPROBE_OUT(k) result[k] = _mm512_cvtss_f32(r##k);
  GPUPROBE_CHAINS(GPUPROBE_OUT)
#undef GPUPROBE_OUT
}

KernelOutput RunAvx512(Kind kind, long steps) {
  KernelOutput out;
  out.isa = "AVX-512";
  double result[kChains];
  if (kind == Kind::kFp64) {
    Fp64Loop512(steps, result);
    out.lanes = 8;
  } else {
    Fp32Loop512(steps, result);
    out.lanes = 16;
  }
  out.chains.assign(result, result + kChains);
  out.flops_per_step = 2.0 * out.lanes;
  return out;
}

__attribute__((target("avx512f"))) float LaneMean(__m512 v) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  float sum = 0;
  for (float lane : lanes) sum += lane;
  return sum / 16.0f;
}

__attribute__((target("avx512f,avx512bf16"), noinline)) void Bf16Loop(long steps, double* result) {
  // vdpbf16ps: each fp32 lane accumulates two bf16 products per instruction.
#define GPUPROBE_INIT(k) __m512 r##k = _mm512_setzero_ps();
  GPUPROBE_CHAINS(GPUPROBE_INIT)
#undef GPUPROBE_INIT
  // bf16 0x3F80 = 1.0 and 0x3C00 = 2^-7; products are exact, so sums are reproducible.
  const __m512bh a = (__m512bh)_mm512_set1_epi32(0x3F803F80);
  const __m512bh b = (__m512bh)_mm512_set1_epi32(0x3C003C00);
  for (long s = 0; s < steps; ++s) {
#define GPUPROBE_STEP(k) r##k = _mm512_dpbf16_ps(r##k, a, b);
    GPUPROBE_CHAINS(GPUPROBE_STEP)
#undef GPUPROBE_STEP
  }
#define GPUPROBE_OUT(k) result[k] = LaneMean(r##k);
  GPUPROBE_CHAINS(GPUPROBE_OUT)
#undef GPUPROBE_OUT
}

KernelOutput RunBf16Avx512(long steps) {
  KernelOutput out;
  out.isa = "AVX512-BF16";
  double result[kChains];
  Bf16Loop(steps, result);
  out.chains.assign(result, result + kChains);
  out.lanes = 16;
  out.flops_per_step = 4.0 * out.lanes;
  return out;
}
#endif

KernelOutput RunPortable(Kind kind, long steps) {
  KernelOutput out;
  out.lanes = 1;
  out.flops_per_step = 2.0;
  if (kind == Kind::kInt32) {
    std::uint32_t r[kChains];
    for (int k = 0; k < kChains; ++k) r[k] = static_cast<std::uint32_t>(k + 1);
    for (long s = 0; s < steps; ++s) {
      for (int k = 0; k < kChains; ++k) r[k] = r[k] * kIm + kIc;
    }
    for (int k = 0; k < kChains; ++k) out.chains.push_back(r[k]);
  } else if (kind == Kind::kFp32) {
    float r[kChains];
    for (int k = 0; k < kChains; ++k) r[k] = static_cast<float>(ChainStart(k));
    for (long s = 0; s < steps; ++s) {
      for (int k = 0; k < kChains; ++k) r[k] = std::fma(r[k], static_cast<float>(kM), static_cast<float>(kC));
    }
    for (int k = 0; k < kChains; ++k) out.chains.push_back(r[k]);
  } else {
    double r[kChains];
    for (int k = 0; k < kChains; ++k) r[k] = ChainStart(k);
    for (long s = 0; s < steps; ++s) {
      for (int k = 0; k < kChains; ++k) r[k] = std::fma(r[k], kM, kC);
    }
    for (int k = 0; k < kChains; ++k) out.chains.push_back(r[k]);
  }
  return out;
}

// The host's replay of chain k: the exact same operations in scalar code.
double Expected(Kind kind, int k, long steps) {
  if (kind == Kind::kInt32) {
    std::uint32_t r = static_cast<std::uint32_t>(k + 1);
    for (long s = 0; s < steps; ++s) r = r * kIm + kIc;
    return r;
  }
  if (kind == Kind::kFp32) {
    float r = static_cast<float>(ChainStart(k));
    for (long s = 0; s < steps; ++s) r = std::fma(r, static_cast<float>(kM), static_cast<float>(kC));
    return r;
  }
  if (kind == Kind::kBf16) return static_cast<double>(steps) * 2 * (1.0 / 128.0);
  double r = ChainStart(k);
  for (long s = 0; s < steps; ++s) r = std::fma(r, kM, kC);
  return r;
}

KernelOutput RunKernel(Kind kind, long steps) {
#ifdef GPUPROBE_X86
  if (kind == Kind::kBf16) return RunBf16Avx512(steps);
  if ((kind == Kind::kFp32 || kind == Kind::kFp64) && CpuHasAvx512()) return RunAvx512(kind, steps);
  if (CpuHasAvx2Fma()) return RunAvx2(kind, steps);
#endif
  return RunPortable(kind, steps);
}

bool Bf16Available() {
#if defined(GPUPROBE_X86)
  return __builtin_cpu_supports("avx512bf16") != 0;
#else
  return false;
#endif
}

class ComputeInstance : public BenchmarkInstance {
 public:
  ComputeInstance(CpuContext& ctx, Kind kind, int threads, long steps)
      : ctx_(ctx), kind_(kind), threads_(threads), steps_(steps), outputs_(static_cast<size_t>(threads)) {}

  core::Result<double> RunOnce() override {
    std::vector<double> seconds(static_cast<size_t>(threads_), 0.0), clocks(static_cast<size_t>(threads_), 0.0);
    ctx_.pool().Run(threads_, [&](int w) {
      auto start = std::chrono::steady_clock::now();
      outputs_[static_cast<size_t>(w)] = RunKernel(kind_, steps_);
      seconds[static_cast<size_t>(w)] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      // The clock right after the load, while the other cores are still busy.
      clocks[static_cast<size_t>(w)] = ProbeClockOnce(0.0005);
    });
    std::sort(clocks.begin(), clocks.end());
    clock_samples_.push_back(clocks[clocks.size() / 2]);
    return *std::max_element(seconds.begin(), seconds.end());
  }

  Verification Verify() override {
    Verification v;
    int bad = 0;
    for (int k = 0; k < kChains; ++k) {
      double expected = Expected(kind_, k, steps_);
      for (const auto& out : outputs_) {
        double got = out.chains[static_cast<size_t>(k)];
        double tolerance = kind_ == Kind::kInt32 ? 0 : kind_ == Kind::kBf16 ? 1e-3 * std::fabs(expected) : 0;
        if (std::fabs(got - expected) > tolerance) ++bad;
      }
      v.checksum += expected;
    }
    v.verified = bad == 0;
    v.detail = v.verified ? fmt::format("{} chains x {} threads replayed exactly", kChains, threads_)
                          : fmt::format("{} chains differ from the host's replay", bad);
    return v;
  }

  bool CorruptForTest() override {
    // Relative damage: bf16 is checked to 0.1% of the value, so "+1" can hide in a large chain.
    double& chain = outputs_[0].chains[0];
    chain = chain * 1.5 + 1;
    return true;
  }

  double MeasuredClockHz() const override {
    if (clock_samples_.empty()) return 0;
    std::vector<double> sorted = clock_samples_;
    std::sort(sorted.begin(), sorted.end());
    return sorted[sorted.size() / 2];
  }
  std::string Note() const override { return fmt::format("{} kernel, {} chains per thread", outputs_[0].isa, kChains); }

 private:
  CpuContext& ctx_;
  Kind kind_;
  int threads_;
  long steps_;
  std::vector<KernelOutput> outputs_;
  std::vector<double> clock_samples_;
};

class ComputeBenchmark : public Benchmark {
 public:
  ComputeBenchmark(Kind kind, const char* name, const char* dtype, const char* description)
      : kind_(kind), dtype_(dtype) {
    info_ = MakeBenchmarkInfo("compute",
                              name,
                              name,
                              description,
                              kind == Kind::kInt32 ? "integer math is not faster than floating point on modern processors" : "peak arithmetic = cores x vector lanes x 2 (an FMA) x clock",
                              kind == Kind::kInt32 ? Metric::kOps : Metric::kFlops);
  }
  const BenchmarkInfo& Info() const override { return info_; }

  std::vector<BenchCase> Cases(const BackendContext& ctx, const model::CpuSpec&, bool, std::uint64_t) const override {
    std::vector<BenchCase> cases = {{"all cores", Steps(), ctx.Threads(), 0, ""}};
    if (ctx.Threads() > 1) cases.push_back({"1 core", Steps(), 1, 0, ""});
    return cases;
  }

  Availability Check(const BackendContext&, const BenchCase&) const override {
    if (kind_ == Kind::kBf16 && !Bf16Available()) {
      return Availability::NoKeyed("this CPU has no AVX512-BF16 instructions, so bf16 math runs as fp32 here", "bench.skip.no_bf16");
    }
    return Availability::Yes();
  }

  Work WorkFor(const BenchCase& c) const override {
    Work w;
    double lanes = kind_ == Kind::kFp64 ? 4 : kind_ == Kind::kBf16 ? 16 : 8;
    if (!CpuHasAvx2Fma() && kind_ != Kind::kBf16) lanes = 1;
    double per_step = kind_ == Kind::kBf16 ? 4 * lanes : 2 * lanes;
    double total = per_step * kChains * static_cast<double>(c.size) * c.threads;
    if (info_.metric == Metric::kOps) w.ops = total; else w.flops = total;
    return w;
  }

  Prediction Predict(const PredictionContext& pc, const BenchCase& c) const override {
    Prediction p;
    int cores = std::min(c.threads, pc.cpu.physical_cores);
    std::string dtype = kind_ == Kind::kInt32 ? "fp32" : dtype_;
    p.value = model::CpuPeakFlops(pc.cpu, dtype, cores);
    model::VectorPipes pipes = model::FmaPipes(pc.cpu);
    p.basis = fmt::format("{} cores x {} FMA pipes x {} lanes x 2 x {:.0f} MHz ({})", cores, pipes.fma_pipes,
                          pipes.width_bits / model::ElementBits(dtype), model::PeakClockHz(pc.cpu) / 1e6, pipes.basis);
    p.basis_text = {kind_ == Kind::kInt32 ? "bench.basis.int32_as_fp32" : "bench.basis.cpu_peak",
                    {{"cores", std::to_string(cores)},
                     {"pipes", std::to_string(pipes.fma_pipes)},
                     {"lanes", std::to_string(pipes.width_bits / model::ElementBits(dtype))},
                     {"mhz", fmt::format("{:.0f}", model::PeakClockHz(pc.cpu) / 1e6)},
                     {"rule_key", "bench.fma_rule." + pipes.rule}}};
    if (kind_ == Kind::kInt32) p.basis = "as if an int32 multiply-add ran at the FP32 FMA rate: " + p.basis;
    return p;
  }

  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& ctx, const BenchCase& c) const override {
    return std::unique_ptr<BenchmarkInstance>(
        new ComputeInstance(static_cast<CpuContext&>(ctx), kind_, c.threads, static_cast<long>(c.size)));
  }

 private:
  std::uint64_t Steps() const { return kind_ == Kind::kFp64 ? 1500000 : kind_ == Kind::kInt32 ? 400000 : 1500000; }
  BenchmarkInfo info_;
  Kind kind_;
  std::string dtype_;
};

}  // namespace

void RegisterCpuComputeBenchmarks(BenchmarkRegistry* registry) {
  registry->Add(std::make_unique<ComputeBenchmark>(Kind::kFp64, "fma_fp64", "fp64",
                                                   "FP64 fused multiply-add peak on every core (FLOP/s)"));
  registry->Add(std::make_unique<ComputeBenchmark>(Kind::kFp32, "fma_fp32", "fp32",
                                                   "FP32 fused multiply-add peak on every core (FLOP/s)"));
  registry->Add(std::make_unique<ComputeBenchmark>(Kind::kBf16, "fma_bf16", "bf16",
                                                   "BF16 dot-product peak (AVX512-BF16) on every core (FLOP/s)"));
  registry->Add(std::make_unique<ComputeBenchmark>(Kind::kInt32, "int32", "int32",
                                                   "int32 multiply-add throughput on every core (op/s)"));
}

}  // namespace gpuprobe::bench
