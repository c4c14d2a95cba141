// One finding of `explain` put into words in the user's language: a hand-written entry's own
// texts, or the generic answer for a status (its header comment and printed message) or an
// Xid (the catalogue's category and action, in English and Chinese from the text catalogue).
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "doctor/error_matcher.h"
#include "report/i18n.h"

namespace gpuprobe::cli {

struct AnswerText {
  std::string id;        ///< the finding's key
  std::string entry;     ///< the hand-written entry's id; empty for a generic answer
  std::string severity;
  std::string title, meaning;
  std::vector<std::string> facts;  ///< status and Xid facts, one line each
  std::vector<std::string> causes, confirm, fixes;
  std::string source_url;          ///< the Xid catalogue page; empty otherwise
  bool gpu = true;                 ///< false: not a GPU problem (the entry says so)
};

AnswerText Answer(const doctor::Finding& finding, const doctor::ErrorMatcher& matcher, const report::Texts& texts);

/// A one-line title for a status reading ("CUDA runtime status cudaErrorMemoryAllocation (2)"
/// or the entry's title).
std::string ReadingTitle(const doctor::Finding& finding, const doctor::ErrorMatcher& matcher, const report::Texts& texts);

}  // namespace gpuprobe::cli
