// Recognising GPU errors in one record of text (a line, or a joined kernel message). Five
// kinds of evidence, by meaning rather than by sample:
//   - an entry's own phrasings (the frameworks' wordings, RE2),
//   - a status name anywhere (cudaErrorIllegalAddress, CUDA_ERROR_OUT_OF_MEMORY, ncclRemoteError),
//   - an Xid or SXid report (its grammar, see xid_line.h),
//   - a status's printed message (cudaGetErrorString's "misaligned address"); a short message
//     counts only beside its API's name (CUDA, NCCL, ...), a long one anywhere,
//   - a number in a position that holds a status ("cuda runtime error (59)", "CUDA failure 2",
//     "(803 vs. 0)", "cuInit() returned 100", NCCL's "-> 6"),
//   - a library's own messages, read from its source (library_messages.h: NCCL's WARN
//     formats, the cuDNN frontend's errors): the status the code returns with the message,
//     and the subsystem that printed it.
// The first three and a library's own messages are strong; the last two are weak and count only on a record where no
// strong evidence was found. A record is scanned once for the literal words every pattern
// needs (RE2::Set of literals), and only the patterns whose words are all present run (RE2's
// FilteredRE2); a record that brings too many candidates is matched by all patterns combined
// in one RE2::Set instead. Either way: linear time in the record's length.
//
// Thread safety: immutable after Create(); concurrent matching is safe.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "doctor/host_errors.h"
#include "doctor/knowledge_base.h"
#include "doctor/status_table.h"
#include "doctor/xid_catalog.h"
#include "doctor/xid_line.h"

#include <re2/filtered_re2.h>
#include <re2/re2.h>
#include <re2/set.h>


namespace gpuprobe::doctor {

enum class Evidence { kPattern, kStatusName, kXid, kMessage, kNumber, kQuery };

/// One thing recognised: a hand-written entry, a status, an Xid, or all three at once.
struct Finding {
  /// What the finding is about, the same for every phrasing of it: an entry id
  /// ("cuda_out_of_memory"), a family entry and its status ("cublas_error:CUBLAS_STATUS_ALLOC_FAILED"),
  /// a status without an entry ("status:cudaErrorInvalidPitchValue"), or an Xid without one
  /// ("xid:57", "sxid:20034").
  std::string key;
  const KnowledgeEntry* entry = nullptr;   ///< the hand-written entry, or nullptr
  const StatusCode* status = nullptr;      ///< the status, when one is known (as found, not canonical)
  std::optional<XidEvent> xid;             ///< an Xid or SXid report (number always set)
  const XidInfo* xid_info = nullptr;       ///< the catalogue's row; nullptr for a number it lacks
  Evidence evidence = Evidence::kPattern;
  /// info, warn or fail: the entry's, or derived from the Xid's action, or warn.
  std::string severity;
  /// For a status read from a bare number: the number's other readings (other APIs, the old
  /// numbering), best first.
  std::vector<const StatusCode*> other_readings;
  /// Where in the library the message is printed, when known: an NCCL WARN's subsystem and
  /// source file ("socket", "src/misc/socket.cc"), a cuDNN frontend message's.
  std::string origin_api, origin_subsystem, origin_file;
  /// A host error (errno, Python exception) read when no entry recognised the text: never a
  /// GPU finding. Key "os_error:EMFILE" or "python:ImportError".
  std::optional<HostError> host;
};

/// Whether `text` names something of the GPU stack (CUDA, a GPU, NVIDIA, NCCL, cuDNN, Xid, ROCm/HIP,
/// ...): entries that describe ordinary host errors do not hold on such text.
bool NamesGpu(std::string_view text);

class ErrorMatcher {
 public:
  /// Compiles every pattern; ParseError when a status or Xid named by an entry is unknown or
  /// the patterns cannot be combined.
  static core::Result<std::unique_ptr<ErrorMatcher>> Create(const KnowledgeBase& kb, const StatusTable& statuses,
                                                            const XidCatalog& xids);
  /// Built from the embedded data.
  static core::Result<const ErrorMatcher*> Embedded();
  ~ErrorMatcher();

  /// Everything recognised in one record (no newline inside), strong evidence first; each key
  /// once.
  std::vector<Finding> MatchRecord(std::string_view text) const;
  /// The rules whose patterns match `text` (sorted); empty when nothing can be recognised in it.
  /// The cheap first step of MatchRecord, for callers that skip records in between.
  std::vector<int> MatchingRules(std::string_view text) const;
  /// MatchRecord with the rules MatchingRules returned for the same text.
  std::vector<Finding> MatchRecord(std::string_view text, const std::vector<int>& matched) const;

  /// `query` read as a lookup: a bare number or "error N" (every reading, ranked by the words
  /// around it: "nccl error 2" puts NCCL first), a status name, or "Xid N". Empty when the
  /// query is none of these.
  std::vector<Finding> Lookup(std::string_view query) const;

  /// The finding for a status (its entry, family or generic answer).
  Finding ForStatus(const StatusCode& status, Evidence evidence) const;
  /// The finding for Xid (or SXid) `number`, known to the catalogue or not.
  Finding ForXid(const XidEvent& event, Evidence evidence) const;

  const KnowledgeBase& kb() const { return kb_; }
  const StatusTable& statuses() const { return statuses_; }
  const XidCatalog& xids() const { return xids_; }

 private:
  struct Rule;
  struct NumberPosition;
  ErrorMatcher(const KnowledgeBase& kb, const StatusTable& statuses, const XidCatalog& xids);
  core::Status Compile();
  std::vector<const StatusCode*> RankReadings(std::vector<const StatusCode*> readings, std::string_view context,
                                              bool old_era) const;
  /// `positions`: the number positions the combined set found on the record (only those are
  /// run again to read their numbers).
  void FindMessages(std::string_view text, const std::vector<size_t>& positions, std::vector<Finding>& out) const;
  void FindNumbers(std::string_view text, const std::vector<size_t>& positions, std::vector<Finding>& out) const;
  void FindNames(std::string_view text, std::vector<Finding>& out) const;
  /// The runtime's message retyped with a slip ("invalid device oridinal") after "CUDA error:":
  /// the one message within two edits, when exactly one is.
  void FindMisspeltMessage(std::string_view text, std::vector<Finding>& out) const;

  const KnowledgeBase& kb_;
  const StatusTable& statuses_;
  const XidCatalog& xids_;
  /// Every rule in one automaton, compiled on first use; null when it cannot be.
  const re2::RE2::Set* CombinedSet() const;
  mutable std::once_flag set_once_;
  mutable std::unique_ptr<re2::RE2::Set> set_;  // every rule in one automaton (the fallback)
  std::vector<std::string> rule_patterns_;       // the rules' patterns, in rule order
  std::unique_ptr<re2::FilteredRE2> filter_;     // every rule, prefiltered by its literal atoms
  std::unique_ptr<re2::RE2::Set> atoms_;         // the atoms (lower case), matched in one pass
  std::vector<int> unfiltered_;                  // rules without atoms: candidates on every record
  std::uint64_t identity_;                       // tells apart the matchers a thread's memo of atom sets served
  std::vector<Rule> rules_;
  std::vector<NumberPosition> numbers_;
  std::unique_ptr<re2::RE2> names_, messages_;
  std::vector<std::unique_ptr<re2::RE2>> library_gates_;  // per library source (error_matcher.cpp)
  const KnowledgeEntry* nccl_family_ = nullptr;  // the entry answering every NCCL status
  std::vector<std::pair<std::string, std::vector<const StatusCode*>>> message_index_;  // lower-case message -> statuses
};

/// The severity an Xid's action implies: none -> info; restart_app, check_app, update_driver,
/// contact_support -> warn; reset_gpu, reboot_node, drain_node, rma -> fail.
std::string SeverityOfAction(const std::string& action);

}  // namespace gpuprobe::doctor
