#include "summary/doctor_run.h"

#include <fmt/format.h>

#include "bench/cuda/cuda_device.h"
#include "report/json_document.h"
#include "telemetry/nvml_library.h"
#include "telemetry/nvml_source.h"

namespace gpuprobe::summary {
namespace {

doctor::NvmlView ReadNvml() {
  doctor::NvmlView view;
  auto nvml = telemetry::NvmlLibrary::Load();
  if (!nvml.ok()) {
    view.error = nvml.status().message();
    return view;
  }
  core::Status init = (*nvml)->Init();
  if (!init.ok()) {
    view.error = init.message();
    return view;
  }
  auto gpus = telemetry::ReadNvmlSnapshots(**nvml);
  if (!gpus.ok()) {
    view.error = gpus.status().message();
    return view;
  }
  view.loaded = true;
  view.gpus = std::move(gpus.value());
  if (!view.gpus.empty()) {
    view.driver_version = view.gpus[0].driver_version;
    view.cuda_ceiling = view.gpus[0].cuda_version;
  }
  return view;
}

}  // namespace

doctor::DoctorReport RunDoctorChecks(bool smoke_test) {
  doctor::Environment env = doctor::Environment::Real();
  doctor::NvmlView nvml = ReadNvml();
  doctor::DoctorReport report = doctor::RunChecks(env, nvml);

  // The smoke test: allocate, run a kernel, copy back, verify.
  if (smoke_test && nvml.loaded && !nvml.gpus.empty()) {
    if (!bench::CudaBuilt()) {
      report.checks.push_back({"smoke_test", "a kernel runs on the GPU", doctor::CheckStatus::kSkip,
                               "this gpuprobe was built without CUDA", "install the CUDA toolkit and rebuild gpuprobe"});
    } else {
      for (size_t i = 0; i < nvml.gpus.size(); ++i) {
        auto smoke = bench::RunSmokeTest(static_cast<int>(i));
        std::string label = fmt::format("GPU {}: ", i);
        if (!smoke.ok()) {
          report.checks.push_back({"smoke_test", "a kernel runs on the GPU", doctor::CheckStatus::kFail, label + smoke.status().message(),
                                   smoke.status().hint()});
        } else if (!smoke->verified) {
          report.checks.push_back({"smoke_test", "a kernel runs on the GPU", doctor::CheckStatus::kFail,
                                   fmt::format("{}{} of {} results wrong", label, smoke->mismatches, smoke->elements),
                                   "the GPU computes wrong results: drain it and run a burn-in test"});
        } else {
          report.checks.push_back({"smoke_test", "a kernel runs on the GPU", doctor::CheckStatus::kOk,
                                   fmt::format("{}allocated, ran a kernel on {} elements, copied back, every result verified", label, smoke->elements),
                                   ""});
        }
      }
    }
  }
  return report;
}

nlohmann::json DoctorToJson(const doctor::DoctorReport& report) {
  auto doc = report::MakeDocument("doctor");
  doc["gpu_present"] = report.gpu_present;
  doc["driver_version"] = report.driver_version;
  doc["status"] = doctor::CheckStatusName(doctor::WorstStatus(report.checks));
  doc["checks"] = nlohmann::json::array();
  for (const auto& c : report.checks) {
    doc["checks"].push_back({{"id", c.id}, {"title", c.title}, {"status", doctor::CheckStatusName(c.status)}, {"evidence", c.evidence}, {"fix", c.fix}});
  }
  return doc;
}

}  // namespace gpuprobe::summary
