#include "bench/result.h"

namespace gpuprobe::bench {

double MetricValue(Metric metric, const Work& work, double seconds) {
  if (seconds <= 0) return 0;
  switch (metric) {
    case Metric::kBandwidth: return work.Bytes() / seconds;
    case Metric::kFlops: return work.flops / seconds;
    case Metric::kOps: return work.ops / seconds;
    case Metric::kLatency: return work.items > 0 ? seconds / work.items : 0;
  }
  return 0;
}

std::optional<double> Efficiency(Metric metric, double value, std::optional<double> predicted) {
  if (!predicted || *predicted <= 0 || value <= 0) return std::nullopt;
  return metric == Metric::kLatency ? *predicted / value : value / *predicted;
}

EfficiencyFlag FlagEfficiency(const BenchResult& r) {
  if (!r.ok() || !r.efficiency || *r.efficiency <= kAbovePredictionEfficiency) return EfficiencyFlag::kNone;
  return r.prediction_is_anchor ? EfficiencyFlag::kFasterThanAnchor : EfficiencyFlag::kAboveModel;
}

const char* EfficiencyFlagName(EfficiencyFlag flag) {
  switch (flag) {
    case EfficiencyFlag::kAboveModel: return "above_model";
    case EfficiencyFlag::kFasterThanAnchor: return "faster_than_anchor";
    case EfficiencyFlag::kNone: break;
  }
  return "";
}

}  // namespace gpuprobe::bench
