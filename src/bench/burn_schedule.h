// How burn.gemm keeps the GPU busy, CUDA-free: GEMMs are queued in batches of about
// kBurnBatchSeconds, at most kBurnBatchesInFlight batches ahead of the host, every result
// checked on the device in the same queue (no host round trip between GEMMs); the duty cycle
// is the time the GPU spent inside the batches over the span from the first to the last,
// from the events around each batch.
//
// Thread safety: pure functions.
#pragma once

#include <vector>

namespace gpuprobe::bench::gpu {

inline constexpr double kBurnBatchSeconds = 0.05;
inline constexpr int kBurnBatchesInFlight = 3;
/// Below this duty cycle the verdict says the host did not keep the GPU fed.
inline constexpr double kBurnMinDutyCycle = 0.95;

/// GEMMs per batch for a GEMM of `gemm_seconds`: enough for kBurnBatchSeconds, at least 1,
/// at most 10000 (a bogus tiny time must not queue a million launches).
int BurnGemmsPerBatch(double gemm_seconds);

/// One batch on the GPU's clock, seconds since the first batch started.
struct BusyInterval {
  double start = 0, end = 0;
};

/// Busy time / (last end - first start) over non-overlapping intervals in order; 0 when
/// there are none or the span is not positive.
double DutyCycle(const std::vector<BusyInterval>& intervals);

}  // namespace gpuprobe::bench::gpu
