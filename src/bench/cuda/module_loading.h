// Eager module loading for the CUDA backend. CUDA 12 loads a kernel's module lazily, at its
// first launch, and loading may wait for the context to go idle: a first launch queued
// behind the gate kernel (cuda_context.h) then stalls until the gate times out, and the
// launch cost lands inside the timed interval. Asking the driver to load every module when
// the context is created keeps first launches out of the gated region. CUDA-free: it only
// sets the driver's environment variable, so it is tested without a GPU.
//
// Thread safety: call before the process's first CUDA call, from one thread.
#pragma once

#include <string>

namespace gpuprobe::bench {

/// Sets CUDA_MODULE_LOADING=EAGER unless the user already chose a mode (their choice wins:
/// a gate timeout is then reported, not hidden). Must run before the first CUDA runtime call
/// of the process; later it has no effect. Returns the mode in effect.
std::string RequestEagerModuleLoading();

}  // namespace gpuprobe::bench
