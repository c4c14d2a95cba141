// `gpuprobe doctor`: why doesn't it work? Each check says ok / warn / fail, its evidence and
// the fix: driver module, nouveau, device nodes, container passthrough, NVML, the driver's
// CUDA ceiling, toolkits, frameworks, settings, and a minimal on-GPU smoke test.
#include "cli/cmd_doctor.h"

#include <CLI/CLI.hpp>

#include "app/doctor_run.h"
#include "cli/command.h"
#include "doctor/checks.h"
#include "report/json_document.h"

namespace gpuprobe::cli {
namespace {


struct DoctorOptions {
  bool skip_smoke = false;
};

core::Result<core::ExitCode> RunDoctor(VerbContext& ctx, const DoctorOptions& o) {
  doctor::DoctorReport report = app::RunDoctorChecks(!o.skip_smoke);
  doctor::CheckStatus worst = doctor::WorstStatus(report.checks);
  if (ctx.options.json) {
    ctx.out << report::RenderJson(app::DoctorToJson(report, ctx.texts));
  } else {
    ctx.out << app::DoctorTextView(report, ctx.texts);
  }
  return worst == doctor::CheckStatus::kFail || worst == doctor::CheckStatus::kWarn
             ? core::ExitCode::kProblemsFound
             : core::ExitCode::kOk;
}

}  // namespace

VerbRunner SetupDoctorVerb(CLI::App* command) {
  auto o = std::make_shared<DoctorOptions>();
  command->add_flag("--no-smoke-test", o->skip_smoke,
                    "do not run the small verified kernel on each GPU");
  return [o](VerbContext& ctx) { return RunDoctor(ctx, *o); };
}

}  // namespace gpuprobe::cli
