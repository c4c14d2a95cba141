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
  std::string error;                   ///< set when the case failed to run
  bool ok() const { return !skipped && error.empty(); }
};

/// value = work / median time (rates) or median time / items (latency).
double MetricValue(Metric metric, const Work& work, double seconds);
/// Efficiency as defined on BenchResult; empty without a positive prediction and value.
std::optional<double> Efficiency(Metric metric, double value, std::optional<double> predicted);

}  // namespace gpuprobe::bench
