#include "app/gpu_absence.h"

#include "bench/cuda/cuda_device.h"
#include "core/dynamic_library.h"

namespace gpuprobe::app {

std::string GpuAbsenceId(const core::Status& query_status) {
  if (!bench::CudaBuilt()) return "not_built";
  if (query_status.code() == core::StatusCode::kNotFound) return "no_device";
  // The runtime reports a missing driver library like an old one; whether libcuda.so.1 loads
  // is the fact that tells them apart (as bench/cuda/cuda_status.cpp does).
  if (!core::CanLoadLibrary("libcuda.so.1")) return "no_driver";
  return "driver_problem";
}

std::string GpuAbsenceIdOf(const nlohmann::json& gpu) {
  if (!gpu.is_object()) return "driver_problem";
  auto id = gpu.find("reason_id");
  if (id != gpu.end() && id->is_string() && !id->get<std::string>().empty()) return id->get<std::string>();
  // A document written before the id existed: its facts say the same.
  auto built = gpu.find("cuda_built");
  if (built != gpu.end() && built->is_boolean() && !built->get<bool>()) return "not_built";
  auto driver = gpu.find("driver_cuda_version");
  if (driver != gpu.end() && driver->is_number() && driver->get<double>() == 0) return "no_driver";
  return "driver_problem";
}

std::string GpuAbsenceReasonKey(const std::string& id) { return "gpu_absent." + id; }
std::string GpuAbsenceHintKey(const std::string& id) { return "gpu_absent." + id + ".hint"; }

}  // namespace gpuprobe::app
