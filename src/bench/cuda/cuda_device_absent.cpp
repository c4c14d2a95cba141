// Built when GPUPROBE_CUDA resolved to OFF (no nvcc): every GPU query says why, in one line.
#include "bench/cuda/cuda_device.h"

namespace gpuprobe::bench {
namespace {

core::Status NotBuilt() {
  return core::Status::Unavailable("this gpuprobe was built without CUDA support",
                                   "install the CUDA toolkit (nvcc) and rebuild to measure GPUs")
      .WithKeys("error.cuda.not_built", {}, "error.cuda.not_built.hint");
}

}  // namespace

bool CudaBuilt() { return false; }
int CudaRuntimeVersion() { return 0; }
int CudaDriverVersion() { return 0; }
core::Result<std::vector<CudaDeviceInfo>> QueryCudaDevices() { return NotBuilt(); }
core::Result<SmokeTestResult> RunSmokeTest(int) { return NotBuilt(); }

}  // namespace gpuprobe::bench
