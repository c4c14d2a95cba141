// What real systems reach: beside a measured efficiency, the range published runs of the same
// kind of benchmark land in (data/knowledge/normal_ranges.json, sources in
// docs/normal-ranges.md), and a verdict: normal, low (with why it may be low) or suspicious
// (beyond the prediction by more than noise: bench/result.h's kAbovePredictionEfficiency).
//
// Thread safety: safe from any thread (the table is parsed once, immutable after).
#pragma once

#include <string>
#include <vector>

#include "bench/result.h"
#include "core/status.h"

namespace gpuprobe::bench {

struct NormalRange {
  std::vector<std::string> ids;  ///< the benchmarks it applies to
  std::string backend;           ///< "cpu" or "cuda"
  std::string case_label;        ///< only this case ("all threads"); empty = every case
  double low = 0, high = 0;      ///< efficiency (measured / predicted) real systems reach
  std::string source;            ///< where the figures come from
  std::string low_reason;        ///< "memory" or "matmul": texts bench.normal.low_reason.<it>
};

/// Parses the table (the embedded file's text); ParseError naming the entry and field.
core::Result<std::vector<NormalRange>> ParseNormalRanges(const std::string& json_text, const std::string& label);

/// The range for `result` from the embedded table; nullptr when none applies.
const NormalRange* FindNormalRange(const BenchResult& result);

enum class EfficiencyVerdict { kNone, kNormal, kLow, kSuspicious };

/// kNone without an efficiency or a range; kSuspicious above kAbovePredictionEfficiency;
/// kLow below the range; kNormal otherwise (at or above the range's low end).
EfficiencyVerdict JudgeEfficiency(const BenchResult& result, const NormalRange* range);
/// "normal", "low", "suspicious" or "" (the JSON and the texts' key).
const char* EfficiencyVerdictName(EfficiencyVerdict verdict);

}  // namespace gpuprobe::bench
