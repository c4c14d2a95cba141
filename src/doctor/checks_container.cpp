// Container GPU passthrough: a container sees the host's PCI bus but only the /dev/nvidia*
// nodes its runtime passed in (the NVIDIA Container Toolkit does that for --gpus).
#include "doctor/check_list.h"
#include "doctor/machine_facts.h"

namespace gpuprobe::doctor {

std::vector<CheckResult> CheckContainer(const CheckContext& ctx) {
  std::string marker = ctx.env.Exists("/.dockerenv")          ? "/.dockerenv"
                       : ctx.env.Exists("/run/.containerenv") ? "/run/.containerenv"
                       : ctx.env.Variable("KUBERNETES_SERVICE_HOST").has_value()
                           ? "KUBERNETES_SERVICE_HOST"
                           : "";
  auto visible = ctx.env.Variable("NVIDIA_VISIBLE_DEVICES");
  bool nodes = !ctx.facts.dev_nodes.empty();
  CheckResult r;
  if (marker.empty()) {
    r = MakeResult("container", CheckStatus::kSkip, {Msg("doctor.check.container.not_container")});
  } else if (nodes) {
    r = MakeResult("container", CheckStatus::kOk,
                   {Msg("doctor.check.container.passed", {{"marker", marker}})});
  } else if (!visible) {
    r = MakeResult("container", CheckStatus::kInfo,
                   {Msg("doctor.check.container.none_requested", {{"marker", marker}})},
                   Msg("doctor.check.container.request_fix"));
  } else if (*visible == "void" || *visible == "none" || visible->empty()) {
    r = MakeResult(
        "container", CheckStatus::kInfo,
        {Msg("doctor.check.container.void", {{"marker", marker}, {"visible", *visible}})},
        Msg("doctor.check.container.request_fix"));
  } else {
    // The image asks for GPUs (CUDA images set NVIDIA_VISIBLE_DEVICES=all) but the runtime
    // passed none in: started without --gpus, or without the NVIDIA runtime.
    r = MakeResult(
        "container", CheckStatus::kFail,
        {Msg("doctor.check.container.no_devices", {{"marker", marker}, {"visible", *visible}})},
        Msg("doctor.check.container.no_devices_fix"));
  }
  r.values = {{"container", !marker.empty()},
              {"marker", marker},
              {"nvidia_visible_devices", visible.value_or("")}};
  return {r};
}

}  // namespace gpuprobe::doctor
