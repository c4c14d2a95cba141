// BenchResult: one measured case, with everything a view needs: the value in SI units, the
// model's prediction, the efficiency, verification and the statistics behind it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "bench/benchmark.h"
#include "bench/statistics.h"

namespace gpuprobe::bench {

struct BenchResult {
  std::string id, group, title, claim, backend, device;
  std::string case_label, variant;
  std::uint64_t size = 0;
  int threads = 0;
  double param = 0;
  Metric metric = Metric::kBandwidth;
  double value = 0;                    ///< in MetricUnit(metric)
  std::optional<double> predicted;     ///< same unit
  std::string prediction_basis;
  core::TextRef prediction_basis_text{};  ///< the basis as a text key (live runs; not saved in JSON)
  bool prediction_is_anchor = false;   ///< predicted by a comparison point measured in this run
  /// measured / predicted for rates; predicted / measured for latency (1 = as predicted).
  std::optional<double> efficiency;
  bool verified = false;
  std::string verification_detail;
  double checksum = 0;
  SampleStats stats;                   ///< seconds per iteration
  Work work;
  std::string note;                    ///< e.g. "AVX2 kernel, non-temporal stores"
  double clock_hz = 0;                 ///< clock measured during the case (0 = not measured)
  bool throttled = false;              ///< the device was power- or thermal-limited right after the case
  bool skipped = false;
  std::string skip_reason;
  core::TextRef skip_reason_text{};    ///< the reason as a text key (live runs; not saved in JSON)
  std::string error;                   ///< set when the case failed to run
  bool ok() const { return !skipped && error.empty(); }
};

/// value = work / median time (rates) or median time / items (latency).
double MetricValue(Metric metric, const Work& work, double seconds);
/// Efficiency as defined on BenchResult; empty without a positive prediction and value.
std::optional<double> Efficiency(Metric metric, double value, std::optional<double> predicted);

/// Above this efficiency a result beat its prediction by more than measurement noise.
inline constexpr double kAbovePredictionEfficiency = 1.05;

enum class EfficiencyFlag {
  kNone,
  kAboveModel,        ///< measured > 105% of the model: the model is wrong here (said beside it)
  kFasterThanAnchor,  ///< faster than the comparison point measured in this run
};

/// The flag a result's efficiency calls for.
EfficiencyFlag FlagEfficiency(const BenchResult& result);
/// "above_model", "faster_than_anchor" or "" (the JSON and the texts' key).
const char* EfficiencyFlagName(EfficiencyFlag flag);

}  // namespace gpuprobe::bench
