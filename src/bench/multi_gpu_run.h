// The many-GPU benchmarks (`bench collectives`, `bench p2p`) as one pipeline, the shape of the
// one-GPU Pipeline (bench/pipeline.h): list the GPUs -> describe the machine -> plan ->
// select -> (stop here for a dry run) -> refuse with fewer than two GPUs -> run. A
// MultiGpuHost supplies the devices and the runs, so tests drive the whole path with a fake,
// without a GPU; views only print what comes back.
//
// Built beside the CUDA registration (like machine_host.cpp), so the CPU library needs no CUDA.
//
// Thread safety: single-threaded (one run at a time per process).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/cuda/cuda_device.h"
#include "bench/multi_gpu.h"
#include "bench/multi_gpu_plan.h"
#include "core/status.h"

namespace gpuprobe::bench {

/// The GPUs the device query found.
struct GpuInventory {
  std::vector<CudaDeviceInfo> devices;
  core::Status query;  ///< the query's failure; Ok when it answered (even with no GPU)
};

/// Where a many-GPU run gets its devices and runs its cases: this machine or a fake.
class MultiGpuHost {
 public:
  virtual ~MultiGpuHost() = default;
  /// The GPUs visible here (never fails: a failed query is in `query`).
  virtual GpuInventory ListDevices() = 0;
  /// Runs `plan` on CUDA devices `devices` (at least two); Unavailable without NCCL.
  virtual core::Result<CollectivesReport> RunCollectives(const CollectivesPlan& plan, const std::vector<int>& devices,
                                                        const std::function<void(const CollectiveProgress&)>& progress) = 0;
  /// Runs `plan` on `devices` (at least two).
  virtual core::Result<P2pReport> RunP2p(const P2pPlan& plan, const std::vector<int>& devices) = 0;
};

/// This machine: bench::QueryCudaDevices, NCCL by dlopen, the CUDA runs of bench/multi_gpu.h.
std::unique_ptr<MultiGpuHost> MachineMultiGpuHost();

/// True when `name` is one of the many-GPU benchmarks ("collectives", "p2p").
bool IsMultiGpuBenchmark(const std::string& name);

/// Why `bench <kind>` cannot start on `inventory`: Unavailable (exit 3) with text
/// "collectives.error.no_gpu" (the absence reason, as the tour says it) or
/// "collectives.error.one_gpu" (the GPU's name), each with a hint saying what to run instead;
/// Ok with two GPUs or more. One GPU and no GPU are told apart: the fixes differ.
core::Status MultiGpuBlocked(const GpuInventory& inventory, const std::string& kind);

/// What the machine offers a plan.
struct MultiGpuMachine {
  int gpus = 0;                      ///< GPUs seen
  std::uint64_t min_free_bytes = 0;  ///< the smallest free memory of them; 0 when unknown
  /// Why the run would stop, as a text: "collectives.plan.why_one_gpu" {name} or the absence
  /// reason "gpu_absent.<id>" {detail}; empty when the run could start.
  core::TextRef blocked_reason;
};

/// The machine `inventory` describes for `kind`.
MultiGpuMachine DescribeMachine(const GpuInventory& inventory, const std::string& kind);

struct MultiGpuRequest {
  std::string kind;                ///< "collectives" or "p2p"
  std::vector<std::string> names;  ///< collectives: the ids to run (empty: all of the plan); p2p: none
  bool dry_run = false;            ///< plan only, run nothing
};

/// What a request made: always the machine and the plan of its kind; the report when it ran.
struct MultiGpuOutcome {
  MultiGpuMachine machine;
  std::string first_gpu_name;  ///< the first device's runtime name (the planner's link is its); empty without one
  std::optional<CollectivesPlan> collectives_plan;
  std::optional<P2pPlan> p2p_plan;
  std::optional<CollectivesReport> collectives;
  std::optional<P2pReport> p2p;
};

/// Runs the pipeline above. InvalidArgument (exit 2) for an unknown collective name or names
/// after p2p; with !dry_run, MultiGpuBlocked's Unavailable with fewer than two GPUs, and the
/// host's errors (Unavailable without NCCL).
core::Result<MultiGpuOutcome> RunMultiGpuPipeline(MultiGpuHost& host, const MultiGpuRequest& request,
                                                  const std::function<void(const CollectiveProgress&)>& progress = {});

}  // namespace gpuprobe::bench
