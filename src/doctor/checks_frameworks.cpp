// The Python frameworks: what python3 imports, and each framework's CUDA build against the
// driver (the toolkit's rule: the driver must meet the minimum of the CUDA the framework was
// built with, or at least its major's minor-version compatibility floor).
#include <string>

#include "doctor/check_list.h"
#include "doctor/compat_verdict.h"
#include "doctor/machine_facts.h"

namespace gpuprobe::doctor {
namespace {

CheckResult FrameworkBuild(const CheckContext& ctx, const FrameworkInfo& f) {
  CheckResult r;
  if (!f.error.empty()) {
    r = MakeResult(
        f.id, CheckStatus::kFail,
        {Msg("doctor.check.framework.import_failed", {{"module", f.module}, {"error", f.error}})},
        Msg("doctor.check.framework.reinstall_fix", {{"name", f.name}, {"url", f.install_url}}));
  } else if (f.cpu_only) {
    // On a GPU machine this is the classic "torch.cuda.is_available() is False".
    Message sentence =
        Msg("doctor.check.framework.cpu_only", {{"name", f.name}, {"version", f.version}});
    r = ctx.facts.gpu_present ? MakeResult(f.id, CheckStatus::kWarn, {sentence},
                                           Msg("doctor.check.framework.cuda_build_fix",
                                               {{"name", f.name}, {"url", f.install_url}}))
                              : MakeResult(f.id, CheckStatus::kInfo, {sentence});
  } else if (f.cuda.empty()) {
    r = MakeResult(
        f.id, CheckStatus::kInfo,
        {Msg("doctor.check.framework.cuda_unread", {{"name", f.name}, {"version", f.version}})});
  } else {
    bool major_only = f.cuda.find('.') == std::string::npos;
    Message build = major_only ? Msg("doctor.check.framework.build_major",
                                     {{"name", f.name}, {"version", f.version}, {"major", f.cuda}})
                               : Msg("doctor.check.framework.build",
                                     {{"name", f.name}, {"version", f.version}, {"cuda", f.cuda}});
    CompatOutcome c = DescribeCompat(ctx, f.cuda, CompatSubject::kFramework, f.install_url);
    r = MakeResult(f.id, c.status, {build, c.sentence}, c.fix);
    r.values = c.values;
  }
  r.values["version"] = f.version;
  r.values["cuda"] = f.cuda;
  r.values["cpu_only"] = f.cpu_only;
  if (!f.archs.empty()) r.values["archs"] = f.archs;
  if (!f.error.empty()) r.values["error"] = f.error;
  return r;
}

}  // namespace

std::vector<CheckResult> CheckFrameworks(const CheckContext& ctx) {
  const FrameworkReport& report = ctx.facts.frameworks;
  switch (report.outcome) {
    case FrameworkReport::Outcome::kNoPython:
      return {MakeResult("frameworks", CheckStatus::kSkip,
                         {Msg("doctor.check.frameworks.no_python")},
                         Msg("doctor.check.frameworks.no_python_fix"))};
    case FrameworkReport::Outcome::kTimedOut:
      return {
          MakeResult("frameworks", CheckStatus::kWarn,
                     {Msg("doctor.check.frameworks.timeout",
                          {{"seconds", std::to_string(static_cast<int>(kFrameworkProbeSeconds))}})},
                     Msg("doctor.check.frameworks.by_hand_fix"))};
    case FrameworkReport::Outcome::kUnreadable:
      return {MakeResult("frameworks", CheckStatus::kWarn,
                         {Msg("doctor.check.frameworks.unreadable")},
                         Msg("doctor.check.frameworks.by_hand_fix"))};
    case FrameworkReport::Outcome::kRan:
      break;
  }
  if (report.found.empty()) {
    return {MakeResult("frameworks", CheckStatus::kInfo, {Msg("doctor.check.frameworks.none")},
                       Msg("doctor.check.frameworks.none_fix"))};
  }
  std::vector<CheckResult> out;
  for (const auto& f : report.found) out.push_back(FrameworkBuild(ctx, f));
  return out;
}

}  // namespace gpuprobe::doctor
