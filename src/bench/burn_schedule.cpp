#include "bench/burn_schedule.h"

#include <algorithm>
#include <cmath>

namespace gpuprobe::bench::gpu {

int BurnGemmsPerBatch(double gemm_seconds) {
  if (!(gemm_seconds > 0) || !std::isfinite(gemm_seconds)) return 1;
  return static_cast<int>(std::clamp(std::ceil(kBurnBatchSeconds / gemm_seconds), 1.0, 10000.0));
}

double DutyCycle(const std::vector<BusyInterval>& intervals) {
  if (intervals.empty()) return 0;
  double busy = 0;
  for (const auto& i : intervals) busy += std::max(0.0, i.end - i.start);
  double span = intervals.back().end - intervals.front().start;
  return span > 0 ? std::min(1.0, busy / span) : 0;
}

BurnSummary SummarizeBurn(const std::vector<BurnSample>& samples) {
  BurnSummary s;
  s.samples = static_cast<int>(samples.size());
  std::vector<double> sustained;
  double power = 0;
  int powered = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const BurnSample& x = samples[i];
    s.throttled += x.throttled ? 1 : 0;
    s.power_capped += x.power_capped ? 1 : 0;
    if (x.power_w > 0) {
      power += x.power_w;
      ++powered;
    }
    if (x.clock_hz > 0) {
      s.peak_clock_hz = std::max(s.peak_clock_hz, x.clock_hz);
      if (i > 0 || samples.size() == 1) sustained.push_back(x.clock_hz);
    }
  }
  if (sustained.empty() && s.peak_clock_hz > 0) sustained.push_back(s.peak_clock_hz);
  if (!sustained.empty()) {
    std::sort(sustained.begin(), sustained.end());
    std::size_t m = sustained.size() / 2;
    s.sustained_clock_hz = sustained.size() % 2 == 1 ? sustained[m] : 0.5 * (sustained[m - 1] + sustained[m]);
  }
  s.mean_power_w = powered > 0 ? power / powered : 0;
  return s;
}

std::string BurnVerdict(std::uint64_t errors, const BurnSummary& s, double duty_cycle) {
  if (errors > 0) return "UNHEALTHY: wrong results";
  if (s.samples > 0 && s.throttled * 2 >= s.samples) return "thermally throttled most of the time: check cooling";
  if (s.peak_clock_hz > 0 && s.sustained_clock_hz < kBurnClockSagRatio * s.peak_clock_hz) return "clocks sag under load";
  if (duty_cycle < kBurnMinDutyCycle) return "the GPU sat idle part of the time: the load was not sustained";
  if (s.samples > 0 && s.power_capped * 2 >= s.samples) return "healthy, at power limit";
  return "healthy";
}

}  // namespace gpuprobe::bench::gpu
