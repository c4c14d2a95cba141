// The GPU's arithmetic peaks on its CUDA cores: every thread runs kChainsPerThread
// independent chains of dependent fused multiply-adds (fp32, fp64, fp16 as half2, and the
// int32 multiply-add), enough threads to fill every SM, and the host replays the chains to
// check every thread's result.
#include <cuda_fp16.h>

#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "bench/compute_chains.h"
#include "bench/cuda/cuda_context.h"
#include "bench/registry.h"
#include "core/units.h"

namespace gpuprobe::bench {
namespace {

constexpr std::uint64_t kSteps = gpu::kChainSteps;
constexpr int kBlocksPerSm = 8;
constexpr std::uint32_t kThreads = 256;
constexpr int kChains = gpu::kChainsPerThread;

enum class Type { kFp32, kFp64, kFp16, kInt32 };

__global__ void ChainF32(float* out, unsigned long long steps) {
  float x[kChains];
#pragma unroll
  for (int k = 0; k < kChains; ++k) x[k] = gpu::ChainStart(k);
  for (unsigned long long s = 0; s < steps; ++s) {
#pragma unroll
    for (int k = 0; k < kChains; ++k) x[k] = fmaf(x[k], gpu::kChainA, gpu::kChainB);
  }
  unsigned long long t = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kChains; ++k) out[t * kChains + k] = x[k];
}

__global__ void ChainF64(double* out, unsigned long long steps) {
  double x[kChains];
#pragma unroll
  for (int k = 0; k < kChains; ++k) x[k] = gpu::ChainStart(k);
  const double a = gpu::kChainA, b = gpu::kChainB;
  for (unsigned long long s = 0; s < steps; ++s) {
#pragma unroll
    for (int k = 0; k < kChains; ++k) x[k] = fma(x[k], a, b);
  }
  unsigned long long t = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kChains; ++k) out[t * kChains + k] = x[k];
}

// fp16: kChains / 2 half2 registers = kChains half lanes, two FMAs per instruction; the
// results are stored as the halves' bits (chain 2k low, 2k + 1 high), compared bit for bit.
__global__ void ChainF16(__half2* out, unsigned long long steps) {
  __half2 x[kChains / 2];
#pragma unroll
  for (int k = 0; k < kChains / 2; ++k) x[k] = __floats2half2_rn(gpu::ChainStart(2 * k), gpu::ChainStart(2 * k + 1));
  const __half2 a = __half2half2(__ushort_as_half(gpu::kHalfChainA)), b = __half2half2(__ushort_as_half(gpu::kHalfChainB));
  for (unsigned long long s = 0; s < steps; ++s) {
#pragma unroll
    for (int k = 0; k < kChains / 2; ++k) x[k] = __hfma2(x[k], a, b);
  }
  unsigned long long t = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kChains / 2; ++k) out[t * (kChains / 2) + k] = x[k];
}

__global__ void ChainI32(unsigned int* out, unsigned long long steps) {
  unsigned int x[kChains];
#pragma unroll
  for (int k = 0; k < kChains; ++k) x[k] = gpu::IntChainStart(k);
  for (unsigned long long s = 0; s < steps; ++s) {
#pragma unroll
    for (int k = 0; k < kChains; ++k) x[k] = x[k] * gpu::kIntChainA + gpu::kIntChainB;
  }
  unsigned long long t = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kChains; ++k) out[t * kChains + k] = x[k];
}

struct TypeInfo {
  Type type;
  const char* id;
  const char* spec_type;  // for model::TheoreticalPeak
  const char* description;
};

const TypeInfo kTypes[] = {
    {Type::kFp64, "fma_fp64", "fp64", "chains of dependent fp64 FMAs on every CUDA core (FLOP/s)"},
    {Type::kFp32, "fma_fp32", "fp32", "chains of dependent fp32 FMAs on every CUDA core (FLOP/s)"},
    {Type::kFp16, "fma_fp16", "fp16", "chains of dependent half2 FMAs, two per instruction (FLOP/s)"},
    {Type::kInt32, "int32", "int32", "chains of dependent 32-bit integer multiply-adds (op/s)"},
};

class ComputeInstance : public BenchmarkInstance {
 public:
  ComputeInstance(CudaContext& ctx, const TypeInfo& info, std::uint32_t blocks) : ctx_(ctx), info_(info), blocks_(blocks) {}
  std::uint64_t Threads() const { return static_cast<std::uint64_t>(blocks_) * kThreads; }
  core::Status Prepare() {
    std::uint64_t values = Threads() * kChains;
    // fp16 keeps two chains' bits in each 32-bit word: half as many words.
    cudaError_t e = info_.type == Type::kFp64   ? out64_.Allocate(values)
                    : info_.type == Type::kFp32 ? out32_.Allocate(values)
                                                : outi_.Allocate(info_.type == Type::kFp16 ? values / 2 : values);
    return e == cudaSuccess ? core::Status::Ok() : CudaFailed("cudaMalloc", e);
  }
  cudaError_t Enqueue(cudaStream_t s) {
    switch (info_.type) {
      case Type::kFp32: ChainF32<<<blocks_, kThreads, 0, s>>>(out32_.get(), kSteps); break;
      case Type::kFp64: ChainF64<<<blocks_, kThreads, 0, s>>>(out64_.get(), kSteps); break;
      case Type::kFp16: ChainF16<<<blocks_, kThreads, 0, s>>>(reinterpret_cast<__half2*>(outi_.get()), kSteps); break;
      case Type::kInt32: ChainI32<<<blocks_, kThreads, 0, s>>>(outi_.get(), kSteps); break;
    }
    return cudaGetLastError();
  }
  core::Result<double> RunOnce() override {
    return ctx_.TimeCalibrated(&reps_, [this](cudaStream_t s) { return Enqueue(s); });
  }
  Verification Verify() override {
    Verification v;
    std::uint64_t values = Threads() * kChains, bad = 0;
    cudaError_t e = cudaSuccess;
    if (info_.type == Type::kFp64) {
      std::vector<double> got(values);
      e = cudaMemcpy(got.data(), out64_.get(), values * sizeof(double), cudaMemcpyDeviceToHost);
      for (std::uint64_t i = 0; i < values && e == cudaSuccess; ++i) bad += got[i] != expected64_[i % kChains];
    } else if (info_.type == Type::kInt32) {
      std::vector<unsigned int> got(values);
      e = cudaMemcpy(got.data(), outi_.get(), values * sizeof(unsigned int), cudaMemcpyDeviceToHost);
      for (std::uint64_t i = 0; i < values && e == cudaSuccess; ++i) bad += got[i] != expectedi_[i % kChains];
    } else if (info_.type == Type::kFp16) {
      // Bit for bit: the host replays each __hfma2 lane with one rounding (soft_float.h).
      std::vector<unsigned int> got(values / 2);
      e = cudaMemcpy(got.data(), outi_.get(), got.size() * sizeof(unsigned int), cudaMemcpyDeviceToHost);
      for (std::uint64_t i = 0; i < got.size() && e == cudaSuccess; ++i) {
        std::uint64_t k = 2 * (i % (kChains / 2));
        bad += (got[i] & 0xFFFFu) != expected16_[k];
        bad += (got[i] >> 16) != expected16_[k + 1];
      }
    } else {
      std::vector<float> got(values);
      e = cudaMemcpy(got.data(), out32_.get(), values * sizeof(float), cudaMemcpyDeviceToHost);
      for (std::uint64_t i = 0; i < values && e == cudaSuccess; ++i) bad += got[i] != expected32_[i % kChains];
    }
    v.checksum = static_cast<double>(values);
    v.verified = e == cudaSuccess && bad == 0;
    v.detail = e != cudaSuccess ? CudaFailed("copy back", e).message()
               : v.verified ? fmt::format("{} threads x {} chains replayed on the host", Threads(), kChains)
                            : fmt::format("{} chain results differ from the host's replay", bad);
    return v;
  }
  bool CorruptForTest() override {
    if (info_.type == Type::kFp64) return cudaMemset(out64_.get(), 0x7f, sizeof(double)) == cudaSuccess;
    if (info_.type == Type::kInt32 || info_.type == Type::kFp16) return cudaMemset(outi_.get(), 0x7f, sizeof(unsigned int)) == cudaSuccess;
    return cudaMemset(out32_.get(), 0x7f, sizeof(float)) == cudaSuccess;
  }
  std::string Note() const override { return fmt::format("{} blocks x {} threads x {} chains", blocks_, kThreads, kChains); }

  void ComputeExpected() {
    for (int k = 0; k < kChains; ++k) {
      expected32_[k] = gpu::ReplayChainF32(k, kSteps);
      expected16_[k] = gpu::ReplayChainF16(k, kSteps);
      expected64_[k] = gpu::ReplayChainF64(k, kSteps);
      expectedi_[k] = gpu::ReplayChainI32(k, kSteps);
    }
  }

 private:
  CudaContext& ctx_;
  const TypeInfo& info_;
  std::uint32_t blocks_;
  DeviceArray<float> out32_;
  DeviceArray<double> out64_;
  DeviceArray<unsigned int> outi_;
  float expected32_[kChains] = {};
  std::uint16_t expected16_[kChains] = {};
  double expected64_[kChains] = {};
  unsigned int expectedi_[kChains] = {};
  int reps_ = 0;
};

class GpuComputeBenchmark : public Benchmark {
 public:
  explicit GpuComputeBenchmark(const TypeInfo& info) : info_type_(info) {
    info_ = MakeBenchmarkInfo("compute", info.id, info.id, info.description,
                              info.type == Type::kInt32 ? "integer math is not faster than floating point on a GPU either"
                                                        : "peak arithmetic = SMs x lanes x 2 (an FMA) x clock",
                              info.type == Type::kInt32 ? Metric::kOps : Metric::kFlops, {"cuda"});
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext& context, const model::CpuSpec&, bool, std::uint64_t) const override {
    const auto& ctx = FactsOf(context);
    std::uint64_t blocks = static_cast<std::uint64_t>(std::max(1, ctx.Figures().sm_count)) * kBlocksPerSm;
    return {{fmt::format("all {} SMs", ctx.Figures().sm_count), blocks, 0, 0, ""}};
  }
  Work WorkFor(const BenchCase& c) const override {
    gpu::ChainType type = info_type_.type == Type::kInt32 ? gpu::ChainType::kInt32 : gpu::ChainType::kFp32;
    return gpu::ChainWork(type, c.size * kThreads, kSteps);
  }
  Prediction Predict(const PredictionContext& pc, const BenchCase&) const override {
    Prediction p;
    const auto* ctx = GpuFactsOf(pc.context);
    if (ctx == nullptr) return p;
    const auto& f = ctx->Figures();
    if (auto peak = model::TheoreticalPeak(f, info_type_.spec_type)) {
      p.value = *peak;
      p.basis = fmt::format("{} SMs x {} {} lanes x 2 x {:.0f} MHz", f.sm_count, model::LanesPerSm(f.cc_major, f.cc_minor, info_type_.spec_type),
                            info_type_.spec_type, f.sm_clock_hz / 1e6);
    } else {
      p.basis = fmt::format("sm_{}{} is not in gpuprobe's lanes-per-SM table", f.cc_major, f.cc_minor);
    }
    return p;
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& context, const BenchCase& c) const override {
    auto instance = std::make_unique<ComputeInstance>(static_cast<CudaContext&>(context), info_type_, static_cast<std::uint32_t>(c.size));
    GPUPROBE_RETURN_IF_ERROR(instance->Prepare());
    instance->ComputeExpected();
    return std::unique_ptr<BenchmarkInstance>(std::move(instance));
  }

 private:
  const TypeInfo& info_type_;
  BenchmarkInfo info_;
};

}  // namespace

void RegisterCudaComputeBenchmarks(BenchmarkRegistry* registry) {
  for (const auto& type : kTypes) registry->Add(std::make_unique<GpuComputeBenchmark>(type));
}

}  // namespace gpuprobe::bench
