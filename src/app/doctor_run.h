// Running doctor's checks on this machine: NVML read through the real loader, the smoke test
// through the CUDA build. Shared by `doctor`, the tour and `report`; the views are in
// doctor_view.h.
//
// Thread safety: call from one thread (it loads NVML and runs kernels).
#pragma once

#include "app/doctor_view.h"
#include "doctor/checks.h"

namespace gpuprobe::app {

/// Doctor's checks on this machine; with `smoke_test`, a small verified kernel on each GPU
/// (without it, the smoke_test result says it was not asked for).
doctor::DoctorReport RunDoctorChecks(bool smoke_test);

}  // namespace gpuprobe::app
