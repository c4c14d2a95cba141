// Why no GPU can be used here, as a stable id read from this machine's facts rather than from
// an error message, so every view can say it in the user's language: this build has no CUDA,
// no driver can be loaded, the driver sees no GPU, or the driver is there but unusable (too
// old, a stub, a mismatch). The tour, `bench` and `report` share it.
//
// Thread safety: reentrant (reads build facts and tries to load libcuda.so.1).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace gpuprobe::app {

/// "not_built" (this gpuprobe has no CUDA backend), "no_driver" (libcuda.so.1 cannot be
/// loaded), "no_device" (the driver works, no GPU is visible: a NotFound status),
/// "driver_problem" (anything else: the status's English message is the detail).
/// `query_status` is what the GPU query (bench::QueryCudaDevices) returned.
std::string GpuAbsenceId(const core::Status& query_status);

/// The absence id of a saved "gpu" identity object (the tour's JSON): its "reason_id" when
/// it has one, else read from its facts: "not_built" when "cuda_built" is false, "no_driver"
/// when the driver reported no CUDA version, "driver_problem" otherwise. Documents made from
/// saved files without one say "no_saved_gpu".
std::string GpuAbsenceIdOf(const nlohmann::json& gpu);

/// Text keys of an absence id: "gpu_absent.<id>" (the reason, with {detail}) and
/// "gpu_absent.<id>.hint".
std::string GpuAbsenceReasonKey(const std::string& id);
std::string GpuAbsenceHintKey(const std::string& id);

}  // namespace gpuprobe::app
