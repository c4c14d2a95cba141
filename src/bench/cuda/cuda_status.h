// StatusFromCuda: the one place a cudaError_t becomes a Status . Only files in
// bench/cuda/ include this header, since it needs <cuda_runtime.h>.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "core/status.h"

namespace gpuprobe::bench {

/// Maps a CUDA error to a Status with a user sentence and a hint. cudaErrorInsufficientDriver
/// (35) with no loadable libcuda.so.1 means "no NVIDIA driver found"; with one, the driver is
/// too old for this build. `context` names the call that failed.
core::Status StatusFromCuda(const std::string& context, cudaError_t error);

/// The libcuda.so.1 check behind StatusFromCuda, exposed for tests and doctor.
bool DriverLibraryLoadable();

}  // namespace gpuprobe::bench
