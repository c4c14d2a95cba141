// The GPU's arithmetic peaks on its CUDA cores: every thread runs kChainsPerThread
// independent chains of dependent steps (fp32, fp64, fp16 as half2, bf16 as bf16x2, the
// int32 multiply-add and the int8 dot product dp4a), one instruction per step, enough
// threads to fill every SM, and the host replays the chains to check every thread's result
// bit for bit.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "bench/compute_chains.h"
#include "bench/cuda/cuda_context.h"
#include "bench/registry.h"
#include "core/units.h"

namespace gpuprobe::bench {
namespace {

using gpu::ChainType;

constexpr std::uint64_t kSteps = gpu::kChainSteps;
constexpr int kBlocksPerSm = 8;
constexpr std::uint32_t kThreads = 256;
constexpr int kChains = gpu::kChainsPerThread;

// One struct per chain: the register type, how many registers a thread holds, the start of
// each and one step. The step's operands a and b come from the kernel's arguments.
struct F32Chain {
  using Reg = float;
  static constexpr int kRegs = kChains;
  __device__ static Reg Start(int k) { return gpu::ChainStart(k); }
  __device__ static Reg Step(Reg x, Reg a, Reg b) { return fmaf(x, a, b); }
};

struct F64Chain {
  using Reg = double;
  static constexpr int kRegs = kChains;
  __device__ static Reg Start(int k) { return gpu::ChainStart(k); }
  __device__ static Reg Step(Reg x, Reg a, Reg b) { return fma(x, a, b); }
};

// Two fp16 chains per half2 register: kChains half lanes, two FMAs per instruction.
struct F16Chain {
  using Reg = __half2;
  static constexpr int kRegs = kChains / 2;
  __device__ static Reg Start(int k) { return __floats2half2_rn(gpu::ChainStart(2 * k), gpu::ChainStart(2 * k + 1)); }
  __device__ static Reg Step(Reg x, Reg a, Reg b) { return __hfma2(x, a, b); }
};

// Two bf16 chains per bf16x2 register (fma.rn.bf16x2 on compute capability 8.0+).
struct Bf16Chain {
  using Reg = __nv_bfloat162;
  static constexpr int kRegs = kChains / 2;
  __device__ static Reg Start(int k) { return __floats2bfloat162_rn(gpu::ChainStart(2 * k), gpu::ChainStart(2 * k + 1)); }
  __device__ static Reg Step(Reg x, Reg a, Reg b) {
#if __CUDA_ARCH__ >= 800
    return __hfma2(x, a, b);
#else
    // No bf16 arithmetic before compute capability 8.0: Check() skips the case there, so this
    // code for sm_75 never runs; it only has to compile.
    (void)a;
    (void)b;
    return x;
#endif
  }
};

struct Dp4aChain {
  using Reg = int;
  static constexpr int kRegs = kChains;
  __device__ static Reg Start(int k) { return gpu::Dp4aChainStart(k); }
  __device__ static Reg Step(Reg x, Reg a, Reg b) { return __dp4a(x, a, b); }
};

struct I32Chain {
  using Reg = unsigned int;
  static constexpr int kRegs = kChains;
  __device__ static Reg Start(int k) { return gpu::IntChainStart(k); }
  __device__ static Reg Step(Reg x, Reg a, Reg b) { return x * a + b; }
};

// kChainUnroll steps per iteration, unrolled here; "unroll 1" keeps the compiler from
// unrolling the iterations again, so one iteration's instructions can be counted in the PTX.
template <class Chain>
__global__ void ChainKernel(typename Chain::Reg a, typename Chain::Reg b, unsigned long long iterations,
                            typename Chain::Reg* out) {
  typename Chain::Reg x[Chain::kRegs];
#pragma unroll
  for (int k = 0; k < Chain::kRegs; ++k) x[k] = Chain::Start(k);
#pragma unroll 1
  for (unsigned long long i = 0; i < iterations; ++i) {
#pragma unroll
    for (int u = 0; u < gpu::kChainUnroll; ++u) {
#pragma unroll
      for (int k = 0; k < Chain::kRegs; ++k) x[k] = Chain::Step(x[k], a, b);
    }
  }
  const unsigned long long t = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
#pragma unroll
  for (int k = 0; k < Chain::kRegs; ++k) out[t * Chain::kRegs + k] = x[k];
}

template <class Chain>
cudaError_t LaunchChain(std::uint32_t blocks, typename Chain::Reg a, typename Chain::Reg b, void* out, cudaStream_t s) {
  ChainKernel<Chain><<<blocks, kThreads, 0, s>>>(a, b, kSteps / gpu::kChainUnroll, static_cast<typename Chain::Reg*>(out));
  return cudaGetLastError();
}

// One thread's registers after the kernel, as the host replays them (every thread's are the
// same): the bytes the device must have written, register after register.
std::vector<unsigned char> ExpectedThreadBytes(ChainType type) {
  std::vector<unsigned char> bytes;
  auto append = [&bytes](const void* value, size_t size) {
    const auto* p = static_cast<const unsigned char*>(value);
    bytes.insert(bytes.end(), p, p + size);
  };
  for (int k = 0; k < kChains; ++k) {
    switch (type) {
      case ChainType::kFp32: { float v = gpu::ReplayChainF32(k, kSteps); append(&v, sizeof v); break; }
      case ChainType::kFp64: { double v = gpu::ReplayChainF64(k, kSteps); append(&v, sizeof v); break; }
      case ChainType::kInt32: { std::uint32_t v = gpu::ReplayChainI32(k, kSteps); append(&v, sizeof v); break; }
      case ChainType::kFp16: { std::uint16_t v = gpu::ReplayChainF16(k, kSteps); append(&v, sizeof v); break; }  // .x then .y
      case ChainType::kBf16: { std::uint16_t v = gpu::ReplayChainBf16(k, kSteps); append(&v, sizeof v); break; }
      case ChainType::kDp4a: { std::int32_t v = gpu::ReplayChainDp4a(k, kSteps); append(&v, sizeof v); break; }
    }
  }
  return bytes;
}

struct TypeInfo {
  ChainType type;
  const char* id;
  const char* spec_type;  // for model::TheoreticalPeak
  const char* description;
};

const TypeInfo kTypes[] = {
    {ChainType::kFp64, "fma_fp64", "fp64", "chains of dependent fp64 FMAs on every CUDA core (FLOP/s)"},
    {ChainType::kFp32, "fma_fp32", "fp32", "chains of dependent fp32 FMAs on every CUDA core (FLOP/s)"},
    {ChainType::kFp16, "fma_fp16", "fp16", "chains of dependent half2 FMAs, two per instruction (FLOP/s)"},
    {ChainType::kBf16, "fma_bf16", "bf16", "chains of dependent bf16x2 FMAs, two per instruction (FLOP/s)"},
    {ChainType::kInt32, "int32", "int32", "chains of dependent 32-bit integer multiply-adds (op/s)"},
    {ChainType::kDp4a, "int8_dp4a", nullptr, "chains of dependent int8 dot products (dp4a: 4 multiply-adds each, op/s)"},
};

class ComputeInstance : public BenchmarkInstance {
 public:
  ComputeInstance(CudaContext& ctx, const TypeInfo& info, std::uint32_t blocks) : ctx_(ctx), info_(info), blocks_(blocks) {}
  std::uint64_t Threads() const { return static_cast<std::uint64_t>(blocks_) * kThreads; }

  core::Status Prepare() {
    expected_ = ExpectedThreadBytes(info_.type);
    cudaError_t e = out_.Allocate(Threads() * expected_.size());
    return e == cudaSuccess ? core::Status::Ok() : CudaFailed("cudaMalloc", e);
  }

  cudaError_t Enqueue(cudaStream_t s) {
    void* out = out_.get();
    switch (info_.type) {
      case ChainType::kFp32: return LaunchChain<F32Chain>(blocks_, gpu::kChainA, gpu::kChainB, out, s);
      case ChainType::kFp64:
        return LaunchChain<F64Chain>(blocks_, static_cast<double>(gpu::kChainA), static_cast<double>(gpu::kChainB), out, s);
      case ChainType::kFp16:
        return LaunchChain<F16Chain>(blocks_, __half2half2(__ushort_as_half(gpu::kHalfChainA)),
                                     __half2half2(__ushort_as_half(gpu::kHalfChainB)), out, s);
      case ChainType::kBf16:
        return LaunchChain<Bf16Chain>(blocks_, __bfloat162bfloat162(__ushort_as_bfloat16(gpu::kBf16ChainA)),
                                      __bfloat162bfloat162(__ushort_as_bfloat16(gpu::kBf16ChainB)), out, s);
      case ChainType::kInt32: return LaunchChain<I32Chain>(blocks_, gpu::kIntChainA, gpu::kIntChainB, out, s);
      case ChainType::kDp4a: return LaunchChain<Dp4aChain>(blocks_, gpu::kDp4aChainA, gpu::kDp4aChainB, out, s);
    }
    return cudaErrorInvalidValue;
  }

  core::Result<double> RunOnce() override {
    return ctx_.TimeCalibrated(&reps_, [this](cudaStream_t s) { return Enqueue(s); });
  }

  Verification Verify() override {
    Verification v;
    std::vector<unsigned char> got(out_.size());
    cudaError_t e = cudaMemcpy(got.data(), out_.get(), got.size(), cudaMemcpyDeviceToHost);
    std::uint64_t bad = 0;
    for (std::uint64_t t = 0; t < Threads() && e == cudaSuccess; ++t) {
      bad += std::memcmp(got.data() + t * expected_.size(), expected_.data(), expected_.size()) != 0;
    }
    v.checksum = static_cast<double>(Threads() * kChains);
    v.verified = e == cudaSuccess && bad == 0;
    v.detail = e != cudaSuccess ? CudaFailed("copy back", e).message()
               : v.verified ? fmt::format("{} threads x {} chains replayed on the host, bit for bit", Threads(), kChains)
                            : fmt::format("{} threads' chains differ from the host's replay", bad);
    return v;
  }

  bool CorruptForTest() override {
    unsigned int wrong = 0x7f7f7f7fu;
    return cudaMemcpy(out_.get(), &wrong, sizeof wrong, cudaMemcpyHostToDevice) == cudaSuccess;
  }

  std::string Note() const override {
    return fmt::format("{} blocks x {} threads x {} chains, {} steps ({} per loop iteration)", blocks_, kThreads, kChains, kSteps,
                       gpu::kChainUnroll);
  }

 private:
  CudaContext& ctx_;
  const TypeInfo& info_;
  std::uint32_t blocks_;
  DeviceArray<unsigned char> out_;
  std::vector<unsigned char> expected_;
  int reps_ = 0;
};

class GpuComputeBenchmark : public Benchmark {
 public:
  explicit GpuComputeBenchmark(const TypeInfo& info) : info_type_(info) {
    bool integer = info.type == ChainType::kInt32 || info.type == ChainType::kDp4a;
    info_ = MakeBenchmarkInfo("compute", info.id, info.id, info.description,
                              integer ? "integer math is not faster than floating point on a GPU either"
                                      : "peak arithmetic = SMs x lanes x 2 (an FMA) x clock",
                              integer ? Metric::kOps : Metric::kFlops, {"cuda"});
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext& context, const model::CpuSpec&, bool, std::uint64_t) const override {
    const auto& ctx = FactsOf(context);
    std::uint64_t blocks = static_cast<std::uint64_t>(std::max(1, ctx.Figures().sm_count)) * kBlocksPerSm;
    return {{fmt::format("all {} SMs", ctx.Figures().sm_count), blocks, 0, 0, ""}};
  }
  Availability Check(const BackendContext& context, const BenchCase&) const override {
    const auto& f = FactsOf(context).Figures();
    if (info_type_.type == ChainType::kBf16 && f.cc_major < 8) {
      return Availability::No("bf16 arithmetic needs compute capability 8.0 or newer");
    }
    return Availability::Yes();
  }
  Work WorkFor(const BenchCase& c) const override { return gpu::ChainWork(info_type_.type, c.size * kThreads, kSteps); }
  Prediction Predict(const PredictionContext& pc, const BenchCase&) const override {
    Prediction p;
    const auto* ctx = GpuFactsOf(pc.context);
    if (ctx == nullptr) return p;
    const auto& f = ctx->Figures();
    if (info_type_.spec_type == nullptr) {
      p.basis = "NVIDIA publishes no per-SM dp4a rate: compare with int32 (a dp4a does 4 multiply-adds in one instruction)";
      return p;
    }
    if (auto peak = model::TheoreticalPeak(f, info_type_.spec_type)) {
      p.value = *peak;
      p.basis = fmt::format("{} SMs x {} {} lanes x 2 x {:.0f} MHz", f.sm_count, model::LanesPerSm(f.cc_major, f.cc_minor, info_type_.spec_type),
                            info_type_.spec_type, f.sm_clock_hz / 1e6);
    } else {
      p.basis = fmt::format("no published {} lanes per SM for sm_{}{} in gpuprobe's table", info_type_.spec_type, f.cc_major, f.cc_minor);
    }
    return p;
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& context, const BenchCase& c) const override {
    auto instance = std::make_unique<ComputeInstance>(static_cast<CudaContext&>(context), info_type_, static_cast<std::uint32_t>(c.size));
    GPUPROBE_RETURN_IF_ERROR(instance->Prepare());
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
