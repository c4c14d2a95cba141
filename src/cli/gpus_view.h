// Views of the spec database for `gpuprobe gpus`: JSON (SI base units, unit in the key) and
// the terminal renderings of list, show, compare and task selection.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/gpu_selection.h"
#include "model/spec_database.h"
#include "report/i18n.h"

namespace gpuprobe::cli {

/// One GPU in SI units: memory_bandwidth_bytes_per_s, memory_bytes, fp32_flops,
/// bf16_tensor_dense_flops, tdp_watts, ... null when unknown, listed in "not_applicable"
/// when the hardware has no such unit; derived figures beside the vendor's.
nlohmann::json GpuToJson(const model::GpuSpec& gpu);

std::string RenderGpuList(const model::SpecDatabase& db, const report::Texts& texts);
std::string RenderGpuShow(const model::GpuSpec& gpu, const report::Texts& texts);
std::string RenderGpuCompare(const std::vector<const model::GpuSpec*>& gpus, const report::Texts& texts);
std::string RenderTask(const model::TaskRule& rule, const std::vector<model::TaskPick>& picks,
                       const report::Texts& texts);
std::string RenderHostLinks(const model::SpecDatabase& db, const report::Texts& texts);

}  // namespace gpuprobe::cli
