// The newcomer's glossary (data/knowledge/glossary.json, schema gpuprobe.glossary.v1): the
// words gpuprobe's screens use, each with a one-line meaning, a backend engineer's analogy,
// the gpuprobe command that shows it and the normal range where one exists, in English and
// Chinese; and the rule that finds a term by what a user types. The file is embedded and
// parsed once by knowledge/embedded_knowledge.h; `gpuprobe explain TERM` prints it.
//
// Thread safety: plain values and pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpuprobe::model {

/// One text in both product languages.
struct GlossaryText {
  std::string en;
  std::string zh;
  /// `zh` when `chinese`, else `en`.
  const std::string& In(bool chinese) const { return chinese ? zh : en; }
};

/// What a healthy system shows, and where the figure comes from.
struct GlossaryNormal {
  GlossaryText text;
  std::string source;
};

struct GlossaryTerm {
  std::string id;                       ///< stable snake_case key ("kv_cache")
  std::string group;                    ///< a GlossaryGroup id
  std::vector<std::string> names;       ///< every spelling that finds it (en and zh)
  GlossaryText title, meaning, analogy;
  std::string command;                  ///< the gpuprobe command that shows it
  std::optional<GlossaryNormal> normal; ///< absent where no normal range exists
  std::vector<std::string> see_also;    ///< other term ids
  std::vector<std::string> sources;     ///< where the figures its texts state come from
};

struct GlossaryGroup {
  std::string id;
  GlossaryText title;
};

/// The key a name is compared by: ASCII letters in lower case, white space, hyphens and
/// underscores dropped ("Tensor-Core" and "tensor core" give "tensorcore"); other bytes
/// (Chinese) kept as they are.
std::string GlossaryKey(std::string_view text);

class Glossary {
 public:
  /// Parses the file's text; ParseError naming `label`, the term and the field. Refuses a
  /// name two terms claim (by GlossaryKey), a name with no letter (a bare number is a status
  /// or an Xid, never a term), a group or see_also id that does not exist.
  static core::Result<Glossary> Parse(std::string_view json_text, const std::string& label);

  const std::vector<GlossaryGroup>& groups() const { return groups_; }
  /// In the file's order (grouped, as docs/glossary.md lists them).
  const std::vector<GlossaryTerm>& terms() const { return terms_; }

  /// The term whose name is the whole of `text` (by GlossaryKey, after trimming white space,
  /// quotes and a trailing question mark); nullptr when none is. Texts of more than
  /// kMaxTermWords words are never terms.
  const GlossaryTerm* Find(std::string_view text) const;
  /// The term with this id; nullptr when none.
  const GlossaryTerm* ById(std::string_view id) const;
  /// Ids of up to `limit` terms whose names are closest to `text` (edit distance on the key),
  /// for "did you mean"; none for a text of more than kMaxTermWords words.
  std::vector<std::string> Closest(std::string_view text, size_t limit = 3) const;

  /// Ids of up to `limit` terms a question in words is about ("why are host to GPU copies
  /// slow"): a term scores for each of its names the text contains (Chinese names too), and for
  /// the English words the text shares with its title (two) and meaning (one; plural "s"
  /// dropped, question words ignored); best first, only terms that share a name or score three.
  /// For a text that names no term and is no known error.
  std::vector<std::string> About(std::string_view text, size_t limit = 3) const;

  /// The term one of whose names a short phrase (at most kMaxPhraseWords words and
  /// kMaxPhraseBytes) contains ("100% GPU util" holds GPU-Util's name): the longest name found
  /// wins; nullptr when none is, or the text is longer than a phrase (a sentence about an error,
  /// "my NCCL all-reduce hangs forever", is read as one, not as a term).
  const GlossaryTerm* NamedIn(std::string_view text) const;
  static constexpr size_t kMaxPhraseBytes = 80;
  static constexpr size_t kMaxPhraseWords = 4;
  /// About() reads texts up to this long; a longer one is about nothing.
  static constexpr size_t kMaxQuestionBytes = 2048;

  /// A text longer than this many words is an error text, not a term.
  static constexpr size_t kMaxTermWords = 5;

 private:
  std::vector<GlossaryGroup> groups_;
  std::vector<GlossaryTerm> terms_;
  std::vector<std::pair<std::string, size_t>> keys_;  ///< sorted (key, term index)
};

}  // namespace gpuprobe::model
