// Comparing two recorded runs result by result: FASTER, SLOWER, SAME or UNCLEAR, decided
// with the spread of each result, not the medians alone, so noise is not called a change.
// Pure: no I/O.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "history/run_record.h"

namespace gpuprobe::history {

enum class Verdict { kFaster, kSlower, kSame, kUnclear };
const char* VerdictName(Verdict verdict);  ///< "FASTER", "SLOWER", "SAME", "UNCLEAR"

/// Changes smaller than this are SAME whatever the spreads say (2%).
inline constexpr double kSameWithin = 0.02;

struct ResultChange {
  std::string key, id, backend, case_label, metric, unit;
  double before = 0, after = 0;
  /// after / before in speed: > 1 is faster (for latency, before / after).
  double speedup = 1;
  Verdict verdict = Verdict::kUnclear;
  /// The two runs used different thread counts for this case (e.g. --threads 1 against the
  /// default): a change is then the setting's as much as the code's.
  bool threads_differ = false;
  int threads_before = 0, threads_after = 0;
};

struct RunComparison {
  std::vector<ResultChange> changes;  ///< results present in both runs, in the order of `after`
  std::vector<std::string> only_before, only_after;
};

/// The verdict for one pair of results:
/// - |change| < 2%: SAME;
/// - the spreads (p10..p90 of each) do not overlap: FASTER or SLOWER;
/// - they overlap: UNCLEAR (the change is inside the noise; rerun with --full for more samples).
Verdict Decide(const RecordedResult& before, const RecordedResult& after);

RunComparison CompareRuns(const RunRecord& before, const RunRecord& after);

/// The largest slowdown among SLOWER results, as a fraction (0.12 = 12% slower); empty if none.
std::optional<double> WorstRegression(const RunComparison& comparison);

}  // namespace gpuprobe::history
