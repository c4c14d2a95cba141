#include "bench/cuda/cublas_loader.h"

#include <mutex>

#include <fmt/format.h>

namespace gpuprobe::bench {
namespace {

template <typename F>
bool Bind(const core::DynamicLibrary& lib, const char* name, F* out) {
  *out = reinterpret_cast<F>(lib.Symbol(name));
  return *out != nullptr;
}

core::Result<const CublasApi*> LoadOnce() {
  auto lib = core::DynamicLibrary::Open(CublasCandidates("libcublas", ConfiguredCudaLibraryDir()));
  if (!lib.ok()) {
    return core::Status::Unavailable("cuBLAS is not installed (libcublas.so cannot be loaded)",
                                     "install the CUDA toolkit's cuBLAS (e.g. the libcublas package) to run these rungs")
        .WithKeys("error.cublas.missing", {{"library", "cuBLAS"}, {"file", "libcublas.so"}}, "error.cublas.missing.hint");
  }
  static CublasApi api;
  const core::DynamicLibrary& l = **lib;
  bool ok = Bind(l, "cublasCreate_v2", &api.create) && Bind(l, "cublasDestroy_v2", &api.destroy) &&
            Bind(l, "cublasSetStream_v2", &api.set_stream) && Bind(l, "cublasSetMathMode", &api.set_math_mode) &&
            Bind(l, "cublasSgemm_v2", &api.sgemm) && Bind(l, "cublasGemmEx", &api.gemm_ex);
  if (!ok) {
    return core::Status::Unavailable(fmt::format("{} lacks a cuBLAS function gpuprobe needs", l.name()))
        .WithKeys("error.cublas.lacks", {{"file", l.name()}, {"library", "cuBLAS"}});
  }
  // Deliberately leaked: no dlclose at exit (see cublas_loader.h).
  api.library = lib.value().release();
  return static_cast<const CublasApi*>(&api);
}

core::Result<const CublasLtApi*> LoadLtOnce() {
  auto lib = core::DynamicLibrary::Open(CublasCandidates("libcublasLt", ConfiguredCudaLibraryDir()));
  if (!lib.ok()) {
    return core::Status::Unavailable("cuBLASLt is not installed (libcublasLt.so cannot be loaded)",
                                     "install the CUDA toolkit's cuBLAS (it ships cuBLASLt) to run the fp8 peak")
        .WithKeys("error.cublas.missing", {{"library", "cuBLASLt"}, {"file", "libcublasLt.so"}}, "error.cublaslt.missing.hint");
  }
  static CublasLtApi api;
  const core::DynamicLibrary& l = **lib;
  bool ok = Bind(l, "cublasLtCreate", &api.create) && Bind(l, "cublasLtDestroy", &api.destroy) &&
            Bind(l, "cublasLtMatmulDescCreate", &api.desc_create) && Bind(l, "cublasLtMatmulDescDestroy", &api.desc_destroy) &&
            Bind(l, "cublasLtMatmulDescSetAttribute", &api.desc_set) && Bind(l, "cublasLtMatrixLayoutCreate", &api.layout_create) &&
            Bind(l, "cublasLtMatrixLayoutDestroy", &api.layout_destroy) && Bind(l, "cublasLtMatmulPreferenceCreate", &api.pref_create) &&
            Bind(l, "cublasLtMatmulPreferenceDestroy", &api.pref_destroy) &&
            Bind(l, "cublasLtMatmulPreferenceSetAttribute", &api.pref_set) &&
            Bind(l, "cublasLtMatmulAlgoGetHeuristic", &api.heuristic) && Bind(l, "cublasLtMatmul", &api.matmul);
  if (!ok) {
    return core::Status::Unavailable(fmt::format("{} lacks a cuBLASLt function gpuprobe needs", l.name()))
        .WithKeys("error.cublas.lacks", {{"file", l.name()}, {"library", "cuBLASLt"}});
  }
  api.library = lib.value().release();  // never closed, as cuBLAS
  return static_cast<const CublasLtApi*>(&api);
}

}  // namespace

std::vector<std::string> CublasCandidates(const std::string& stem, const std::string& toolkit_lib_dir) {
  const std::vector<std::string> names = {stem + ".so.13", stem + ".so.12", stem + ".so"};
  std::vector<std::string> candidates = names;
  if (!toolkit_lib_dir.empty()) {
    std::string dir = toolkit_lib_dir.back() == '/' ? toolkit_lib_dir : toolkit_lib_dir + "/";
    for (const auto& name : names) candidates.push_back(dir + name);
  }
  return candidates;
}

std::string ConfiguredCudaLibraryDir() {
#ifdef GPUPROBE_CUDA_LIBRARY_DIR
  return GPUPROBE_CUDA_LIBRARY_DIR;
#else
  return "";
#endif
}

core::Result<const CublasLtApi*> LoadCublasLt() {
  static std::once_flag once;
  static core::Result<const CublasLtApi*> result = core::Status::Internal("not loaded");
  std::call_once(once, [] { result = LoadLtOnce(); });
  return result;
}

core::Result<const CublasApi*> LoadCublas() {
  static std::once_flag once;
  static core::Result<const CublasApi*> result = core::Status::Internal("not loaded");
  std::call_once(once, [] { result = LoadOnce(); });
  return result;
}

CublasHandle::~CublasHandle() {
  if (handle_ != nullptr) api_->destroy(handle_);
}

core::Status CublasHandle::Open(const CublasApi& api, cudaStream_t stream) {
  api_ = &api;
  cublasStatus_t s = api.create(&handle_);
  if (s != CUBLAS_STATUS_SUCCESS) {
    handle_ = nullptr;
    return core::Status::Internal(fmt::format("cublasCreate failed (status {})", static_cast<int>(s)))
        .WithKeys("error.cublas.call", {{"call", "cublasCreate"}, {"status", std::to_string(static_cast<int>(s))}});
  }
  s = api.set_stream(handle_, stream);
  if (s != CUBLAS_STATUS_SUCCESS) return core::Status::Internal(fmt::format("cublasSetStream failed (status {})", static_cast<int>(s)))
        .WithKeys("error.cublas.call", {{"call", "cublasSetStream"}, {"status", std::to_string(static_cast<int>(s))}});
  return core::Status::Ok();
}

}  // namespace gpuprobe::bench
