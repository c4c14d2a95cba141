// What a pasted text or a whole log says: every finding of ErrorMatcher grouped by what it is
// about (repeats counted, first and last time kept, the GPUs and processes an Xid names
// gathered), then ranked so the root cause comes first. In a paste the first error printed
// leads, except that an entry yields to the entries it names in `yields_to` (a symptom after
// its cause); in a log the most severe leads, then the earliest. In both, `secondary` entries
// (Xid 45 after another Xid) come last, and a symptom found on the same record as its cause
// is counted under the cause. An error that is not a GPU problem (KnowledgeEntry::gpu false)
// ranks after every GPU error. The components that printed the text (EmitterTable) refine
// findings whose words mean something narrower in that component (KnowledgeEntry::refines).
//
// Thread safety: reentrant; the matcher is shared read-only.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "doctor/emitter.h"
#include "doctor/error_matcher.h"
#include "doctor/log_records.h"

namespace gpuprobe::doctor {

/// The most GPUs and processes a hit lists (a log may name thousands: the first are kept).
inline constexpr size_t kMaxListedGpus = 16;

struct Hit {
  Finding finding;               ///< as found the first time
  int first_line = 0, last_line = 0;
  int occurrences = 0;           ///< records in which it was found
  std::string excerpt;           ///< the first record, trimmed to 300 bytes
  std::string record;            ///< the first record in full (up to the per-line limit)
  LogTime::Kind time_kind = LogTime::Kind::kNone;
  double first_seconds = 0, last_seconds = 0;
  std::string first_time, last_time;   ///< as printed; empty when the lines carry no time
  std::vector<std::string> gpus;       ///< PCI addresses named by its Xid lines (at most kMaxListedGpus)
  std::vector<std::string> processes;  ///< "python3 (pid 1234)" from its Xid lines (at most 16)
  /// The hit this one is a symptom of (its entry yields to that one's, e.g. a CUDA error after
  /// the Xid the driver logged for the same fault): its index in Analysis::hits, or -1.
  int follows = -1;
};

enum class AnalysisMode {
  kPaste,  ///< a message pasted by a person: first printed first
  kLog,    ///< a log file: most severe first, then earliest
};

struct Analysis {
  std::vector<Hit> hits;          ///< ranked, root cause first
  /// The components that printed a pasted text, most specific first; empty for a log (each
  /// hit's record is read on its own there).
  std::vector<EmitterHit> emitters;
  /// When nothing was recognised and the whole text is a lookup ("700", "error 2", a status
  /// name, "Xid 79"): every reading, best first.
  std::vector<Finding> readings;
  int lines = 0;
};

/// Per-line limit on what is matched: a hostile line costs no more than a real one.
inline constexpr size_t kMaxMatchedLineBytes = 64 * 1024;

/// `emitters` may be null: no refinement by emitter then.
Analysis Analyze(const ErrorMatcher& matcher, const EmitterTable* emitters, std::string_view text, AnalysisMode mode);
/// With the embedded emitter table.
Analysis Analyze(const ErrorMatcher& matcher, std::string_view text, AnalysisMode mode);

/// Whether a finding is a GPU problem (every finding but a not-GPU entry's).
bool IsGpuFinding(const Finding& finding);
/// The stretches a log is read in on `parts` cores: cut at line starts that begin a record,
/// never inside a kernel notice printed over several lines; a run of continuation lines
/// longer than any record is cut anyway. Exposed for its test.
std::vector<std::string_view> SplitLog(std::string_view text, unsigned parts);

/// 0 fail, 1 warn, 2 info (sorting order).
int SeverityRank(const std::string& severity);

}  // namespace gpuprobe::doctor
