// `gpuprobe doctor`: why doesn't it work? Each check says ok / warn / fail, its evidence and
// the fix: driver module, nouveau, device nodes, container passthrough, NVML, the driver's
// CUDA ceiling, toolkits, frameworks, settings, and a minimal on-GPU smoke test.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/command.h"
#include "doctor/checks.h"
#include "report/json_document.h"
#include "summary/doctor_run.h"

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

core::Result<core::ExitCode> RunDoctor(VerbContext& ctx, const DoctorOptions& o) {
  doctor::DoctorReport report = summary::RunDoctorChecks(!o.skip_smoke);
  doctor::CheckStatus worst = doctor::WorstStatus(report.checks);
  if (ctx.options.json) {
    auto doc = summary::DoctorToJson(report);
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
