// Views of what `gpuprobe explain` found: the terminal rendering and the JSON document
// (gpuprobe.explain.v1, documented in docs/explain.md). Every sentence comes from the text
// catalogue (data/texts/<lang>/explain.json) or the knowledge data, in English and Chinese;
// text copied from the input (excerpts, process names) is made valid UTF-8 first.
//
// Thread safety: pure functions over their arguments.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "doctor/capability.h"
#include "doctor/error_analysis.h"
#include "doctor/oom_details.h"
#include "doctor/text_profile.h"
#include "doctor/version_story.h"
#include "report/i18n.h"

namespace gpuprobe::cli {

struct ExplainResult {
  std::string source;   ///< the log's name for --from; empty for a pasted text
  bool log = false;     ///< --from: the log summary comes first
  std::string query;    ///< the text as given (for a lookup's heading)
  doctor::Analysis analysis;
  std::optional<doctor::OomDetails> oom;
  std::vector<doctor::VersionStory> versions;
  /// What the text says about compute capability: who has it, what the user's GPU lacks.
  std::optional<doctor::CapabilityAnswer> capability;
  /// When nothing was recognised in a paste: what the text is made of.
  std::optional<doctor::TextProfile> profile;
  std::vector<const doctor::KnowledgeEntry*> closest;  ///< when nothing was recognised
  /// When a short text was not recognised: glossary names close to it (a mistyped term).
  std::vector<std::string> near_terms;
  /// Glossary terms a question in words is about (model::Glossary::About), when no name is near.
  std::vector<std::string> about_terms;
};

std::string RenderExplain(const ExplainResult& result, const doctor::ErrorMatcher& matcher, const report::Texts& texts);
nlohmann::json ExplainToJson(const ExplainResult& result, const doctor::ErrorMatcher& matcher, const report::Texts& texts);

std::string RenderExplainList(const doctor::ErrorMatcher& matcher, const report::Texts& texts);
nlohmann::json ExplainListToJson(const doctor::ErrorMatcher& matcher, const report::Texts& texts);

/// `text` with every invalid UTF-8 sequence replaced by U+FFFD.
std::string ValidUtf8(std::string_view text);

}  // namespace gpuprobe::cli
