#include "cli/gpu_choice_note.h"

#include "cli/command.h"

namespace gpuprobe::cli {

std::vector<std::string> OtherVariantNames(const model::SpecDatabase& db, std::string_view query, const model::GpuSpec& chosen) {
  std::vector<std::string> names;
  for (const model::GpuSpec* g : db.OtherVariants(query, chosen)) names.push_back(g->name);
  return names;
}

std::string GpuChoiceNote(std::string_view query, const std::string& chosen, const std::vector<std::string>& others,
                          const report::Texts& texts, std::string_view indent) {
  if (others.empty()) return "";
  const bool zh = texts.language() == report::Language::kZh;
  std::string list;
  for (const auto& name : others) {
    if (!list.empty()) list += zh ? "、" : ", ";
    list += GpuNameText(name, texts);
  }
  return std::string(indent) + Tr(texts, "gpu.choice_note", fmt::arg("query", std::string(query)),
                                  fmt::arg("chosen", GpuNameText(chosen, texts)), fmt::arg("others", list),
                                  fmt::arg("count", others.size())) +
         "\n";
}

nlohmann::json GpuChoiceJson(std::string_view query, const std::string& chosen, const std::vector<std::string>& others) {
  if (others.empty()) return nullptr;
  return {{"query", std::string(query)}, {"chosen", chosen}, {"others", others}};
}

}  // namespace gpuprobe::cli
