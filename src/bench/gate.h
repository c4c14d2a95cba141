// The outcome of one gated batch (cuda_context.h: a gate kernel holds the stream while the
// timed work is queued behind it). The gate gives up after a timeout so a stuck host cannot
// hang the GPU; when it did, the work was not all waiting behind it (a module loaded lazily
// at a first launch, a launch that blocked), launch costs may sit inside the interval, and
// the sample is not a measurement. CUDA-free, so the rule is tested without a GPU.
//
// Thread safety: pure function.
#pragma once

#include "core/status.h"

namespace gpuprobe::bench {

/// How long the gate waits for the host before it lets the stream run anyway.
inline constexpr double kGateTimeoutSeconds = 2.0;

/// Seconds per repetition of a batch of `reps` that took `elapsed_ms` between its events; an
/// Internal error (the case is then reported invalid, never as a figure) when the gate timed
/// out or the interval is not a positive time.
core::Result<double> GatedSeconds(double elapsed_ms, int reps, bool gate_timed_out);

}  // namespace gpuprobe::bench
