// `gpuprobe doctor`: why doesn't it work? Each check says ok / warn / fail, its evidence and
// the fix: driver module, nouveau, device nodes, container passthrough, NVML, the driver's
// CUDA ceiling, toolkits, frameworks, settings, and a minimal on-GPU smoke test.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "bench/cuda/cuda_device.h"
#include "cli/command.h"
#include "cli/live_state.h"
#include "doctor/checks.h"
#include "report/json_document.h"
#include "telemetry/nvml_library.h"
#include "telemetry/nvml_source.h"

namespace gpuprobe::cli {
namespace {

constexpr const char* kFooter = R"(Examples:
  gpuprobe doctor               every check, with evidence and the fix
  gpuprobe doctor --json        for scripts and support tickets
  gpuprobe doctor --no-smoke-test

Exit status: 0 nothing wrong (also on a machine without a GPU); 1 a check warned or failed.)";

struct DoctorOptions {
  bool skip_smoke = false;
};

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

std::string Marker(doctor::CheckStatus s) {
  switch (s) {
    case doctor::CheckStatus::kOk: return "[ ok ]";
    case doctor::CheckStatus::kInfo: return "[info]";
    case doctor::CheckStatus::kWarn: return "[warn]";
    case doctor::CheckStatus::kFail: return "[FAIL]";
    case doctor::CheckStatus::kSkip: return "[skip]";
  }
  return "[?]";
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

namespace {

core::Result<core::ExitCode> RunDoctor(VerbContext& ctx, const DoctorOptions& o) {
  doctor::DoctorReport report = RunDoctorChecks(!o.skip_smoke);
  doctor::CheckStatus worst = doctor::WorstStatus(report.checks);
  if (ctx.options.json) {
    auto doc = DoctorToJson(report);
    ctx.out << report::RenderJson(doc);
  } else {
    std::string out = ctx.texts.Get("doctor.title") + "\n\n";
    for (const auto& c : report.checks) {
      out += fmt::format("{} {}: {}\n", Marker(c.status), c.title, c.evidence);
      if (!c.fix.empty() && c.status != doctor::CheckStatus::kOk) out += "       -> " + c.fix + "\n";
    }
    out += "\n";
    if (!report.gpu_present) {
      out += ctx.texts.Get("doctor.no_gpu") + "\n";
    } else {
      out += ctx.texts.Get(worst == doctor::CheckStatus::kFail   ? "doctor.verdict.fail"
                           : worst == doctor::CheckStatus::kWarn ? "doctor.verdict.warn"
                                                                 : "doctor.verdict.ok") + "\n";
    }
    ctx.out << out;
  }
  return worst == doctor::CheckStatus::kFail || worst == doctor::CheckStatus::kWarn ? core::ExitCode::kProblemsFound : core::ExitCode::kOk;
}

}  // namespace

VerbRunner SetupDoctorVerb(CLI::App* command) {
  auto o = std::make_shared<DoctorOptions>();
  command->footer(kFooter);
  command->add_flag("--no-smoke-test", o->skip_smoke, "do not run the small verified kernel on each GPU");
  return [o](VerbContext& ctx) { return RunDoctor(ctx, *o); };
}

}  // namespace gpuprobe::cli
