// The integer pitfall: GPUs are built around fp32. An int32 multiply-add runs at about the
// fp32 rate, but a 64-bit integer multiply is emulated with several 32-bit instructions and
// an integer division by a value known only at run time is a software routine of ~20
// instructions. One benchmark, one case per operation, the same chain structure as
// compute.*: rates in operations per second, side by side.
#include <vector>

#include <fmt/format.h>

#include "bench/compute_chains.h"
#include "bench/cuda/cuda_context.h"
#include "bench/registry.h"

namespace gpuprobe::bench {
namespace {

constexpr std::uint64_t kSteps = 1024;
constexpr std::uint64_t kIterations = kSteps / gpu::kChainUnroll;
static_assert(kSteps % gpu::kChainUnroll == 0, "whole iterations");
constexpr int kChains = gpu::kChainsPerThread;
constexpr int kBlocksPerSm = 8;
constexpr std::uint32_t kThreads = 256;

enum class Op { kInt32MulAdd, kInt64MulAdd, kInt32Divide, kFp32Fma, kFp64Fma };

struct OpInfo {
  Op op;
  const char* label;
};
const OpInfo kOps[] = {{Op::kFp32Fma, "fp32 FMA"},         {Op::kInt32MulAdd, "int32 multiply-add"}, {Op::kFp64Fma, "fp64 FMA"},
                       {Op::kInt64MulAdd, "int64 multiply-add"}, {Op::kInt32Divide, "int32 divide"}};

// The divisor arrives as a kernel argument, so the compiler cannot turn it into a multiply.
template <typename T, Op kOp>
__device__ __forceinline__ T Step(T x, T a, T b) {
  if constexpr (kOp == Op::kInt32Divide) {
    return x / a + b;
  } else if constexpr (kOp == Op::kFp32Fma || kOp == Op::kFp64Fma) {
    return fma(x, a, b);
  } else {
    return x * a + b;
  }
}

// The compute chains' loop shape (compute_chains.h): kChainUnroll steps per iteration and
// no further unrolling, so the PTX test can count one iteration's instructions.
template <typename T, Op kOp>
__global__ void IntopsKernel(T a, T b, unsigned long long iterations, T* out) {
  T x[kChains];
#pragma unroll
  for (int k = 0; k < kChains; ++k) x[k] = static_cast<T>(1000003 + 7919 * k);
#pragma unroll 1
  for (unsigned long long i = 0; i < iterations; ++i) {
#pragma unroll
    for (int u = 0; u < gpu::kChainUnroll; ++u) {
#pragma unroll
      for (int k = 0; k < kChains; ++k) x[k] = Step<T, kOp>(x[k], a, b);
    }
  }
  unsigned long long t = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kChains; ++k) out[t * kChains + k] = x[k];
}

// Host replays with the same types and operations (division by 3 keeps the chain alive: it
// settles at a fixed point that the host must reach too).
template <typename T>
T Replay(Op op, int k, T a, T b) {
  T x = static_cast<T>(1000003 + 7919 * k);
  for (std::uint64_t s = 0; s < kSteps; ++s) {
    if (op == Op::kInt32Divide) x = x / a + b;
    else if (op == Op::kFp32Fma || op == Op::kFp64Fma) x = static_cast<T>(std::fma(x, a, b));
    else x = x * a + b;
  }
  return x;
}

class IntopsInstance : public BenchmarkInstance {
 public:
  IntopsInstance(CudaContext& ctx, Op op, std::uint32_t blocks) : ctx_(ctx), op_(op), blocks_(blocks) {}
  std::uint64_t Values() const { return static_cast<std::uint64_t>(blocks_) * kThreads * kChains; }
  core::Status Prepare() {
    cudaError_t e = out_.Allocate(Values() * 8);  // room for the widest type
    return e == cudaSuccess ? core::Status::Ok() : CudaFailed("cudaMalloc", e);
  }
  cudaError_t Enqueue(cudaStream_t s) {
    void* out = out_.get();
    switch (op_) {
      case Op::kInt32MulAdd: IntopsKernel<unsigned int, Op::kInt32MulAdd><<<blocks_, kThreads, 0, s>>>(1664525u, 1013904223u, kIterations, static_cast<unsigned int*>(out)); break;
      case Op::kInt64MulAdd: IntopsKernel<unsigned long long, Op::kInt64MulAdd><<<blocks_, kThreads, 0, s>>>(6364136223846793005ull, 1442695040888963407ull, kIterations, static_cast<unsigned long long*>(out)); break;
      case Op::kInt32Divide: IntopsKernel<unsigned int, Op::kInt32Divide><<<blocks_, kThreads, 0, s>>>(3u, 1000000u, kIterations, static_cast<unsigned int*>(out)); break;
      case Op::kFp32Fma: IntopsKernel<float, Op::kFp32Fma><<<blocks_, kThreads, 0, s>>>(gpu::kChainA, gpu::kChainB, kIterations, static_cast<float*>(out)); break;
      case Op::kFp64Fma: IntopsKernel<double, Op::kFp64Fma><<<blocks_, kThreads, 0, s>>>(static_cast<double>(gpu::kChainA), static_cast<double>(gpu::kChainB), kIterations, static_cast<double*>(out)); break;
    }
    return cudaGetLastError();
  }
  core::Result<double> RunOnce() override {
    return ctx_.TimeCalibrated(&reps_, [this](cudaStream_t s) { return Enqueue(s); });
  }
  template <typename T>
  std::uint64_t CountBad(T a, T b) {
    std::vector<T> got(Values());
    if (cudaMemcpy(got.data(), out_.get(), got.size() * sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess) return got.size();
    T expected[kChains];
    for (int k = 0; k < kChains; ++k) expected[k] = Replay<T>(op_, k, a, b);
    std::uint64_t bad = 0;
    for (std::uint64_t i = 0; i < got.size(); ++i) bad += got[i] != expected[i % kChains];
    return bad;
  }
  Verification Verify() override {
    std::uint64_t bad = 0;
    switch (op_) {
      case Op::kInt32MulAdd: bad = CountBad<unsigned int>(1664525u, 1013904223u); break;
      case Op::kInt64MulAdd: bad = CountBad<unsigned long long>(6364136223846793005ull, 1442695040888963407ull); break;
      case Op::kInt32Divide: bad = CountBad<unsigned int>(3u, 1000000u); break;
      case Op::kFp32Fma: bad = CountBad<float>(gpu::kChainA, gpu::kChainB); break;
      case Op::kFp64Fma: bad = CountBad<double>(gpu::kChainA, gpu::kChainB); break;
    }
    Verification v;
    v.checksum = static_cast<double>(Values());
    v.verified = bad == 0;
    v.detail = v.verified ? "every chain replayed exactly on the host" : fmt::format("{} chain results differ from the host", bad);
    return v;
  }
  bool CorruptForTest() override { return MemsetSync(out_.get(), 0x5a, 8, ctx_) == cudaSuccess; }

 private:
  CudaContext& ctx_;
  Op op_;
  std::uint32_t blocks_;
  DeviceArray<unsigned long long> out_;
  int reps_ = 0;
};

class IntopsBenchmark : public Benchmark {
 public:
  IntopsBenchmark() {
    info_ = MakeBenchmarkInfo("intops", "throughput", "Integer against floating point",
                              "chains of int32/int64 multiply-adds, int32 divides, fp32/fp64 FMAs (op/s)",
                              "GPUs are built for fp32: 64-bit integer multiplies and integer division are emulated",
                              Metric::kOps, {"cuda"});
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext& context, const model::CpuSpec&, bool, std::uint64_t) const override {
    const auto& ctx = FactsOf(context);
    std::uint64_t blocks = static_cast<std::uint64_t>(std::max(1, ctx.Figures().sm_count)) * kBlocksPerSm;
    std::vector<BenchCase> cases;
    for (const auto& o : kOps) cases.push_back(BenchCase(o.label, blocks, 0, static_cast<double>(o.op), o.label));
    return cases;
  }
  Work WorkFor(const BenchCase& c) const override {
    Work w;
    w.ops = static_cast<double>(c.size) * kThreads * kChains * kSteps;  // one multiply-add, FMA or divide = one op
    return w;
  }
  Prediction Predict(const PredictionContext& pc, const BenchCase& c) const override {
    Prediction p;
    const auto* ctx = GpuFactsOf(pc.context);
    if (ctx == nullptr) return p;
    Op op = static_cast<Op>(static_cast<int>(c.param));
    const char* type = op == Op::kFp64Fma ? "fp64" : op == Op::kFp32Fma ? "fp32" : op == Op::kInt32MulAdd ? "int32" : nullptr;
    if (type == nullptr) {
      p.basis = "emulated in software: no lane count predicts it (expect several times slower than int32)";
      return p;
    }
    if (auto peak = model::TheoreticalPeak(ctx->Figures(), type)) {
      p.value = *peak / 2;  // TheoreticalPeak counts 2 per FMA; here an FMA is one op
      p.basis = fmt::format("SMs x {} lanes x clock", type);
    }
    return p;
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& context, const BenchCase& c) const override {
    auto instance = std::make_unique<IntopsInstance>(static_cast<CudaContext&>(context), static_cast<Op>(static_cast<int>(c.param)),
                                                     static_cast<std::uint32_t>(c.size));
    GPUPROBE_RETURN_IF_ERROR(instance->Prepare());
    return std::unique_ptr<BenchmarkInstance>(std::move(instance));
  }

 private:
  BenchmarkInfo info_;
};

}  // namespace

void RegisterCudaIntopsBenchmarks(BenchmarkRegistry* registry) { registry->Add(std::make_unique<IntopsBenchmark>()); }

}  // namespace gpuprobe::bench
