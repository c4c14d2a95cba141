// The hand-written knowledge behind `explain`: data/knowledge/errors.json, one entry per
// problem in the users' words (English and Chinese): what it means, likely causes ranked,
// commands that tell them apart, and fixes. An entry is found by its own phrasings (RE2
// patterns: the frameworks' wordings), by the status codes it answers for (a list of names,
// or a family by prefix: every CUBLAS_STATUS_*), or by the Xid it explains. Statuses and
// Xids without an entry are answered from the generated status table and the Xid catalogue.
//
// Thread safety: immutable after Parse(); concurrent use is safe.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpuprobe::doctor {

struct LocalText {
  std::string en, zh;
  const std::string& In(const std::string& lang) const { return lang == "zh" && !zh.empty() ? zh : en; }
};

/// In `yields_to`: any Xid or SXid the catalogue lists (a device marked unhealthy because of one).
inline constexpr const char* kAnyXid = "@xid";

struct EntryPattern {
  std::string regex;   ///< RE2, matched case-insensitively
  std::string status;  ///< the status this phrasing reports (for a family entry); may be empty
};

struct KnowledgeEntry {
  std::string id;
  std::string severity;  ///< info, warn, fail
  LocalText title, meaning;
  std::vector<LocalText> causes, fixes;
  /// Commands that tell the causes apart; `zh` is empty for a bare command (In() shows `en`).
  std::vector<LocalText> confirm;
  std::vector<EntryPattern> patterns;
  std::vector<std::string> statuses;         ///< status names this entry answers for
  std::vector<std::string> status_prefixes;  ///< a family: every status whose name starts so
  std::map<std::string, LocalText> status_notes;  ///< per-status words inside a family
  std::optional<int> xid;                    ///< the Xid (or SXid, when `nvswitch`) it explains
  bool nvswitch = false;
  /// Entries that, when found in the same text, are the answer before this one (this one is
  /// their symptom, precursor or wrapper: cuBLAS cannot create a handle on a full GPU).
  /// kAnyXid stands for every catalogued Xid and SXid.
  std::vector<std::string> yields_to;
  /// Ranks after every other finding (Xid 45 and 154 follow another Xid).
  bool secondary = false;
  /// False for an error that is not a GPU problem (a JVM heap, the Linux OOM killer, a full
  /// disk, DNS): explain says so and what it is, and never presents it as a GPU error.
  bool gpu = true;
  /// The entry's phrasings do not count on a record that names CUDA, a GPU or a GPU library:
  /// a plain Python exception is not the answer when its line is about the GPU.
  bool unless_gpu_words = false;
  /// Where the fault lives: one of kLayers; empty when the entry does not say.
  std::string layer;
  /// A narrower reading of other findings (entry ids or finding keys such as
  /// "nvml_error:NVML_ERROR_NO_PERMISSION"): when one of them is found in a text that one of
  /// `when_emitters` printed, this entry is the answer instead (the same words mean another
  /// thing in another component).
  std::vector<std::string> refines;
  std::vector<std::string> when_emitters;
};

/// The layers a fault can live in, as entries and emitters name them.
inline constexpr const char* kLayers[] = {"hardware", "driver", "toolkit", "library", "framework",
                                          "engine",   "cluster", "host"};

class KnowledgeBase {
 public:
  /// Parses the knowledge JSON; ParseError naming the entry for a bad regex or field.
  static core::Result<KnowledgeBase> Parse(std::string_view json_text);
  /// The embedded data/knowledge/errors.json.
  static core::Result<const KnowledgeBase*> Embedded();

  const std::vector<KnowledgeEntry>& entries() const { return entries_; }
  const KnowledgeEntry* Find(std::string_view id) const;
  /// The entry that answers for status `name`: one that lists it, else a family whose prefix
  /// it has; nullptr when none. `by_family` tells which.
  const KnowledgeEntry* ForStatus(std::string_view name, bool* by_family = nullptr) const;
  /// The entry for Xid (or SXid) `number`; nullptr when none is written.
  const KnowledgeEntry* ForXid(int number, bool nvswitch) const;
  /// Entries that share the most words with `text` (for unknown text), best first.
  std::vector<const KnowledgeEntry*> Closest(std::string_view text, size_t limit = 3) const;

 private:
  std::vector<KnowledgeEntry> entries_;
  /// (nvswitch, number) → index into entries_: an Xid storm asks once per line.
  std::map<std::pair<bool, int>, size_t> by_xid_;
};

/// The words of `text` that Closest() counts in: runs of four or more letters (and digits,
/// with `with_digits`), lower case.
std::set<std::string> ClosenessWords(std::string_view text, bool with_digits = true);

}  // namespace gpuprobe::doctor
