// Compiled architectures: a framework carries machine code for some GPU generations and PTX
// for others; a GPU that neither fits gets "no kernel image is available for execution on
// the device" at its first kernel (rules in arch_compat.h).
#include <string>

#include "doctor/arch_compat.h"
#include "doctor/check_list.h"
#include "doctor/machine_facts.h"

namespace gpuprobe::doctor {

std::vector<CheckResult> CheckCompiledArchs(const CheckContext& ctx) {
  std::vector<const FrameworkInfo*> built;
  for (const auto& f : ctx.facts.frameworks.found) {
    if (f.error.empty() && !f.cpu_only && !ParseArchList(f.archs).empty()) built.push_back(&f);
  }
  if (built.empty()) {
    return {MakeResult("compiled_archs", CheckStatus::kSkip,
                       {Msg("doctor.check.compiled_archs.no_framework")})};
  }
  if (ctx.nvml.gpus.empty()) {
    return {MakeResult("compiled_archs", CheckStatus::kSkip,
                       {Msg("doctor.check.compiled_archs.no_gpu")})};
  }
  std::vector<CheckResult> out;
  for (const auto& g : ctx.nvml.gpus) {
    std::string index = std::to_string(g.index.value_or(0));
    int major = 0, minor = 0;
    if (!ParseComputeCapability(g.compute_capability, &major, &minor)) {
      out.push_back(MakeResult(
          "compiled_archs", CheckStatus::kSkip,
          {Msg("doctor.check.compiled_archs.no_capability", {{"index", index}, {"gpu", g.name}})}));
      continue;
    }
    std::string sm = "sm_" + std::to_string(major * 10 + minor);
    for (const FrameworkInfo* f : built) {
      std::vector<std::pair<std::string, std::string>> args = {
          {"name", f->name}, {"index", index}, {"gpu", g.name}, {"sm", sm}, {"archs", f->archs}};
      ArchVerdict v = MatchArch(ParseArchList(f->archs), major, minor);
      args.emplace_back("used", v.used);
      Message fix = Msg("doctor.check.compiled_archs.fix",
                        {{"name", f->name}, {"sm", sm}, {"url", f->install_url}});
      CheckResult r;
      switch (v.match) {
        case ArchMatch::kMachineCode:
          r = MakeResult("compiled_archs", CheckStatus::kOk,
                         {Msg("doctor.check.compiled_archs.machine_code", args)});
          break;
        case ArchMatch::kPtxJit:
          r = MakeResult("compiled_archs", CheckStatus::kWarn,
                         {Msg("doctor.check.compiled_archs.ptx_only", args)}, fix);
          break;
        case ArchMatch::kNone:
          r = MakeResult("compiled_archs", CheckStatus::kFail,
                         {Msg("doctor.check.compiled_archs.no_image", args)}, fix);
          break;
      }
      r.values = {{"framework", f->id},
                  {"gpu", g.index.value_or(0)},
                  {"sm", sm},
                  {"archs", f->archs},
                  {"used", v.used}};
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace gpuprobe::doctor
