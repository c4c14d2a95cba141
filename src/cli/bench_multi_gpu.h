// `gpuprobe bench collectives` and `gpuprobe bench p2p`: the many-GPU benchmarks, reached from
// `bench` when its first name is one of them (cmd_bench.cpp). The pipeline is
// bench/multi_gpu_run.h's; this file prints its plan or its results.
//
// Thread safety: single-threaded (main's thread).
#pragma once

#include "bench/multi_gpu_run.h"
#include "cli/command.h"

namespace gpuprobe::cli {

/// Runs or plans `request` on `host` and prints it. Exit 0 when every result verified (or the
/// plan was printed), 1 when a result is wrong or a case failed; the pipeline's errors
/// otherwise (exit 3 with fewer than two GPUs or without NCCL, 2 for a bad name).
core::Result<core::ExitCode> RunMultiGpuBench(VerbContext& ctx, bench::MultiGpuHost& host,
                                              const bench::MultiGpuRequest& request);

}  // namespace gpuprobe::cli
