// One GEMM of the matmul ladder on the GPU (SIMT kernels or cuBLAS), prepared on a context and
// checked exactly: the matmul and compute suites time it, the burn runs it back to back.
// Inputs are small integers (gpu::MatmulValue), so every rung must give the same product.
// Only files in bench/cuda/ include this header (it needs the CUDA types).
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

class MatmulInstance : public BenchmarkInstance {
 public:
  /// `half_output`: the fp16 and bf16 rungs write C in their input type (as torch.mm does)
  /// instead of fp32; checked against the same GEMM with fp32 output (exact) rounded once.
  MatmulInstance(CudaContext& ctx, Rung rung, int n, bool half_output = false)
      : ctx_(ctx), rung_(rung), n_(n), half_output_(half_output && (rung == Rung::kCublasBf16 || rung == Rung::kCublasFp16)) {}

  /// Allocates and fills A and B (and their low-precision copies), opens cuBLAS where the
  /// rung needs it; Unavailable when cuBLAS cannot be loaded.
  core::Status Prepare();
  /// Queues one GEMM on `s`; a cuBLAS failure is kept for RunOnce's message.
  cudaError_t Enqueue(cudaStream_t s);
  core::Result<double> RunOnce() override;
  /// The sum of every element of C, on the device, synchronising (exact: |c| <= 4n).
  core::Result<double> DeviceTotal();
  /// The exact sum of C, computed on the host once (O(n^2)).
  double ExpectedTotal();
  /// Queues, behind the GEMM on `s`, the sum of C and its comparison with ExpectedTotal()
  /// (call it once before): a wrong sum adds one to *errors on the device. No host wait.
  cudaError_t EnqueueCheck(cudaStream_t s, unsigned long long* errors);
  Verification Verify() override;
  bool CorruptForTest() override;
  std::string Note() const override;

 private:
  cudaError_t Check(cublasStatus_t s);
  /// The exact checks of an fp32 (or int32) C: the sum of all elements and 64 samples.
  Verification VerifyExact();
  /// The int8 rung runs TN and computes D = A x B^T (gpu::MatmulExpectedAt).
  bool TransposedB() const { return rung_ == Rung::kCublasInt8; }

  CudaContext& ctx_;
  Rung rung_;
  int n_;
  bool half_output_;
  bool half_reference_ = false;  // Enqueue writes fp32 C, for Verify's reference
  DeviceArray<float> a_, b_, c_;
  DeviceArray<unsigned short> c16_;  // the 16-bit C of half_output_
  DeviceArray<__nv_bfloat16> a16_, b16_;
  DeviceArray<__half> ah_, bh_;
  DeviceArray<signed char> a8_, b8_;
  DeviceArray<int> c32_;
  DeviceArray<double> total_;
  const CublasApi* api_ = nullptr;
  CublasHandle handle_;
  std::string blas_error_;
  int reps_ = 0;
  std::optional<double> expected_total_;  // O(n^2) on the host: once per instance
};

}  // namespace gpuprobe::bench
