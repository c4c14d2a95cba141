// Why no GPU was usable where a saved document was made: the absence id
// (bench/gpu_absence.h) of the tour's "gpu" object, for the tour and `report`.
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "bench/gpu_absence.h"

namespace gpuprobe::app {

using bench::GpuAbsenceHintKey;
using bench::GpuAbsenceId;
using bench::GpuAbsenceReasonKey;

/// The absence id of a saved "gpu" identity object (the tour's JSON): its "reason_id" when
/// it has one, else read from its facts: "not_built" when "cuda_built" is false, "no_driver"
/// when the driver reported no CUDA version, "driver_problem" otherwise. Documents made from
/// saved files without one say "no_saved_gpu".
std::string GpuAbsenceIdOf(const nlohmann::json& gpu);

}  // namespace gpuprobe::app
