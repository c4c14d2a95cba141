// Views of `gpuprobe advise`: the terminal rendering and the gpuprobe.advise.v1 JSON.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "model/advisor.h"
#include "report/i18n.h"

namespace gpuprobe::cli {

/// The workload, the CPU, the `top` fastest GPUs, the five criteria and the verdict.
std::string RenderAdvice(const model::Workload& workload, const model::CpuCapability& cpu, const model::Advice& advice,
                         int top, const report::Texts& texts);
/// gpuprobe.advise.v1 (docs/advise.md): every GPU with its figures (peak, bandwidth, usable
/// memory, link), times, price and, for an LLM workload, whether the model fits.
nlohmann::json AdviceToJson(const model::Workload& workload, const model::CpuCapability& cpu, const model::Advice& advice,
                            const report::Texts& texts);

}  // namespace gpuprobe::cli
