// The matmul ladder on the GPU (the articles' rungs): the naive kernel with uncoalesced
// accesses, the same with coalesced accesses, shared-memory tiles, register blocking, then
// cuBLAS in fp32, tf32 and bf16 (tensor cores). The timed GEMMs multiply random values with
// full mantissas, checked within the formats' tolerance; then each rung runs once on small
// integers, where every rung must produce the same exact result, checked on C's first row,
// sampled elements and the sum of all elements against the host's exact figures.
#include <chrono>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "bench/cuda/matmul_instance.h"
#include "bench/registry.h"
#include "core/units.h"
#include "model/spec_derivation.h"

namespace gpuprobe::bench {
namespace {

struct RungInfo {
  Rung rung;
  const char* name;
  const char* description;
  const char* group = "matmul";
  bool half_output = false;  // C in the input type (fp16, bf16), as torch.mm writes it
};

const RungInfo kRungs[] = {
    {Rung::kNaive, "gpu_naive", "one thread per output, consecutive threads walk rows: uncoalesced (the articles' first kernel)"},
    {Rung::kCoalesced, "gpu_coalesced", "the same kernel with consecutive threads on consecutive columns: coalesced loads"},
    {Rung::kTiled, "gpu_tiled", "32x32 tiles staged in shared memory: each input read from DRAM n/32 times less"},
    {Rung::kBlocked, "gpu_register_blocked", "64x64 block tiles, 4x4 outputs per thread held in registers"},
    {Rung::kCublasFp32, "cublas_fp32", "cuBLAS SGEMM, fp32 on the CUDA cores"},
    {Rung::kCublasTf32, "cublas_tf32", "cuBLAS GEMM, tf32 inputs on tensor cores, fp32 accumulate"},
    {Rung::kCublasBf16, "cublas_bf16",
     "cuBLAS GEMM, bf16 inputs on tensor cores, fp32 accumulate and fp32 output (exact like every rung; torch.mm writes bf16: "
     "see compute.tensor_bf16)"},
};

// Tensor-core peaks: the largest GEMM of each input type (compute group).
const RungInfo kTensorPeaks[] = {
    {Rung::kCublasTf32, "tensor_tf32", "tensor-core peak: cuBLAS GEMM n=8192, tf32 inputs, fp32 accumulate (FLOP/s)", "compute"},
    {Rung::kCublasFp16, "tensor_fp16", "tensor-core peak: cuBLAS GEMM n=8192, fp16 in and out (as torch.mm), fp32 accumulate (FLOP/s)",
     "compute", true},
    {Rung::kCublasBf16, "tensor_bf16", "tensor-core peak: cuBLAS GEMM n=8192, bf16 in and out (as torch.mm), fp32 accumulate (FLOP/s)",
     "compute", true},
    {Rung::kCublasInt8, "tensor_int8", "tensor-core peak: cuBLAS GEMM n=8192, int8 inputs as TN (IMMA), int32 accumulate (op/s)", "compute"},
};

// The spec database's name for a tensor rung's input type.
const char* TensorType(Rung r) {
  switch (r) {
    case Rung::kCublasTf32: return "tf32";
    case Rung::kCublasBf16: return "bf16";
    case Rung::kCublasFp16: return "fp16";
    case Rung::kCublasInt8: return "int8";
    default: return "fp32";
  }
}

// random >= 0: gpu::GemmRandomValue of that input type; else the exact inputs, A's row 0 the
// TF32 probe where probe_n (= n) is not 0.
__global__ void FillMatmulKernel(float* m, unsigned long long count, unsigned int seed, int random, unsigned long long probe_n) {
  unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < count; i += stride) {
    m[i] = random >= 0    ? gpu::GemmRandomValue(i, seed, static_cast<gpu::GemmInput>(random))
           : probe_n > 0 ? gpu::MatmulProbedValue(i, probe_n)
                         : gpu::MatmulValue(i, seed);
  }
}

__global__ void ToBf16Kernel(const float* in, __nv_bfloat16* out, unsigned long long count) {
  unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < count; i += stride) {
    out[i] = __float2bfloat16(in[i]);
  }
}

__global__ void ToFp16Kernel(const float* in, __half* out, unsigned long long count) {
  unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < count; i += stride) {
    out[i] = __float2half(in[i]);
  }
}

__global__ void ToInt8Kernel(const float* in, signed char* out, unsigned long long count) {
  unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < count; i += stride) {
    out[i] = static_cast<signed char>(in[i]);
  }
}

// Threads with consecutive threadIdx.x take consecutive rows: each warp's loads of A and
// stores to C are n floats apart.
__global__ void NaiveKernel(const float* a, const float* b, float* c, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= n || col >= n) return;
  float sum = 0;
  for (int k = 0; k < n; ++k) sum += a[static_cast<size_t>(row) * n + k] * b[static_cast<size_t>(k) * n + col];
  c[static_cast<size_t>(row) * n + col] = sum;
}

__global__ void CoalescedKernel(const float* a, const float* b, float* c, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= n || col >= n) return;
  float sum = 0;
  for (int k = 0; k < n; ++k) sum += a[static_cast<size_t>(row) * n + k] * b[static_cast<size_t>(k) * n + col];
  c[static_cast<size_t>(row) * n + col] = sum;
}

constexpr int kTile = 32;

__global__ void TiledKernel(const float* a, const float* b, float* c, int n) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile + 1];  // +1: no bank conflicts on the column reads
  int col = blockIdx.x * kTile + threadIdx.x;
  int row = blockIdx.y * kTile + threadIdx.y;
  float sum = 0;
  for (int k0 = 0; k0 < n; k0 += kTile) {
    as[threadIdx.y][threadIdx.x] = row < n && k0 + threadIdx.x < n ? a[static_cast<size_t>(row) * n + k0 + threadIdx.x] : 0.0f;
    bs[threadIdx.y][threadIdx.x] = col < n && k0 + threadIdx.y < n ? b[static_cast<size_t>(k0 + threadIdx.y) * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k) sum += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < n) c[static_cast<size_t>(row) * n + col] = sum;
}

constexpr int kBm = 64, kBn = 64, kBk = 8, kTm = 4, kTn = 4;
constexpr int kBlockedThreads = (kBm / kTm) * (kBn / kTn);  // 256

// n must be a multiple of 64 (checked before launch).
__global__ void __launch_bounds__(kBlockedThreads) BlockedKernel(const float* a, const float* b, float* c, int n) {
  __shared__ float as[kBk][kBm];  // A's tile transposed, so the inner loop reads rows
  __shared__ float bs[kBk][kBn];
  const int tid = threadIdx.x;
  const int trow = tid / (kBn / kTn), tcol = tid % (kBn / kTn);
  const int block_row = blockIdx.y * kBm, block_col = blockIdx.x * kBn;
  float acc[kTm][kTn] = {};
  for (int k0 = 0; k0 < n; k0 += kBk) {
#pragma unroll
    for (int r = 0; r < (kBm * kBk) / kBlockedThreads; ++r) {
      int e = tid + r * kBlockedThreads;
      as[e % kBk][e / kBk] = a[static_cast<size_t>(block_row + e / kBk) * n + k0 + e % kBk];
    }
#pragma unroll
    for (int r = 0; r < (kBk * kBn) / kBlockedThreads; ++r) {
      int e = tid + r * kBlockedThreads;
      bs[e / kBn][e % kBn] = b[static_cast<size_t>(k0 + e / kBn) * n + block_col + e % kBn];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kBk; ++k) {
      float av[kTm], bv[kTn];
#pragma unroll
      for (int i = 0; i < kTm; ++i) av[i] = as[k][trow * kTm + i];
#pragma unroll
      for (int j = 0; j < kTn; ++j) bv[j] = bs[k][tcol * kTn + j];
#pragma unroll
      for (int i = 0; i < kTm; ++i) {
#pragma unroll
        for (int j = 0; j < kTn; ++j) acc[i][j] += av[i] * bv[j];
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kTm; ++i) {
#pragma unroll
    for (int j = 0; j < kTn; ++j) c[static_cast<size_t>(block_row + trow * kTm + i) * n + block_col + tcol * kTn + j] = acc[i][j];
  }
}


class GpuMatmulBenchmark : public Benchmark {
 public:
  explicit GpuMatmulBenchmark(const RungInfo& rung) : rung_(rung) {
    bool peak = std::string(rung.group) == "compute";
    info_ = MakeBenchmarkInfo(rung.group, rung.name, rung.name, rung.description,
                              peak ? "tensor cores multiply small matrices per instruction: an order of magnitude beyond "
                                     "the CUDA cores, for the input types they support"
                                   : "the same multiplication runs orders of magnitude faster once it reuses data near the "
                                     "arithmetic units",
                              rung.rung == Rung::kCublasInt8 ? Metric::kOps : Metric::kFlops, {"cuda"});
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext&, const model::CpuSpec&, bool full, std::uint64_t size_override) const override {
    std::vector<int> sizes;
    if (size_override > 0) {
      sizes = {static_cast<int>(size_override)};
    } else if (std::string(rung_.group) == "compute") {
      sizes = {8192};
    } else if (rung_.rung == Rung::kNaive) {
      sizes = full ? std::vector<int>{1024, 2048} : std::vector<int>{1024};
    } else if (IsCublas(rung_.rung)) {
      sizes = full ? std::vector<int>{1024, 2048, 4096, 8192} : std::vector<int>{4096};
    } else {
      sizes = full ? std::vector<int>{1024, 2048, 4096} : std::vector<int>{2048};
    }
    std::vector<BenchCase> cases;
    for (int n : sizes) cases.push_back(BenchCase(fmt::format("n={}", n), static_cast<std::uint64_t>(n), 0, 0, rung_.name));
    return cases;
  }
  // What MatmulInstance::Prepare allocates: A, B and C in fp32, and the rung's own inputs
  // (bf16 or fp16: two n x n halves; int8: two byte matrices and an int32 C) and 16-bit C.
  std::optional<Footprint> FootprintFor(const BackendContext&, const BenchCase& c) const override {
    const double count = static_cast<double>(c.size) * static_cast<double>(c.size);
    double bytes = 3 * 4 * count;
    if (rung_.rung == Rung::kCublasBf16 || rung_.rung == Rung::kCublasFp16) bytes += 2 * 2 * count;
    if (rung_.rung == Rung::kCublasInt8) bytes += 2 * count + 4 * count;
    if (rung_.half_output) bytes += 2 * count;
    Footprint f;
    f.device_bytes = bytes;
    return f;
  }
  Availability Check(const BackendContext& context, const BenchCase& c) const override {
    const auto& ctx = FactsOf(context);
    if (c.size < 1 || c.size > 65536) return Availability::No("the matrix order must be between 1 and 65536");
    if (rung_.rung == Rung::kBlocked && c.size % 64 != 0) return Availability::No("the register-blocked kernel needs n divisible by 64");
    if (rung_.rung == Rung::kCublasInt8 && c.size % 4 != 0) return Availability::No("int8 GEMM needs n divisible by 4");
    if (rung_.rung == Rung::kCublasFp16 || rung_.rung == Rung::kCublasInt8) {
      if (ctx.Figures().cc_major < 7 || (ctx.Figures().cc_major == 7 && ctx.Figures().cc_minor < 5)) {
        return Availability::No(fmt::format("{} needs tensor cores (compute capability 7.5 or newer)", rung_.name));
      }
    } else if (IsTensor(rung_.rung) && ctx.Figures().cc_major < 8) {
      return Availability::No(fmt::format("{} needs tensor cores of compute capability 8.0 or newer", rung_.name));
    }
    if (IsCublas(rung_.rung)) {
      auto api = LoadCublas();
      if (!api.ok()) return Availability::No(api.status().message(), api.status().hint());
    }
    std::uint64_t bytes = 3 * 4 * c.size * c.size * (IsTensor(rung_.rung) ? 2 : 1);
    if (bytes > ctx.FreeBytes()) return Availability::No("the three matrices do not fit in the GPU's free memory");
    return Availability::Yes();
  }
  Work WorkFor(const BenchCase& c) const override {
    Work w = gpu::MatmulWork(c.size);
    if (rung_.rung == Rung::kCublasInt8) std::swap(w.ops, w.flops);  // integer multiply-adds: op/s
    return w;
  }
  PlanEstimate Plan(const PredictionContext& pc, const BenchCase& c) const override {
    PlanEstimate plan = Benchmark::Plan(pc, c);
    const double n = static_cast<double>(c.size);
    // The exact sum of C and C's first row, 64 sampled elements of each check; int8's random
    // output is also summed exactly.
    plan.host_elements = (rung_.rung == Rung::kCublasInt8 ? 4 : 2) * n * n + 3 * 64 * n;
    return plan;
  }
  Prediction Predict(const PredictionContext& pc, const BenchCase&) const override {
    Prediction p;
    const auto* ctx = GpuFactsOf(pc.context);
    if (ctx == nullptr) return p;
    if (IsTensor(rung_.rung)) {
      // The runtime does not report tensor-core peaks; the spec database does, by name.
      const char* dtype = TensorType(rung_.rung);
      const model::GpuSpec* spec = ctx->Spec();
      if (auto peak = spec != nullptr ? model::PeakFlops(*spec, dtype) : std::nullopt) {
        p.value = *peak;
        p.basis = fmt::format("the {}'s dense {} tensor-core peak (spec sheet, at boost clock)", spec->name, dtype);
      } else {
        p.basis = "tensor-core peak: the runtime does not report it and this GPU is not in gpuprobe's spec database";
      }
      return p;
    }
    if (auto peak = model::TheoreticalPeak(ctx->Figures(), "fp32")) {
      p.value = *peak;
      p.basis = "the FP32 peak of the CUDA cores (SMs x lanes x 2 x clock)";
    }
    return p;
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& context, const BenchCase& c) const override {
    auto instance =
        std::make_unique<MatmulInstance>(static_cast<CudaContext&>(context), rung_.rung, static_cast<int>(c.size), rung_.half_output);
    GPUPROBE_RETURN_IF_ERROR(instance->Prepare());
    return std::unique_ptr<BenchmarkInstance>(std::move(instance));
  }

 private:
  const RungInfo& rung_;
  BenchmarkInfo info_;
};

}  // namespace

core::Status MatmulInstance::Prepare() {
  std::uint64_t count = static_cast<std::uint64_t>(n_) * n_;
  cudaError_t e;
  if ((e = a_.Allocate(count)) != cudaSuccess || (e = b_.Allocate(count)) != cudaSuccess || (e = c_.Allocate(count)) != cudaSuccess ||
      (e = total_.Allocate(1)) != cudaSuccess || (e = int_total_.Allocate(1)) != cudaSuccess) {
    return CudaFailed("cudaMalloc", e);
  }
  if (rung_ == Rung::kCublasBf16) {
    if ((e = a16_.Allocate(count)) != cudaSuccess || (e = b16_.Allocate(count)) != cudaSuccess) return CudaFailed("cudaMalloc", e);
  } else if (rung_ == Rung::kCublasFp16) {
    if ((e = ah_.Allocate(count)) != cudaSuccess || (e = bh_.Allocate(count)) != cudaSuccess) return CudaFailed("cudaMalloc", e);
  } else if (rung_ == Rung::kCublasInt8) {
    if ((e = a8_.Allocate(count)) != cudaSuccess || (e = b8_.Allocate(count)) != cudaSuccess || (e = c32_.Allocate(count)) != cudaSuccess) {
      return CudaFailed("cudaMalloc", e);
    }
  }
  if (half_output_ && (e = c16_.Allocate(count)) != cudaSuccess) return CudaFailed("cudaMalloc", e);
  GPUPROBE_RETURN_IF_ERROR(Fill(GemmInputs::kRandom));  // what the timed GEMMs multiply
  if (IsCublas(rung_)) {
    auto api = LoadCublas();
    if (!api.ok()) return api.status();
    api_ = *api;
    GPUPROBE_RETURN_IF_ERROR(handle_.Open(*api_, ctx_.stream()));
  }
  return core::Status::Ok();
}

core::Status MatmulInstance::Fill(GemmInputs inputs) {
  const std::uint64_t count = static_cast<std::uint64_t>(n_) * n_;
  const int random = inputs == GemmInputs::kRandom ? static_cast<int>(InputType()) : -1;
  const unsigned long long probe_n = inputs == GemmInputs::kExact && Probed() ? static_cast<unsigned long long>(n_) : 0;
  gpu::LaunchGeometry g = Geometry(ctx_, count, 1);
  FillMatmulKernel<<<g.blocks, g.threads, 0, ctx_.stream()>>>(a_.get(), count, gpu::kSeedA, random, probe_n);
  FillMatmulKernel<<<g.blocks, g.threads, 0, ctx_.stream()>>>(b_.get(), count, gpu::kSeedB, random, 0);
  // Every value is exact in the rung's type: the conversions round nothing.
  if (rung_ == Rung::kCublasBf16) {
    ToBf16Kernel<<<g.blocks, g.threads, 0, ctx_.stream()>>>(a_.get(), a16_.get(), count);
    ToBf16Kernel<<<g.blocks, g.threads, 0, ctx_.stream()>>>(b_.get(), b16_.get(), count);
  } else if (rung_ == Rung::kCublasFp16) {
    ToFp16Kernel<<<g.blocks, g.threads, 0, ctx_.stream()>>>(a_.get(), ah_.get(), count);
    ToFp16Kernel<<<g.blocks, g.threads, 0, ctx_.stream()>>>(b_.get(), bh_.get(), count);
  } else if (rung_ == Rung::kCublasInt8) {
    ToInt8Kernel<<<g.blocks, g.threads, 0, ctx_.stream()>>>(a_.get(), a8_.get(), count);
    ToInt8Kernel<<<g.blocks, g.threads, 0, ctx_.stream()>>>(b_.get(), b8_.get(), count);
  }
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaStreamSynchronize(ctx_.stream());
  if (e != cudaSuccess) return CudaFailed("filling the matrices", e);
  return core::Status::Ok();
}

gpu::GemmInput MatmulInstance::InputType() const {
  switch (rung_) {
    case Rung::kCublasTf32: return gpu::GemmInput::kTf32;
    case Rung::kCublasBf16: return gpu::GemmInput::kBf16;
    case Rung::kCublasFp16: return gpu::GemmInput::kFp16;
    case Rung::kCublasInt8: return gpu::GemmInput::kInt8;
    default: return gpu::GemmInput::kFp32;
  }
}

gpu::GemmNumerics MatmulInstance::Numerics() const {
  if (rung_ == Rung::kCublasInt8) return gpu::GemmNumericsOf(gpu::GemmInput::kInt8, gpu::GemmAccumulate::kInt32, gpu::GemmOutput::kInt32);
  gpu::GemmOutput out = !half_output_ ? gpu::GemmOutput::kFp32 : rung_ == Rung::kCublasBf16 ? gpu::GemmOutput::kBf16 : gpu::GemmOutput::kFp16;
  return gpu::GemmNumericsOf(InputType(), gpu::GemmAccumulate::kFp32, out);
}

cudaError_t MatmulInstance::Enqueue(cudaStream_t s) {
  const float alpha = 1.0f, beta = 0.0f;
  // Row-major C = A x B is column-major C^T = B^T x A^T: pass B first.
  switch (rung_) {
    case Rung::kNaive: {
      dim3 block(32, 8), grid((n_ + 31) / 32, (n_ + 7) / 8);
      NaiveKernel<<<grid, block, 0, s>>>(a_.get(), b_.get(), c_.get(), n_);
      return cudaGetLastError();
    }
    case Rung::kCoalesced: {
      dim3 block(32, 8), grid((n_ + 31) / 32, (n_ + 7) / 8);
      CoalescedKernel<<<grid, block, 0, s>>>(a_.get(), b_.get(), c_.get(), n_);
      return cudaGetLastError();
    }
    case Rung::kTiled: {
      dim3 block(kTile, kTile), grid((n_ + kTile - 1) / kTile, (n_ + kTile - 1) / kTile);
      TiledKernel<<<grid, block, 0, s>>>(a_.get(), b_.get(), c_.get(), n_);
      return cudaGetLastError();
    }
    case Rung::kBlocked: {
      dim3 grid(n_ / kBn, n_ / kBm);
      BlockedKernel<<<grid, kBlockedThreads, 0, s>>>(a_.get(), b_.get(), c_.get(), n_);
      return cudaGetLastError();
    }
    case Rung::kCublasFp32:
      return Check(api_->sgemm(handle_.get(), CUBLAS_OP_N, CUBLAS_OP_N, n_, n_, n_, &alpha, b_.get(), n_, a_.get(), n_, &beta, c_.get(), n_));
    case Rung::kCublasTf32:
      return Check(api_->gemm_ex(handle_.get(), CUBLAS_OP_N, CUBLAS_OP_N, n_, n_, n_, &alpha, b_.get(), CUDA_R_32F, n_, a_.get(),
                                 CUDA_R_32F, n_, &beta, c_.get(), CUDA_R_32F, n_, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
    case Rung::kCublasBf16:
    case Rung::kCublasFp16: {
      const bool bf16 = rung_ == Rung::kCublasBf16;
      const cudaDataType in_type = bf16 ? CUDA_R_16BF : CUDA_R_16F;
      const void* a = bf16 ? static_cast<const void*>(a16_.get()) : ah_.get();
      const void* b = bf16 ? static_cast<const void*>(b16_.get()) : bh_.get();
      // fp32 accumulate either way; C in fp32 (exact, the ladder) or in the input type.
      const bool sixteen = half_output_ && !half_reference_;
      void* c = sixteen ? static_cast<void*>(c16_.get()) : c_.get();
      return Check(api_->gemm_ex(handle_.get(), CUBLAS_OP_N, CUBLAS_OP_N, n_, n_, n_, &alpha, b, in_type, n_, a, in_type, n_, &beta, c,
                                 sixteen ? in_type : CUDA_R_32F, n_, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    }
    case Rung::kCublasInt8: {
      // cuBLAS runs int8 on its IMMA kernels only as "TN" (A transposed, B not; leading
      // dimensions and m, k multiples of 4); NN may fail or take a slow path. Row-major A's
      // buffer reads as A^T and OP_T turns it back; B's reads as B^T: D = A x B^T, column-major.
      const int ialpha = 1, ibeta = 0;
      return Check(api_->gemm_ex(handle_.get(), CUBLAS_OP_T, CUBLAS_OP_N, n_, n_, n_, &ialpha, a8_.get(), CUDA_R_8I, n_, b8_.get(),
                                 CUDA_R_8I, n_, &ibeta, c32_.get(), CUDA_R_32I, n_, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
    }
  }
  return cudaErrorInvalidValue;
}

core::Result<double> MatmulInstance::RunOnce() {
  auto enqueue = [this](cudaStream_t s) { return Enqueue(s); };
  if (reps_ == 0) {
    auto reps = ctx_.CalibrateReps(enqueue);
    if (!reps.ok()) return blas_error_.empty() ? reps.status() : core::Status::Internal(blas_error_);
    reps_ = *reps;
  }
  auto t = ctx_.TimeQueued(reps_, enqueue);
  if (!t.ok() && !blas_error_.empty()) return core::Status::Internal(blas_error_);
  return t;
}

std::string MatmulInstance::Note() const {
  double working_set = 3.0 * 4 * n_ * static_cast<double>(n_);
  const char* inputs = rung_ == Rung::kCublasInt8 ? "timed on random int8 inputs" : "timed on random inputs, every mantissa bit random";
  return fmt::format("working set {} vs L2 {}; {} (the exact-integer GEMM checked after)", core::FormatBytesBinary(working_set),
                     core::FormatBytesBinary(static_cast<double>(ctx_.Figures().l2_bytes)), inputs);
}

cudaError_t MatmulInstance::Check(cublasStatus_t s) {
  if (s == CUBLAS_STATUS_SUCCESS) return cudaSuccess;
  blas_error_ = fmt::format("cuBLAS returned status {}", static_cast<int>(s));
  return cudaErrorUnknown;
}

void RegisterCudaMatmulBenchmarks(BenchmarkRegistry* registry) {
  for (const auto& rung : kRungs) registry->Add(std::make_unique<GpuMatmulBenchmark>(rung));
}

void RegisterCudaTensorBenchmarks(BenchmarkRegistry* registry) {
  for (const auto& rung : kTensorPeaks) registry->Add(std::make_unique<GpuMatmulBenchmark>(rung));
}

}  // namespace gpuprobe::bench
