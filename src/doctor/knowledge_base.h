// The error knowledge base behind `explain`: entries in data/knowledge/errors.json (en, zh),
// each with regular expressions for the texts it recognises, what it means, likely causes
// ranked, commands that confirm which one, and fixes. Matching works on a single message or
// on a whole log (each line; Xid lines from the kernel log included).
//
// Thread safety: immutable after Parse(); concurrent matching is safe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

#include <re2/set.h>

namespace gpuprobe::doctor {

struct LocalText {
  std::string en, zh;
  const std::string& In(const std::string& lang) const { return lang == "zh" && !zh.empty() ? zh : en; }
};

struct KnowledgeEntry {
  std::string id;
  std::string severity;  ///< info, warn, fail
  LocalText title, meaning;
  std::vector<LocalText> causes, fixes;
  std::vector<std::string> confirm;
  std::vector<std::string> pattern_texts;
  /// RE2, not std::regex: logs are untrusted, and RE2 runs in linear time without recursion,
  /// so a hostile line can neither hang nor overflow the stack.
  std::vector<std::shared_ptr<const re2::RE2>> patterns;
};

struct Hit {
  const KnowledgeEntry* entry = nullptr;
  int first_line = 0;     ///< 1-based line of the first match
  int occurrences = 0;
  std::string excerpt;    ///< the first matching line, trimmed to 300 characters
};

/// What a PyTorch out-of-memory message says, parsed (both message formats).
struct OomDetails {
  double requested_bytes = 0, total_bytes = 0, free_bytes = 0;
  std::optional<double> allocated_bytes, reserved_unallocated_bytes, this_process_bytes;
  std::string diagnosis;  ///< "fragmentation", "someone_else", "too_big"
};

class KnowledgeBase {
 public:
  /// Parses the knowledge JSON; ParseError naming the entry for a bad regex or field.
  static core::Result<KnowledgeBase> Parse(std::string_view json_text);
  /// The embedded data/knowledge/errors.json.
  static core::Result<const KnowledgeBase*> Embedded();

  const std::vector<KnowledgeEntry>& entries() const { return entries_; }
  const KnowledgeEntry* Find(const std::string& id) const;
  /// Every entry whose patterns match a line of `text`, in order of first appearance.
  std::vector<Hit> Match(std::string_view text) const;
  /// Entries that share the most words with `text` (for unknown text), best first.
  std::vector<const KnowledgeEntry*> Closest(std::string_view text, size_t limit = 3) const;

 private:
  std::vector<KnowledgeEntry> entries_;
  /// Every pattern of every entry compiled into one automaton, so a log line is scanned once,
  /// not once per pattern; pattern_owner_[i] is the entry index of pattern i.
  std::shared_ptr<re2::RE2::Set> all_patterns_;
  std::vector<size_t> pattern_owner_;
};

/// Parses a PyTorch OOM message (>= 2.1 and the older format); empty when it is not one.
std::optional<OomDetails> ParseOutOfMemory(std::string_view text);

}  // namespace gpuprobe::doctor
