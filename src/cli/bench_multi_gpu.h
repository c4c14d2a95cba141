// `gpuprobe bench collectives` and `gpuprobe bench p2p`: the many-GPU benchmarks, reached from
// `bench` when its first name is one of them (cmd_bench.cpp).
//
// Thread safety: single-threaded (main's thread).
#pragma once

#include <string>
#include <vector>

#include "bench/cuda/cuda_device.h"
#include "cli/command.h"

namespace gpuprobe::cli {

struct MultiGpuOptions {
  std::string kind;                 ///< "collectives" or "p2p"
  std::vector<std::string> names;   ///< collectives: the ids to run (empty: all of the plan)
  bool dry_run = false;             ///< print the plan, run nothing
};

/// True when `name` is one of the many-GPU benchmarks ("collectives", "p2p").
bool IsMultiGpuBenchmark(const std::string& name);

/// Why `bench <kind>` cannot start with `devices` (what bench::QueryCudaDevices returned, or
/// its failure in `query`): Unavailable (exit 3) with text "collectives.error.no_gpu" (the
/// absence reason, as the tour says it) or "collectives.error.one_gpu" (the GPU's name), each
/// with a hint saying what to run instead; Ok with two GPUs or more.
core::Status MultiGpuBlocked(const std::vector<bench::CudaDeviceInfo>& devices, const core::Status& query,
                             const std::string& kind);

/// Runs or plans them. Exit 0 when every result verified (or the plan was printed), 1 when a
/// result is wrong or a case failed; Unavailable (exit 3) with fewer than two GPUs, or without
/// NCCL for collectives; InvalidArgument (exit 2) for an unknown collective name.
core::Result<core::ExitCode> RunMultiGpuBench(VerbContext& ctx, const MultiGpuOptions& options);

}  // namespace gpuprobe::cli
