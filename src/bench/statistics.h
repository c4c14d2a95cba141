// Summary statistics of timing samples: median (the headline, as nvbandwidth), best (the
// "peak seen", as STREAM), p10-p90 spread, and the noisy flag.
//
// Thread safety: pure functions.
#pragma once

#include <vector>

namespace gpuprobe::bench {

/// A result whose (p90 - p10) / median exceeds this is flagged noisy.
inline constexpr double kNoisySpread = 0.10;

struct SampleStats {
  int count = 0;
  double median = 0;
  double best = 0;      ///< minimum time
  double p10 = 0;       ///< 10th percentile (linear interpolation)
  double p90 = 0;
  double mean = 0;
  double relative_spread = 0;  ///< (p90 - p10) / median
  bool noisy = false;
};

/// Summarises `samples` (seconds); all zero for an empty vector.
SampleStats Summarize(std::vector<double> samples);

/// The q-quantile (0..1) of sorted samples, interpolating linearly.
double Quantile(const std::vector<double>& sorted, double q);

}  // namespace gpuprobe::bench
