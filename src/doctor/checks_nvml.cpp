// NVML: the driver's management library. It loads only where the driver's user-space part is
// installed, starts only with the kernel module loaded and of the same version, and is what
// nvidia-smi, gpuprobe inspect and most monitoring agents use.
#include "doctor/check_list.h"
#include "doctor/machine_facts.h"
#include "telemetry/nvml_abi.h"

namespace gpuprobe::doctor {
namespace {

const char* FailureName(NvmlView::Failure f) {
  switch (f) {
    case NvmlView::Failure::kNone:
      return "none";
    case NvmlView::Failure::kNotLoadable:
      return "not_loadable";
    case NvmlView::Failure::kInitFailed:
      return "init_failed";
    case NvmlView::Failure::kReadFailed:
      return "read_failed";
  }
  return "none";
}

// What nvmlInit's return code means for the reader (NVML API reference, nvmlReturn_t).
CheckResult InitFailed(const CheckContext& ctx) {
  const NvmlView& n = ctx.nvml;
  switch (n.init_code) {
    case NVML_ERROR_DRIVER_NOT_LOADED:
      if (!ctx.facts.gpu_present)
        return MakeResult("nvml", CheckStatus::kSkip, {Msg("doctor.check.nvml.no_gpu_libraries")});
      return MakeResult("nvml", CheckStatus::kFail, {Msg("doctor.check.nvml.driver_not_loaded")},
                        Msg("doctor.check.nvml.driver_not_loaded_fix"));
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
      return MakeResult("nvml", CheckStatus::kFail, {Msg("doctor.check.nvml.init_mismatch")},
                        Msg("doctor.check.nvml.mismatch_fix"));
    case NVML_ERROR_NO_PERMISSION:
    case NVML_ERROR_OPERATING_SYSTEM:
      return MakeResult("nvml", CheckStatus::kFail, {Msg("doctor.check.nvml.denied")},
                        Msg("doctor.check.nvml.denied_fix"));
    case NVML_ERROR_GPU_IS_LOST:
      return MakeResult("nvml", CheckStatus::kFail, {Msg("doctor.check.nvml.gpu_lost")},
                        Msg("doctor.check.nvml.gpu_lost_fix"));
    default:
      return MakeResult("nvml", CheckStatus::kFail,
                        {Msg("doctor.check.nvml.init_other",
                             {{"code", std::to_string(n.init_code)}, {"nvml_text", n.nvml_text}})},
                        Msg("doctor.check.nvml.nvidia_smi_fix"));
  }
}

}  // namespace

std::vector<CheckResult> CheckNvml(const CheckContext& ctx) {
  const NvmlView& n = ctx.nvml;
  const MachineFacts& f = ctx.facts;
  CheckResult r;
  if (n.loaded) {
    if (!f.module_version.empty() && !n.driver_version.empty() &&
        n.driver_version != f.module_version) {
      r = MakeResult("nvml", CheckStatus::kFail,
                     {Msg("doctor.check.nvml.mismatch",
                          {{"library", n.driver_version}, {"module", f.module_version}})},
                     Msg("doctor.check.nvml.mismatch_fix"));
    } else if (n.gpus.empty() && !f.pci.empty()) {
      r = MakeResult("nvml", CheckStatus::kWarn,
                     {Msg("doctor.check.nvml.no_gpus", {{"pci", std::to_string(f.pci.size())}})},
                     Msg("doctor.check.nvml.no_gpus_fix"));
    } else if (n.cuda_ceiling.empty()) {
      r = MakeResult(
          "nvml", CheckStatus::kOk,
          {Msg("doctor.check.nvml.ok_no_ceiling",
               {{"driver", n.driver_version}, {"count", std::to_string(n.gpus.size())}})});
    } else {
      r = MakeResult("nvml", CheckStatus::kOk,
                     {Msg("doctor.check.nvml.ok", {{"driver", n.driver_version},
                                                   {"count", std::to_string(n.gpus.size())},
                                                   {"ceiling", n.cuda_ceiling}})});
    }
  } else if (n.failure == NvmlView::Failure::kInitFailed) {
    r = InitFailed(ctx);
  } else if (n.failure == NvmlView::Failure::kReadFailed) {
    r = MakeResult("nvml", CheckStatus::kFail, {Msg("doctor.check.nvml.read_failed")},
                   Msg("doctor.check.nvml.nvidia_smi_fix"));
  } else if (f.gpu_present) {
    r = MakeResult("nvml", CheckStatus::kFail, {Msg("doctor.check.nvml.not_installed")},
                   Msg("doctor.check.nvml.install_fix"));
  } else {
    r = MakeResult("nvml", CheckStatus::kSkip, {Msg("doctor.check.nvml.no_gpu")});
  }
  r.values = {{"loaded", n.loaded},
              {"failure", FailureName(n.loaded ? NvmlView::Failure::kNone : n.failure)},
              {"driver_version", n.driver_version},
              {"cuda_ceiling", n.cuda_ceiling},
              {"gpus", n.gpus.size()}};
  if (n.failure == NvmlView::Failure::kInitFailed) r.values["init_code"] = n.init_code;
  if (!n.detail.empty()) r.values["detail"] = n.detail;
  return {r};
}

}  // namespace gpuprobe::doctor
