#include "app/doctor_run.h"

#include "bench/cuda/cuda_device.h"
#include "telemetry/nvml_library.h"
#include "telemetry/nvml_source.h"

namespace gpuprobe::app {
namespace {

doctor::NvmlView ReadNvml() {
  doctor::NvmlView view;
  auto nvml = telemetry::NvmlLibrary::Load();
  if (!nvml.ok()) {
    view.failure = doctor::NvmlView::Failure::kNotLoadable;
    view.detail = nvml.status().message();
    return view;
  }
  // NvmlLibrary::Init reports a sentence; doctor words the failure itself from NVML's code,
  // so ask nvmlInit once directly (NVML counts initialisations; shut this one down again).
  nvmlReturn_t code = (*nvml)->fn().init();
  if (code != NVML_SUCCESS) {
    view.failure = doctor::NvmlView::Failure::kInitFailed;
    view.init_code = code;
    view.nvml_text = (*nvml)->ErrorString(code);
    view.detail = telemetry::StatusFromNvml("nvmlInit", code, view.nvml_text).message();
    return view;
  }
  (*nvml)->fn().shutdown();
  core::Status init = (*nvml)->Init();
  auto gpus = init.ok() ? telemetry::ReadNvmlSnapshots(**nvml)
                        : core::Result<std::vector<telemetry::Snapshot>>(init);
  if (!gpus.ok()) {
    view.failure = doctor::NvmlView::Failure::kReadFailed;
    view.detail = gpus.status().message();
    return view;
  }
  view.loaded = true;
  view.failure = doctor::NvmlView::Failure::kNone;
  view.gpus = std::move(gpus.value());
  // Asked of the library, not of a GPU: NVML that lists no GPU still names its driver.
  const telemetry::NvmlFunctions& f = (*nvml)->fn();
  char buffer[GPUPROBE_NVML_VERSION_BUFFER] = {};
  if (f.driver_version != nullptr && f.driver_version(buffer, sizeof buffer) == NVML_SUCCESS)
    view.driver_version = buffer;
  int cuda = 0;
  if (f.cuda_driver_version != nullptr && f.cuda_driver_version(&cuda) == NVML_SUCCESS &&
      cuda > 0) {
    view.cuda_ceiling = std::to_string(cuda / 1000) + "." + std::to_string((cuda % 1000) / 10);
  }
  return view;
}

// The smoke test through the CUDA build (bench/cuda): allocate, run, copy back, verify.
class CudaKernelRunner : public doctor::KernelRunner {
 public:
  bool Built() const override { return bench::CudaBuilt(); }
  core::Result<Outcome> Run(int index) const override {
    auto smoke = bench::RunSmokeTest(index);
    if (!smoke.ok()) return smoke.status();
    Outcome out;
    out.elements = smoke->elements;
    out.verified = smoke->verified;
    out.mismatches = smoke->mismatches;
    return out;
  }
};

}  // namespace

doctor::DoctorReport RunDoctorChecks(bool smoke_test) {
  doctor::Environment env = doctor::Environment::Real();
  doctor::NvmlView nvml = ReadNvml();
  CudaKernelRunner kernels;
  return doctor::RunChecks(env, nvml, smoke_test ? &kernels : nullptr);
}

}  // namespace gpuprobe::app
