#include "bench/normal_ranges.h"

#include <algorithm>

#include "knowledge/embedded_knowledge.h"

namespace gpuprobe::bench {

const NormalRange* FindNormalRange(const BenchResult& result) {
  auto ranges = knowledge::NormalRanges();
  if (!ranges.ok()) return nullptr;
  for (const NormalRange& r : **ranges) {
    if (r.backend != result.backend) continue;
    if (!r.case_label.empty() && r.case_label != result.case_label) continue;
    if (std::find(r.ids.begin(), r.ids.end(), result.id) != r.ids.end()) return &r;
  }
  return nullptr;
}

EfficiencyVerdict JudgeEfficiency(const BenchResult& result, const NormalRange* range) {
  // A comparison with an anchor measured in this run is not a fraction of a spec peak.
  if (!result.ok() || !result.efficiency || result.prediction_is_anchor) return EfficiencyVerdict::kNone;
  if (*result.efficiency > kAbovePredictionEfficiency) return EfficiencyVerdict::kSuspicious;
  if (range == nullptr) return EfficiencyVerdict::kNone;
  return *result.efficiency < range->low ? EfficiencyVerdict::kLow : EfficiencyVerdict::kNormal;
}

const char* EfficiencyVerdictName(EfficiencyVerdict verdict) {
  switch (verdict) {
    case EfficiencyVerdict::kNormal: return "normal";
    case EfficiencyVerdict::kLow: return "low";
    case EfficiencyVerdict::kSuspicious: return "suspicious";
    case EfficiencyVerdict::kNone: break;
  }
  return "";
}

}  // namespace gpuprobe::bench
