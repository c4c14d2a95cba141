#include "bench/gate.h"

#include <cmath>

#include <fmt/format.h>

namespace gpuprobe::bench {

core::Result<double> GatedSeconds(double elapsed_ms, int reps, bool gate_timed_out) {
  if (gate_timed_out) {
    return core::Status::Internal(
        fmt::format("the gate kernel timed out after {:.0f} s before the host released it: the timed work was not all "
                    "queued behind it, so the sample is invalid",
                    kGateTimeoutSeconds),
        "a first launch may have loaded its module lazily: run with CUDA_MODULE_LOADING=EAGER (gpuprobe sets it unless "
        "you set it yourself), and check that nothing else holds the GPU")
        .WithKeys("error.bench.gate_timeout", {{"seconds", fmt::format("{:.0f}", kGateTimeoutSeconds)}},
                  "error.bench.gate_timeout.hint");
  }
  if (!(elapsed_ms > 0) || !std::isfinite(elapsed_ms) || reps < 1) {
    return core::Status::Internal(fmt::format("the timed batch reported {} ms for {} repetitions", elapsed_ms, reps))
        .WithKeys("error.bench.bad_timing", {{"ms", fmt::format("{}", elapsed_ms)}, {"reps", std::to_string(reps)}});
  }
  return elapsed_ms * 1e-3 / reps;
}

}  // namespace gpuprobe::bench
