// Views of the glossary behind `gpuprobe explain TERM`: one term (meaning, a backend
// engineer's analogy, the gpuprobe command that shows it, the normal range with its source),
// the list of terms by group, and their JSON forms (gpuprobe.explain.v1 with verdict "term",
// documented in docs/explain.md). Every word comes from the glossary or the text catalogue
// (data/texts/<lang>/explain.json), in the reader's language.
//
// Thread safety: pure functions over their arguments.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "model/glossary.h"
#include "report/i18n.h"

namespace gpuprobe::cli {

struct TermAnswer {
  std::string query;                                ///< the text as given
  const model::GlossaryTerm* term = nullptr;
  /// What the same text reads as when taken as an error text (a name that is also an
  /// error's words, "nvidia-fabricmanager"): the finding's key and title; empty when nothing.
  std::string also_error_key, also_error_title;
};

/// What a reader of this language types to reach a term: its title up to the first
/// parenthesis, the first of two things it names ("SM" in English, "流多处理器 SM" in
/// Chinese), which is one of its names (tools/check_glossary.py holds the file to that).
std::string TermName(const model::GlossaryTerm& term, bool zh);

std::string RenderTerm(const TermAnswer& answer, const model::Glossary& glossary, const report::Texts& texts);
nlohmann::json TermToJson(const TermAnswer& answer, const model::Glossary& glossary, const report::Texts& texts);

std::string RenderTermList(const model::Glossary& glossary, const report::Texts& texts);
nlohmann::json TermListToJson(const model::Glossary& glossary, const report::Texts& texts);

}  // namespace gpuprobe::cli
