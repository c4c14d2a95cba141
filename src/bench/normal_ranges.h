// What real systems reach: beside a measured efficiency, the range published runs of the same
// kind of benchmark land in (data/knowledge/normal_ranges.json, sources in
// docs/normal-ranges.md), and a verdict: normal, low (with why it may be low) or suspicious
// (beyond the prediction by more than noise: bench/result.h's kAbovePredictionEfficiency).
//
// The table itself is owned by knowledge/ (parsed once); its entry type by model/normal_range.h.
//
// Thread safety: safe from any thread.
#pragma once

#include "bench/result.h"
#include "model/normal_range.h"

namespace gpuprobe::bench {

using model::NormalRange;
using model::ParseNormalRanges;

/// The range for `result` from the embedded table; nullptr when none applies.
const NormalRange* FindNormalRange(const BenchResult& result);

enum class EfficiencyVerdict { kNone, kNormal, kLow, kSuspicious };

/// kNone without an efficiency or a range; kSuspicious above kAbovePredictionEfficiency;
/// kLow below the range; kNormal otherwise (at or above the range's low end).
EfficiencyVerdict JudgeEfficiency(const BenchResult& result, const NormalRange* range);
/// "normal", "low", "suspicious" or "" (the JSON and the texts' key).
const char* EfficiencyVerdictName(EfficiencyVerdict verdict);

}  // namespace gpuprobe::bench
