#include "app/gpu_absence.h"

namespace gpuprobe::app {

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

}  // namespace gpuprobe::app
