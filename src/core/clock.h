// The wall clock, as the views that say how old something is read it ("captured 12 days
// ago"). GPUPROBE_NOW (seconds since 1970-01-01, UTC) replaces it, so that tests and
// reproducible reports see a fixed "now".
//
// Thread safety: reads the environment; no shared state.
#pragma once

#include <cstdint>

#include "core/status.h"

namespace gpuprobe::core {

/// Seconds since 1970-01-01 now: GPUPROBE_NOW when it is set, else the system clock.
/// InvalidArgument naming GPUPROBE_NOW when it is set to anything but a whole number of
/// seconds from 0 to 7258118400 (the year 2200).
Result<std::int64_t> NowEpochSeconds();

}  // namespace gpuprobe::core
