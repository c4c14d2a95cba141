// The fp8 tensor-core peak (Ada and Hopper: compute capability 8.9 and newer) through
// cuBLASLt, which is what fp8 GEMMs need. cuBLASLt wants fp8's A transposed, so from the
// row-major buffers it computes D = A x B^T, output fp32. The timed GEMMs multiply random
// e4m3 values (every mantissa bit random, gpu::GemmRandomValue), checked within the
// tolerance of the fp8 accumulator (gpu::GemmTolerance); then the GEMM runs once on integers
// in [-2, 2] (exact in e4m3), where the result is exact and checked like every other GEMM.
// Two cases, the accumulation mode set explicitly in both: fast accumulation (the tensor
// cores' own accumulator for the whole sum: what peak figures and inference use) and the
// library's default, which promotes partial sums to fp32 on the CUDA cores every few steps
// and is slower on Hopper. With the integer inputs every partial sum is an integer far below
// 2^13, so both stay exact.
#include <cuda_fp8.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include <fmt/format.h>

#include "bench/cuda/cublas_loader.h"
#include "bench/cuda/cuda_context.h"
#include "bench/cuda/matmul_instance.h"
#include "bench/registry.h"
#include "model/spec_derivation.h"

namespace gpuprobe::bench {
namespace {

constexpr size_t kWorkspaceBytes = 32ull << 20;

// Random e4m3 values (exact: 3 mantissa bits), or the exact check's integers.
__global__ void FillFp8Kernel(__nv_fp8_e4m3* m, unsigned long long count, unsigned int seed, bool random) {
  unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < count; i += stride) {
    m[i] = __nv_fp8_e4m3(random ? gpu::GemmRandomValue(i, seed, gpu::GemmInput::kFp8E4M3) : gpu::MatmulValue(i, seed));
  }
}

__global__ void SumFloatKernel(const float* c, unsigned long long count, double* total) {
  unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  double sum = 0;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < count; i += stride) sum += c[i];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if ((threadIdx.x & 31) == 0) atomicAdd(total, sum);
}

class Fp8Instance : public BenchmarkInstance {
 public:
  Fp8Instance(CudaContext& ctx, const CublasLtApi& api, int n, bool fast_accumulation)
      : ctx_(ctx), api_(api), n_(n), fast_accumulation_(fast_accumulation) {}
  ~Fp8Instance() override {
    if (pref_ != nullptr) api_.pref_destroy(pref_);
    for (auto layout : {a_desc_, b_desc_, d_desc_}) {
      if (layout != nullptr) api_.layout_destroy(layout);
    }
    if (op_ != nullptr) api_.desc_destroy(op_);
    if (lt_ != nullptr) api_.destroy(lt_);
  }

  core::Status Prepare() {
    std::uint64_t count = static_cast<std::uint64_t>(n_) * n_;
    cudaError_t e;
    if ((e = a_.Allocate(count)) != cudaSuccess || (e = b_.Allocate(count)) != cudaSuccess || (e = d_.Allocate(count)) != cudaSuccess ||
        (e = total_.Allocate(1)) != cudaSuccess || (e = workspace_.Allocate(kWorkspaceBytes)) != cudaSuccess) {
      return CudaFailed("cudaMalloc", e);
    }
    GPUPROBE_RETURN_IF_ERROR(Fill(GemmInputs::kRandom));  // what the timed GEMMs multiply
    const std::uint64_t n = static_cast<std::uint64_t>(n_);
    const cublasOperation_t transpose = CUBLAS_OP_T, none = CUBLAS_OP_N;
    const std::int8_t fast_accum = fast_accumulation_ ? 1 : 0;
    bool ok = api_.create(&lt_) == CUBLAS_STATUS_SUCCESS && api_.desc_create(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F) == CUBLAS_STATUS_SUCCESS &&
              api_.desc_set(op_, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose) == CUBLAS_STATUS_SUCCESS &&
              api_.desc_set(op_, CUBLASLT_MATMUL_DESC_TRANSB, &none, sizeof none) == CUBLAS_STATUS_SUCCESS &&
              api_.desc_set(op_, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast_accum, sizeof fast_accum) == CUBLAS_STATUS_SUCCESS &&
              api_.layout_create(&a_desc_, CUDA_R_8F_E4M3, n, n, n_) == CUBLAS_STATUS_SUCCESS &&
              api_.layout_create(&b_desc_, CUDA_R_8F_E4M3, n, n, n_) == CUBLAS_STATUS_SUCCESS &&
              api_.layout_create(&d_desc_, CUDA_R_32F, n, n, n_) == CUBLAS_STATUS_SUCCESS && api_.pref_create(&pref_) == CUBLAS_STATUS_SUCCESS &&
              api_.pref_set(pref_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &kWorkspaceBytes, sizeof kWorkspaceBytes) == CUBLAS_STATUS_SUCCESS;
    if (!ok) return core::Status::Internal("setting up the cuBLASLt fp8 GEMM failed");
    int found = 0;
    cublasLtMatmulHeuristicResult_t result{};
    if (api_.heuristic(lt_, op_, a_desc_, b_desc_, d_desc_, d_desc_, pref_, 1, &result, &found) != CUBLAS_STATUS_SUCCESS || found == 0) {
      return core::Status::Unavailable("cuBLASLt offers no fp8 GEMM with fp32 output on this GPU");
    }
    algo_ = result.algo;
    return core::Status::Ok();
  }

  cudaError_t Enqueue(cudaStream_t s) {
    const float alpha = 1, beta = 0;
    // cuBLASLt is column-major: row-major A's buffer reads as A^T, and TRANSA turns it back
    // into A; B's buffer reads as B^T and is used as it is. So D = A x B^T, column-major.
    cublasStatus_t st = api_.matmul(lt_, op_, &alpha, a_.get(), a_desc_, b_.get(), b_desc_, &beta, d_.get(), d_desc_, d_.get(), d_desc_,
                                    &algo_, workspace_.get(), kWorkspaceBytes, s);
    if (st != CUBLAS_STATUS_SUCCESS) {
      error_ = fmt::format("cublasLtMatmul returned status {}", static_cast<int>(st));
      return cudaErrorUnknown;
    }
    return cudaSuccess;
  }

  core::Result<double> RunOnce() override {
    auto t = ctx_.TimeCalibrated(&reps_, [this](cudaStream_t s) { return Enqueue(s); });
    if (!t.ok() && !error_.empty()) return core::Status::Internal(error_);
    return t;
  }

  // The timed output (random inputs) within the fp8 accumulator's tolerance, then the
  // exact-integer GEMM, untimed, checked exactly.
  Verification Verify() override {
    Verification random = VerifyRandom();
    Verification exact;
    core::Status filled = Fill(GemmInputs::kExact);
    cudaError_t e = filled.ok() ? Enqueue(ctx_.stream()) : cudaErrorInvalidValue;
    if (e == cudaSuccess) e = cudaStreamSynchronize(ctx_.stream());
    if (!filled.ok()) {
      exact.detail = filled.message();
    } else if (e != cudaSuccess) {
      exact.detail = error_.empty() ? CudaFailed("the exact-integer fp8 GEMM", e).message() : error_;
    } else {
      if (corrupted_) Damage();
      exact = VerifyExact();
    }
    // Random inputs again, and their product in D, for a later timed run or Verify.
    core::Status filled_again = Fill(GemmInputs::kRandom);
    cudaError_t again = filled_again.ok() ? Enqueue(ctx_.stream()) : cudaSuccess;
    if (filled_again.ok() && again == cudaSuccess) again = cudaStreamSynchronize(ctx_.stream());
    const std::string restore_error = !filled_again.ok()    ? filled_again.message()
                                      : again != cudaSuccess ? CudaFailed("the fp8 GEMM on the random inputs again", again).message()
                                                             : std::string();
    Verification v;
    v.checksum = exact.checksum;
    v.verified = random.verified && exact.verified && restore_error.empty();
    v.detail = !random.verified          ? random.detail + "; " + exact.detail
               : !restore_error.empty() ? restore_error
                                        : exact.detail + "; " + random.detail;
    return v;
  }

  bool CorruptForTest() override {
    corrupted_ = true;
    return Damage();
  }

 private:
  core::Status Fill(GemmInputs inputs) {
    const std::uint64_t count = static_cast<std::uint64_t>(n_) * n_;
    const bool random = inputs == GemmInputs::kRandom;
    gpu::LaunchGeometry g = Geometry(ctx_, count, 1);
    FillFp8Kernel<<<g.blocks, g.threads, 0, ctx_.stream()>>>(a_.get(), count, gpu::kSeedA, random);
    FillFp8Kernel<<<g.blocks, g.threads, 0, ctx_.stream()>>>(b_.get(), count, gpu::kSeedB, random);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaStreamSynchronize(ctx_.stream());
    if (e != cudaSuccess) return CudaFailed("filling the fp8 matrices", e);
    return core::Status::Ok();
  }

  // Both modes accumulate inside the tensor cores with the fp8 accumulator's precision (the
  // default promotes partial sums to fp32 only every few steps): the fast unit for both.
  Verification VerifyRandom() {
    Verification v;
    const std::uint64_t n = static_cast<std::uint64_t>(n_), count = n * n;
    const gpu::GemmNumerics numerics = gpu::GemmNumericsOf(gpu::GemmInput::kFp8E4M3, gpu::GemmAccumulate::kFp8Fast, gpu::GemmOutput::kFp32);
    const double bound = gpu::GemmOutputBound(numerics, gpu::GemmInput::kFp8E4M3, n);
    auto beyond = CountBeyondBound(ctx_, d_.get(), count, bound);
    if (!beyond.ok()) {
      v.detail = beyond.status().message();
      return v;
    }
    int off = 0;
    double worst = 0;
    for (int s = 0; s < 32; ++s) {
      const std::uint64_t index = GemmSampleIndex(s, n);
      float got = 0;
      cudaError_t e = cudaMemcpy(&got, d_.get() + index, sizeof got, cudaMemcpyDeviceToHost);
      const gpu::GemmReference want = gpu::GemmRandomExpectedAt(gpu::GemmInput::kFp8E4M3, n, index, true);
      const double tolerance = gpu::GemmTolerance(numerics, n, want.value, want.abs_sum);
      const double error = std::fabs(static_cast<double>(got) - want.value);
      if (e != cudaSuccess || !(error <= tolerance)) ++off;
      if (tolerance > 0) worst = std::max(worst, error / tolerance);
    }
    v.verified = *beyond == 0 && off == 0;
    v.detail = v.verified ? fmt::format("on random e4m3 inputs: every element finite and in range, 32 sampled elements within the "
                                        "fp8 accumulator's tolerance (largest error {:.2g} of it)", worst)
                          : fmt::format("on random e4m3 inputs: {} of {} elements not finite or beyond {:.6g}, {} of 32 sampled elements "
                                        "outside the tolerance", *beyond, count, bound, off);
    return v;
  }

  bool Damage() {
    float wrong = 1e30f;
    return cudaMemcpy(d_.get() + static_cast<std::uint64_t>(n_) * n_ / 2, &wrong, sizeof wrong, cudaMemcpyHostToDevice) == cudaSuccess;
  }

  Verification VerifyExact() {
    Verification v;
    std::uint64_t count = static_cast<std::uint64_t>(n_) * n_;
    gpu::LaunchGeometry g = Geometry(ctx_, count, 1);
    cudaError_t e = cudaMemsetAsync(total_.get(), 0, sizeof(double), ctx_.stream());
    if (e == cudaSuccess) {
      SumFloatKernel<<<g.blocks, g.threads, 0, ctx_.stream()>>>(d_.get(), count, total_.get());
      e = cudaGetLastError();
    }
    double total = 0;
    if (e == cudaSuccess) e = cudaMemcpyAsync(&total, total_.get(), sizeof total, cudaMemcpyDeviceToHost, ctx_.stream());
    if (e == cudaSuccess) e = cudaStreamSynchronize(ctx_.stream());
    if (e != cudaSuccess) {
      v.detail = CudaFailed("verifying", e).message();
      return v;
    }
    const std::uint64_t n = static_cast<std::uint64_t>(n_);
    int bad = 0;
    for (int s = 0; s < 32; ++s) {
      std::uint64_t i = (static_cast<std::uint64_t>(s) * 2654435761u) % n, j = (static_cast<std::uint64_t>(s) * 40503u + 5) % n;
      float got = 0;
      // Column-major D: element (i, j) at i + j * n.
      if (cudaMemcpy(&got, d_.get() + i + j * n, sizeof got, cudaMemcpyDeviceToHost) != cudaSuccess) ++bad;
      if (static_cast<double>(got) != gpu::MatmulAbtElement(n, i, j)) ++bad;
    }
    if (!expected_total_) expected_total_ = gpu::MatmulAbtTotal(n);
    v.checksum = *expected_total_;
    v.verified = bad == 0 && total == *expected_total_;
    v.detail = v.verified ? fmt::format("exact-integer GEMM: 32 sampled elements and the sum of all elements exact ({})",
                                        fast_accumulation_ ? "fast accumulation" : "fp32 promotion")
                          : fmt::format("exact-integer GEMM: {} sampled elements wrong; sum {} instead of {}", bad, total, *expected_total_);
    return v;
  }

  CudaContext& ctx_;
  const CublasLtApi& api_;
  int n_;
  bool fast_accumulation_;
  DeviceArray<__nv_fp8_e4m3> a_, b_;
  DeviceArray<float> d_;
  DeviceArray<double> total_;
  DeviceArray<unsigned char> workspace_;
  cublasLtHandle_t lt_ = nullptr;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t a_desc_ = nullptr, b_desc_ = nullptr, d_desc_ = nullptr;
  cublasLtMatmulPreference_t pref_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  std::string error_;
  std::optional<double> expected_total_;
  int reps_ = 0;
  bool corrupted_ = false;  // CorruptForTest was called: damage the exact GEMM's output too
};

class Fp8Benchmark : public Benchmark {
 public:
  Fp8Benchmark() {
    info_ = MakeBenchmarkInfo("compute", "tensor_fp8", "tensor_fp8",
                              "tensor-core peak: cuBLASLt GEMM n=8192, fp8 (e4m3) inputs, fp32 output, fast accumulation and fp32 "
                              "promotion (FLOP/s)",
                              "tensor cores multiply small matrices per instruction: an order of magnitude beyond the CUDA cores, "
                              "for the input types they support",
                              Metric::kFlops, {"cuda"});
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext&, const model::CpuSpec&, bool, std::uint64_t size_override) const override {
    std::uint64_t n = size_override > 0 ? size_override : 8192;
    return {BenchCase(fmt::format("n={}, fast accumulation", n), n, 0, 1, "fast_accumulation"),
            BenchCase(fmt::format("n={}, fp32 promotion", n), n, 0, 0, "fp32_promotion")};
  }
  Availability Check(const BackendContext& context, const BenchCase& c) const override {
    const auto& f = FactsOf(context).Figures();
    if (f.cc_major < 8 || (f.cc_major == 8 && f.cc_minor < 9)) {
      return Availability::No("fp8 tensor cores need compute capability 8.9 (Ada) or newer");
    }
    if (c.size % 16 != 0) return Availability::No("fp8 GEMMs need n divisible by 16");
    auto api = LoadCublasLt();
    if (!api.ok()) return Availability::No(api.status().message(), api.status().hint());
    return Availability::Yes();
  }
  Work WorkFor(const BenchCase& c) const override {
    Work w = gpu::MatmulWork(c.size);
    w.bytes_read /= 4;  // one byte per input element
    return w;
  }
  PlanEstimate Plan(const PredictionContext& pc, const BenchCase& c) const override {
    PlanEstimate plan = Benchmark::Plan(pc, c);
    const double n = static_cast<double>(c.size);
    plan.host_elements = 2 * n * n + 2 * 32 * n;  // the exact sum of D and 32 sampled elements of each check
    return plan;
  }
  Prediction Predict(const PredictionContext& pc, const BenchCase&) const override {
    Prediction p;
    const auto* facts = GpuFactsOf(pc.context);
    const model::GpuSpec* spec = facts != nullptr ? facts->Spec() : nullptr;
    if (auto peak = spec != nullptr ? model::PeakFlops(*spec, "fp8") : std::nullopt) {
      p.value = *peak;
      p.basis = fmt::format("the {}'s dense fp8 tensor-core peak (spec sheet, at boost clock)", spec->name);
    } else {
      p.basis = "tensor-core peak: the runtime does not report it and this GPU is not in gpuprobe's spec database";
    }
    return p;
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& context, const BenchCase& c) const override {
    auto api = LoadCublasLt();
    if (!api.ok()) return api.status();
    auto instance = std::make_unique<Fp8Instance>(static_cast<CudaContext&>(context), **api, static_cast<int>(c.size), c.param > 0);
    GPUPROBE_RETURN_IF_ERROR(instance->Prepare());
    return std::unique_ptr<BenchmarkInstance>(std::move(instance));
  }

 private:
  BenchmarkInfo info_;
};

}  // namespace

void RegisterCudaFp8Benchmarks(BenchmarkRegistry* registry) { registry->Add(std::make_unique<Fp8Benchmark>()); }

}  // namespace gpuprobe::bench
