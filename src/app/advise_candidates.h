// The GPUs `advise` ranks for a workload: every GPU of the spec database that a service can
// run on by itself. Left out, and named as left out: embedded modules (Jetson: a board for a
// robot or a camera, not a server) and NVL72 superchip boards (GB200, GB300: sold as a
// rack of 72 GPUs, not one GPU to rent). Their host links (unified memory, NVLink-C2C) made
// them "win" any small call, which is no advice a backend engineer can act on.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "model/gpu_spec.h"

namespace gpuprobe::app {

/// Whether `gpu` is one advise leaves out (see above), from its form factor.
bool IsNotAServerGpu(const model::GpuSpec& gpu);

/// The names of the GPUs of `all` that advise leaves out, in the database's order.
std::vector<std::string> NotRankedByAdvise(const std::vector<model::GpuSpec>& all);

}  // namespace gpuprobe::app
