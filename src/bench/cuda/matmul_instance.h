// One GEMM of the matmul ladder on the GPU (SIMT kernels or cuBLAS), prepared on a context and
// checked: the matmul and compute suites time it, the burn runs it back to back.
// The timed GEMMs multiply random values with every mantissa bit of their type random
// (gpu::GemmRandomValue: what real data switches, and what the anchors were measured on),
// checked against the host's reference within the formats' tolerance; after the timing, the
// same GEMM runs once more on small integers (gpu::MatmulValue), where every rung must give
// the exact product, and is checked exactly. Only files in bench/cuda/ include this header
// (it needs the CUDA types).
//
// Thread safety: an instance belongs to the thread of its context.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <optional>
#include <string>

#include "bench/benchmark.h"
#include "bench/cuda/cublas_loader.h"
#include "bench/cuda/cuda_context.h"

namespace gpuprobe::bench {

enum class Rung { kNaive, kCoalesced, kTiled, kBlocked, kCublasFp32, kCublasTf32, kCublasBf16, kCublasFp16, kCublasInt8 };

/// The rungs that call cuBLAS, and those on tensor cores.
inline bool IsCublas(Rung r) { return r >= Rung::kCublasFp32; }
inline bool IsTensor(Rung r) { return r >= Rung::kCublasTf32; }

/// The data a GEMM multiplies: random values with full mantissas (timed) or small integers
/// (the exact check).
enum class GemmInputs { kRandom, kExact };

/// Counts on the device the elements of an output that are not finite or whose magnitude
/// exceeds `bound` (gpu::GemmOutputBound), synchronising. 16-bit outputs are bf16 or fp16.
core::Result<std::uint64_t> CountBeyondBound(const CudaContext& ctx, const float* c, std::uint64_t count, double bound);
core::Result<std::uint64_t> CountBeyondBound(const CudaContext& ctx, const unsigned short* c, std::uint64_t count, bool bf16,
                                             double bound);
core::Result<std::uint64_t> CountBeyondBound(const CudaContext& ctx, const int* c, std::uint64_t count, double bound);

/// The sampled output positions of the checks: 0 and the last element, then scattered ones.
std::uint64_t GemmSampleIndex(int s, std::uint64_t n);

class MatmulInstance : public BenchmarkInstance {
 public:
  /// `half_output`: the fp16 and bf16 rungs write C in their input type (as torch.mm does)
  /// instead of fp32; on the exact inputs checked against the same GEMM with fp32 output
  /// (exact) rounded once.
  MatmulInstance(CudaContext& ctx, Rung rung, int n, bool half_output = false)
      : ctx_(ctx), rung_(rung), n_(n), half_output_(half_output && (rung == Rung::kCublasBf16 || rung == Rung::kCublasFp16)) {}

  /// Allocates A and B (and their low-precision copies), fills them with the random inputs,
  /// opens cuBLAS where the rung needs it; Unavailable when cuBLAS cannot be loaded.
  core::Status Prepare();
  /// Queues one GEMM on `s`; a cuBLAS failure is kept for RunOnce's message.
  cudaError_t Enqueue(cudaStream_t s);
  core::Result<double> RunOnce() override;
  /// The last GEMM's output (random inputs) against the host's reference: every element
  /// finite and within gpu::GemmOutputBound (on the device), 64 sampled elements within
  /// gpu::GemmTolerance (int8: exact, and the exact sum of every element).
  Verification VerifyRandom();
  /// VerifyRandom on the timed output, then the exact-integer GEMM (untimed) and its exact
  /// checks; the random inputs are put back afterwards.
  Verification Verify() override;
  bool CorruptForTest() override;
  std::string Note() const override;

  /// Queues, behind the GEMM on `s`, the output's fingerprint into *sum: the sum modulo 2^64
  /// of its 32-bit words (exact and independent of the order of the additions, so the same
  /// output always gives the same fingerprint). No host wait.
  cudaError_t EnqueueFingerprint(cudaStream_t s, unsigned long long* sum);
  /// EnqueueFingerprint into *scratch, then one is added to *errors on the device when it
  /// differs from *reference. No host wait.
  cudaError_t EnqueueFingerprintCheck(cudaStream_t s, const unsigned long long* reference, unsigned long long* scratch,
                                      unsigned long long* errors);
  /// The input type of the timed GEMM (its random values' type).
  gpu::GemmInput InputType() const;
  gpu::GemmNumerics Numerics() const;

 private:
  cudaError_t Check(cublasStatus_t s);
  /// Fills A and B with `inputs` (the exact inputs of the fp32 rungs carry the TF32 probe,
  /// gpu::MatmulProbedValue) and converts them to the rung's type; synchronises.
  core::Status Fill(GemmInputs inputs);
  /// The exact checks of an fp32 (or int32) C on the exact inputs: C's first row (the
  /// probe's) element by element, the sum of every other element and 64 samples.
  Verification VerifyExact();
  /// The 16-bit output on the exact inputs against the fp32-output GEMM, rounded once.
  Verification VerifyHalf();
  /// The sum of C's elements from index n on, on the device, synchronising (exact: |c| <= 4n).
  core::Result<double> DeviceTotalBeyondFirstRow();
  /// Writes an impossible value into the middle of the output (CorruptForTest, and again
  /// after the exact GEMM overwrote it).
  bool Damage();
  /// The int8 rung runs TN and computes D = A x B^T (gpu::MatmulExpectedAt).
  bool TransposedB() const { return rung_ == Rung::kCublasInt8; }
  /// The fp32 rungs' exact check carries the TF32 probe.
  bool Probed() const { return rung_ <= Rung::kCublasFp32; }

  CudaContext& ctx_;
  Rung rung_;
  int n_;
  bool half_output_;
  bool half_reference_ = false;  // Enqueue writes fp32 C, for VerifyHalf's reference
  bool corrupted_ = false;       // CorruptForTest was called: damage every output checked
  DeviceArray<float> a_, b_, c_;
  DeviceArray<unsigned short> c16_;  // the 16-bit C of half_output_
  DeviceArray<__nv_bfloat16> a16_, b16_;
  DeviceArray<__half> ah_, bh_;
  DeviceArray<signed char> a8_, b8_;
  DeviceArray<int> c32_;
  DeviceArray<double> total_;
  DeviceArray<unsigned long long> int_total_;
  const CublasApi* api_ = nullptr;
  CublasHandle handle_;
  std::string blas_error_;
  int reps_ = 0;
  std::optional<double> expected_total_;  // O(n^2) on the host: once per instance
};

}  // namespace gpuprobe::bench
