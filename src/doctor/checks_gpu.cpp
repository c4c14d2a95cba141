// Per GPU, once the driver works: the settings that bite on servers (read through NVML), and
// the smoke test (a small verified kernel run through the CUDA build).
#include <fmt/format.h>

#include <string>

#include "doctor/check_list.h"

namespace gpuprobe::doctor {

std::vector<CheckResult> CheckGpuSettings(const CheckContext& ctx) {
  if (ctx.nvml.gpus.empty()) {
    return {
        MakeResult("gpu_settings", CheckStatus::kSkip, {Msg("doctor.check.gpu_settings.no_gpu")})};
  }
  std::vector<CheckResult> out;
  for (const auto& g : ctx.nvml.gpus) {
    std::string index = std::to_string(g.index.value_or(0));
    const std::vector<std::pair<std::string, std::string>> gpu = {{"index", index},
                                                                  {"gpu", g.name}};
    if (g.persistence_mode) {
      // Without it the driver tears the GPU down whenever no process holds it, so every
      // program start pays the initialisation again (NVIDIA Driver Persistence guide).
      CheckResult r = *g.persistence_mode
                          ? MakeResult("persistence", CheckStatus::kOk,
                                       {Msg("doctor.check.gpu_settings.persistence_on", gpu)})
                          : MakeResult("persistence", CheckStatus::kWarn,
                                       {Msg("doctor.check.gpu_settings.persistence_off", gpu)},
                                       Msg("doctor.check.gpu_settings.persistence_fix"));
      r.values = {{"gpu", g.index.value_or(0)}, {"persistence_mode", *g.persistence_mode}};
      out.push_back(std::move(r));
    }
    if (g.ecc_uncorrected_volatile && *g.ecc_uncorrected_volatile > 0) {
      auto args = gpu;
      args.emplace_back("count", fmt::format("{:.0f}", *g.ecc_uncorrected_volatile));
      CheckResult r =
          MakeResult("ecc", CheckStatus::kFail, {Msg("doctor.check.gpu_settings.ecc_errors", args)},
                     Msg("doctor.check.gpu_settings.ecc_fix", {{"index", index}}));
      r.values = {{"gpu", g.index.value_or(0)},
                  {"ecc_uncorrected_volatile", *g.ecc_uncorrected_volatile}};
      out.push_back(std::move(r));
    } else if (g.ecc_uncorrected_volatile && g.ecc_enabled.value_or(false)) {
      CheckResult r =
          MakeResult("ecc", CheckStatus::kOk, {Msg("doctor.check.gpu_settings.ecc_clean", gpu)});
      r.values = {{"gpu", g.index.value_or(0)}, {"ecc_uncorrected_volatile", 0}};
      out.push_back(std::move(r));
    }
    if (g.mig_enabled && *g.mig_enabled) {
      CheckResult r =
          MakeResult("mig", CheckStatus::kInfo, {Msg("doctor.check.gpu_settings.mig_on", gpu)});
      r.values = {{"gpu", g.index.value_or(0)}, {"mig_enabled", true}};
      out.push_back(std::move(r));
    }
  }
  if (out.empty()) {
    out.push_back(MakeResult("gpu_settings", CheckStatus::kSkip,
                             {Msg("doctor.check.gpu_settings.not_reported")}));
  }
  return out;
}

std::vector<CheckResult> CheckSmokeTest(const CheckContext& ctx) {
  if (ctx.nvml.gpus.empty())
    return {MakeResult("smoke_test", CheckStatus::kSkip, {Msg("doctor.check.smoke_test.no_gpu")})};
  if (ctx.kernels == nullptr)
    return {MakeResult("smoke_test", CheckStatus::kSkip,
                       {Msg("doctor.check.smoke_test.not_requested")})};
  if (!ctx.kernels->Built()) {
    return {MakeResult("smoke_test", CheckStatus::kSkip, {Msg("doctor.check.smoke_test.not_built")},
                       Msg("doctor.check.smoke_test.not_built_fix"))};
  }
  std::vector<CheckResult> out;
  // CUDA numbers the devices 0..n-1 like NVML unless CUDA_VISIBLE_DEVICES or
  // CUDA_DEVICE_ORDER reorders them; the label is CUDA's index.
  for (size_t i = 0; i < ctx.nvml.gpus.size(); ++i) {
    std::string index = std::to_string(i);
    auto run = ctx.kernels->Run(static_cast<int>(i));
    CheckResult r;
    if (!run.ok()) {
      r = MakeResult("smoke_test", CheckStatus::kFail,
                     {Msg("doctor.check.smoke_test.error",
                          {{"index", index}, {"error", run.status().message()}})},
                     Msg("doctor.check.smoke_test.error_fix", {{"error", run.status().message()}}));
      r.values = {{"gpu", i}, {"error", run.status().message()}};
    } else if (!run->verified) {
      r = MakeResult(
          "smoke_test", CheckStatus::kFail,
          {Msg("doctor.check.smoke_test.wrong", {{"index", index},
                                                 {"mismatches", std::to_string(run->mismatches)},
                                                 {"elements", std::to_string(run->elements)}})},
          Msg("doctor.check.smoke_test.wrong_fix"));
      r.values = {{"gpu", i}, {"elements", run->elements}, {"mismatches", run->mismatches}};
    } else {
      r = MakeResult("smoke_test", CheckStatus::kOk,
                     {Msg("doctor.check.smoke_test.ok",
                          {{"index", index}, {"elements", std::to_string(run->elements)}})});
      r.values = {{"gpu", i}, {"elements", run->elements}, {"mismatches", 0}};
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace gpuprobe::doctor
