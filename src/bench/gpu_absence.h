// Why no GPU can be used here, as a stable id read from this machine's facts rather than from
// an error message, so every view can say it in the user's language: this build has no CUDA,
// no driver can be loaded, the driver sees no GPU, or the driver is there but unusable (too
// old, a stub, a mismatch). `bench`, the many-GPU runs, the tour and `report` share it.
//
// Built beside the CUDA registration (it asks whether CUDA is built).
//
// Thread safety: reentrant (reads build facts and tries to load libcuda.so.1).
#pragma once

#include <string>

#include "core/status.h"

namespace gpuprobe::bench {

/// "not_built" (this gpuprobe has no CUDA backend), "no_driver" (libcuda.so.1 cannot be
/// loaded), "no_device" (the driver works, no GPU is visible: a NotFound status),
/// "driver_problem" (anything else: the status's English message is the detail).
/// `query_status` is what the GPU query (bench::QueryCudaDevices) returned.
std::string GpuAbsenceId(const core::Status& query_status);

/// Text keys of an absence id: "gpu_absent.<id>" (the reason, with {detail}) and
/// "gpu_absent.<id>.hint".
std::string GpuAbsenceReasonKey(const std::string& id);
std::string GpuAbsenceHintKey(const std::string& id);

}  // namespace gpuprobe::bench
