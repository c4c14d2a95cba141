#include "bench/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gpuprobe::bench {

double Quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  double position = q * static_cast<double>(sorted.size() - 1);
  size_t lower = static_cast<size_t>(std::floor(position));
  size_t upper = std::min(lower + 1, sorted.size() - 1);
  double fraction = position - static_cast<double>(lower);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction;
}

SampleStats Summarize(std::vector<double> samples) {
  SampleStats stats;
  if (samples.empty()) return stats;
  std::sort(samples.begin(), samples.end());
  stats.count = static_cast<int>(samples.size());
  stats.median = Quantile(samples, 0.5);
  stats.best = samples.front();
  stats.p10 = Quantile(samples, 0.1);
  stats.p90 = Quantile(samples, 0.9);
  stats.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  stats.relative_spread = stats.median > 0 ? (stats.p90 - stats.p10) / stats.median : 0;
  stats.noisy = stats.relative_spread > kNoisySpread;
  return stats;
}

}  // namespace gpuprobe::bench
