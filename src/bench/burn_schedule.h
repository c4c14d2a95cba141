// How burn.gemm keeps the GPU busy, CUDA-free: GEMMs are queued in batches of about
// kBurnBatchSeconds, at most kBurnBatchesInFlight batches ahead of the host, every result
// checked on the device in the same queue (no host round trip between GEMMs); the duty cycle
// is the time the GPU spent inside the batches over the span from the first to the last,
// from the events around each batch.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
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

/// Below this share of the peak sampled clock, the sustained clock "sags".
inline constexpr double kBurnClockSagRatio = 0.85;

/// One NVML sample during the burn, as the verdict needs it.
struct BurnSample {
  double clock_hz = 0;        ///< 0 when unknown
  bool throttled = false;     ///< a thermal limit or hardware slowdown held the clocks
  bool power_capped = false;  ///< at the board's power limit (information, not throttling)
  double power_w = 0;         ///< 0 when unknown
};

/// What the burn's samples say: counts, the sustained clock (the median of the samples
/// after the first, which may predate the load reaching its steady state) against the
/// highest sampled clock, and the mean power draw.
struct BurnSummary {
  int samples = 0, throttled = 0, power_capped = 0;
  double peak_clock_hz = 0, sustained_clock_hz = 0, mean_power_w = 0;
};
BurnSummary SummarizeBurn(const std::vector<BurnSample>& samples);

/// The verdict, first match wins: wrong results; thermally/hardware throttled in at least
/// half the samples; the sustained clock below kBurnClockSagRatio of the peak ("clocks sag");
/// the duty cycle below kBurnMinDutyCycle; else "healthy" ("healthy, at power limit" when the
/// power cap held in at least half the samples). The power cap alone never fails the burn.
std::string BurnVerdict(std::uint64_t errors, const BurnSummary& s, double duty_cycle);

}  // namespace gpuprobe::bench::gpu
