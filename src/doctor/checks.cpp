#include "doctor/checks.h"

#include "doctor/check_list.h"
#include "doctor/cuda_compat.h"
#include "doctor/machine_facts.h"

namespace gpuprobe::doctor {
namespace {

// The one list of checks (STYLE rule 5): adding a check is one line here, one function in
// check_list.h, its texts in data/texts/{en,zh}/doctor.json and its row in docs/doctor.md.
const std::vector<CheckEntry> kChecks = {
    {"gpu_hardware", CheckGpuHardware}, {"kernel_module", CheckKernelModule},
    {"nouveau", CheckNouveau},          {"device_nodes", CheckDeviceNodes},
    {"container", CheckContainer},      {"nvml", CheckNvml},
    {"driver_cuda", CheckDriverCuda},   {"toolkit", CheckToolkits},
    {"frameworks", CheckFrameworks},    {"compiled_archs", CheckCompiledArchs},
    {"gpu_settings", CheckGpuSettings}, {"smoke_test", CheckSmokeTest},
};

// The embedded table is checked by a unit test; should it ever fail to parse, an empty table
// makes every version "unknown" instead of stopping doctor.
const CudaCompat& CompatTable() {
  static const CudaCompat kEmpty;
  auto table = CudaCompat::Embedded();
  return table.ok() ? **table : kEmpty;
}

}  // namespace

std::string CheckStatusName(CheckStatus status) {
  switch (status) {
    case CheckStatus::kOk:
      return "ok";
    case CheckStatus::kInfo:
      return "info";
    case CheckStatus::kWarn:
      return "warn";
    case CheckStatus::kFail:
      return "fail";
    case CheckStatus::kSkip:
      return "skip";
  }
  return "skip";
}

Message Msg(std::string key, std::vector<std::pair<std::string, std::string>> args) {
  return Message{std::move(key), std::move(args)};
}

CheckResult MakeResult(std::string id, CheckStatus status, std::vector<Message> evidence,
                       Message fix) {
  CheckResult r;
  r.id = std::move(id);
  r.status = status;
  r.evidence = std::move(evidence);
  r.fix = std::move(fix);
  return r;
}

const std::vector<CheckEntry>& AllChecks() { return kChecks; }

DoctorReport RunChecks(const Environment& env, const NvmlView& nvml, const KernelRunner* kernels) {
  MachineFacts facts = ReadMachineFacts(env, nvml);
  CheckContext ctx{env, nvml, facts, CompatTable(), kernels};
  DoctorReport report;
  report.gpu_present = facts.gpu_present;
  report.driver_version = facts.module_version;
  for (const CheckEntry& entry : kChecks) {
    for (auto& result : entry.run(ctx)) report.checks.push_back(std::move(result));
  }
  return report;
}

core::Result<std::vector<CheckResult>> RunCheck(const std::string& id, const Environment& env,
                                                const NvmlView& nvml, const KernelRunner* kernels) {
  for (const CheckEntry& entry : kChecks) {
    if (id != entry.id) continue;
    MachineFacts facts = ReadMachineFacts(env, nvml);
    CheckContext ctx{env, nvml, facts, CompatTable(), kernels};
    return entry.run(ctx);
  }
  return core::Status::NotFound("no doctor check '" + id + "'").WithKeys("error.unknown.doctor_check", {{"name", id}});
}

CheckStatus WorstStatus(const std::vector<CheckResult>& checks) {
  CheckStatus worst = CheckStatus::kOk;
  for (const auto& c : checks) {
    if (c.status == CheckStatus::kFail) return CheckStatus::kFail;
    if (c.status == CheckStatus::kWarn) worst = CheckStatus::kWarn;
  }
  return worst;
}

}  // namespace gpuprobe::doctor
