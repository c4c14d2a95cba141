// cuBLAS reached with dlopen: the binary starts where cuBLAS is not installed, and the
// benchmarks that need it say so and are skipped. The header gives the types only; nothing
// links against libcublas.
//
// Thread safety: Load() may be called from any thread; the table is immutable afterwards.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>

#include <memory>
#include <string>
#include <vector>

#include "core/dynamic_library.h"
#include "core/status.h"

namespace gpuprobe::bench {

/// cublasGemmEx as the library exports it (C++ sees an overload set, so spell the type out).
using CublasGemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                                          const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                                          cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);

struct CublasApi {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSetMathMode) set_math_mode = nullptr;
  decltype(&cublasSgemm_v2) sgemm = nullptr;
  CublasGemmExFn gemm_ex = nullptr;
  const core::DynamicLibrary* library = nullptr;  ///< loaded once, never closed (see LoadCublas)
};

/// What dlopen tries for `stem` ("libcublas"): the sonames (found through the loader's
/// paths), then the same names in `toolkit_lib_dir` (the toolkit's library directory recorded
/// at configure time; empty: none), for a runfile install without an ld.so.conf entry.
std::vector<std::string> CublasCandidates(const std::string& stem, const std::string& toolkit_lib_dir);

/// The toolkit library directory this build was configured with ("" when unknown).
std::string ConfiguredCudaLibraryDir();

/// The process-wide table, loaded on first use; Unavailable naming the library when it is
/// missing or lacks a symbol. The library stays loaded until the process ends: unloading
/// cuBLAS at exit runs its teardown after the statically linked CUDA runtime may already have
/// shut down (a crash or a CUDA error at exit), so it is never closed.
core::Result<const CublasApi*> LoadCublas();

/// cuBLASLt, for what plain cuBLAS does not offer (fp8 GEMMs), loaded the same way.
struct CublasLtApi {
  decltype(&cublasLtCreate) create = nullptr;
  decltype(&cublasLtDestroy) destroy = nullptr;
  decltype(&cublasLtMatmulDescCreate) desc_create = nullptr;
  decltype(&cublasLtMatmulDescDestroy) desc_destroy = nullptr;
  decltype(&cublasLtMatmulDescSetAttribute) desc_set = nullptr;
  decltype(&cublasLtMatrixLayoutCreate) layout_create = nullptr;
  decltype(&cublasLtMatrixLayoutDestroy) layout_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceCreate) pref_create = nullptr;
  decltype(&cublasLtMatmulPreferenceDestroy) pref_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceSetAttribute) pref_set = nullptr;
  decltype(&cublasLtMatmulAlgoGetHeuristic) heuristic = nullptr;
  decltype(&cublasLtMatmul) matmul = nullptr;
  const core::DynamicLibrary* library = nullptr;  ///< loaded once, never closed
};

/// The process-wide cuBLASLt table; Unavailable naming the library when it is missing.
core::Result<const CublasLtApi*> LoadCublasLt();

/// One cuBLAS handle bound to a stream, destroyed on every path.
class CublasHandle {
 public:
  ~CublasHandle();
  core::Status Open(const CublasApi& api, cudaStream_t stream);
  cublasHandle_t get() const { return handle_; }

 private:
  const CublasApi* api_ = nullptr;
  cublasHandle_t handle_ = nullptr;
};

}  // namespace gpuprobe::bench
