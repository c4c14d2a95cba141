// `gpuprobe explain NAME` for names that are neither an error nor a glossary term but appear
// on gpuprobe's own screens or in a user's question: a finding's title as `inspect` prints it
// ("GPU waiting on the host"), and a GPU's name ("H100", "GH200"). Each answer says what the
// name is and which verb shows the rest; JSON is gpuprobe.explain.v1 with verdict "finding_title" or
// "gpu_name" (docs/explain.md).
//
// Thread safety: pure functions over their arguments.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/gpu_spec.h"
#include "report/i18n.h"

namespace gpuprobe::cli {

/// The finding whose title, in English or Chinese, is `text` (case and surrounding spaces
/// ignored); nullopt when none is.
std::optional<std::string> FindingTitled(const std::string& text);

std::string RenderFindingName(const std::string& query, const std::string& id, const report::Texts& texts);
nlohmann::json FindingNameToJson(const std::string& query, const std::string& id, const report::Texts& texts);

/// A GPU's name answered from the spec database: one GPU, or the several a short name fits.
struct GpuNameAnswer {
  std::string query;
  std::vector<const model::GpuSpec*> gpus;  ///< one when the name is unambiguous
  /// With one GPU chosen by a short name ("h100" is the SXM5): the others the name also fits.
  std::vector<const model::GpuSpec*> variants;
};

std::string RenderGpuName(const GpuNameAnswer& answer, const report::Texts& texts);
nlohmann::json GpuNameToJson(const GpuNameAnswer& answer, const report::Texts& texts);

}  // namespace gpuprobe::cli
