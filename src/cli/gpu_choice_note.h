// A short GPU name that chose one of several cards says so: "h100" is read as the H100 SXM5,
// and the H100 PCIe and NVL carry the same words. Said in one place for every verb that takes
// a GPU by name (plan --gpu, gpus show, advise --gpu), so a user learns the other variants
// exist before trusting a figure of the wrong one.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/spec_database.h"
#include "report/i18n.h"

namespace gpuprobe::cli {

/// The names of the other GPUs `query` could have meant (SpecDatabase::OtherVariants).
std::vector<std::string> OtherVariantNames(const model::SpecDatabase& db, std::string_view query, const model::GpuSpec& chosen);

/// "note: 'h100' is read as H100 SXM5 80GB; it may also mean ... (name one to choose it)\n"
/// with `indent` before it; empty when `others` is empty.
std::string GpuChoiceNote(std::string_view query, const std::string& chosen, const std::vector<std::string>& others,
                          const report::Texts& texts, std::string_view indent = "");

/// {query, chosen, others}; null when `others` is empty.
nlohmann::json GpuChoiceJson(std::string_view query, const std::string& chosen, const std::vector<std::string>& others);

}  // namespace gpuprobe::cli
