#include "bench/gpu_absence.h"

#include "bench/cuda/cuda_device.h"
#include "core/dynamic_library.h"

namespace gpuprobe::bench {

std::string GpuAbsenceId(const core::Status& query_status) {
  if (!CudaBuilt()) return "not_built";
  if (query_status.code() == core::StatusCode::kNotFound) return "no_device";
  // The runtime reports a missing driver library like an old one; whether libcuda.so.1 loads
  // is the fact that tells them apart (as bench/cuda/cuda_status.cpp does).
  if (!core::CanLoadLibrary("libcuda.so.1")) return "no_driver";
  return "driver_problem";
}

std::string GpuAbsenceReasonKey(const std::string& id) { return "gpu_absent." + id; }
std::string GpuAbsenceHintKey(const std::string& id) { return "gpu_absent." + id + ".hint"; }

}  // namespace gpuprobe::bench
