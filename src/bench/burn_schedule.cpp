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

}  // namespace gpuprobe::bench::gpu
