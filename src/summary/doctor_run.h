// Running doctor's checks on this machine, with the on-GPU smoke test, and the document
// `doctor --json` prints: shared by `doctor`, the tour and `report`.
//
// Thread safety: call from one thread (it loads NVML and runs a kernel).
#pragma once

#include <nlohmann/json.hpp>

#include "doctor/checks.h"

namespace gpuprobe::summary {

/// Doctor's checks on this machine; with `smoke_test`, a small verified kernel on each GPU.
doctor::DoctorReport RunDoctorChecks(bool smoke_test);

/// gpuprobe.doctor.v1, as `doctor --json` prints it.
nlohmann::json DoctorToJson(const doctor::DoctorReport& report);

}  // namespace gpuprobe::summary
