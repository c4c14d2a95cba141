#include "app/plan_gpu_job.h"

#include "model/gpu_device_figures.h"

namespace gpuprobe::app {

bool GpuHasBf16(const model::GpuSpec& gpu) {
  // bf16 arithmetic arrived with Ampere (compute capability 8.0); NVIDIA's CUDA C++
  // Programming Guide lists __nv_bfloat16 arithmetic for devices of 8.0 and above.
  const model::DeviceFigures d = model::DeviceFiguresFromSpec(gpu);
  return d.cc_major == 0 || d.cc_major >= 8;
}

bool Bf16DefaultBecameFp16(const model::Job& base, const model::GpuSpec& gpu, DtypeDefaults defaults) {
  if (GpuHasBf16(gpu)) return false;
  return (defaults.weights && base.weight_dtype == model::DType::kBf16) || (defaults.kv && base.kv_dtype == model::DType::kBf16);
}

model::Job PlanJobForGpu(const model::Job& base, const model::GpuSpec& gpu, DtypeDefaults defaults) {
  model::Job job = base;
  if (GpuHasBf16(gpu)) return job;
  if (defaults.weights && job.weight_dtype == model::DType::kBf16) job.weight_dtype = model::DType::kFp16;
  if (defaults.kv && job.kv_dtype == model::DType::kBf16) job.kv_dtype = model::DType::kFp16;
  return job;
}

}  // namespace gpuprobe::app
