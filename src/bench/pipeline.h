// The one bench pipeline: select -> probe the GPU -> open the contexts -> run (prepare, time,
// verify, predict) -> a BenchDocument. `bench`, the tour and `report` all run benchmarks
// through it, so the steps cannot drift apart; a BenchHost supplies the contexts, so tests
// drive the whole flow with fakes, without a GPU and without timing anything.
//
// Thread safety: RunPipeline uses the host's contexts from the calling thread only.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/backend.h"
#include "bench/bench_document.h"
#include "bench/registry.h"
#include "bench/run_plan.h"

namespace gpuprobe::bench {

/// Where a pipeline gets its devices: this machine (MachineHost) or a fake.
class BenchHost {
 public:
  struct Cpu {
    std::unique_ptr<BackendContext> context;
    model::CpuSpec spec;  ///< the facts predictions use, with the clock measured under load
  };
  virtual ~BenchHost() = default;
  /// The CPU with `threads` workers (0 = one per physical core); its clock is measured under
  /// load for `clock_probe_seconds` (0 = not measured).
  virtual Cpu OpenCpu(int threads, double clock_probe_seconds) = 0;
  /// Whether the GPU backend can run here, with the reason when not (never an error).
  virtual Availability ProbeGpu() = 0;
  /// A context on GPU `index`; Unavailable when ProbeGpu() says no.
  virtual core::Result<std::unique_ptr<BackendContext>> OpenGpu(int index) = 0;
};

/// This machine: the CPU backend and this build's GPU backend (defined beside the CUDA
/// registration, so the CPU library needs no CUDA).
std::unique_ptr<BenchHost> MachineHost();

struct PipelineRequest {
  std::vector<std::string> patterns;  ///< ids, groups or id prefixes; empty = every benchmark
  /// Drop the ids this build lacks instead of refusing them (the tour's fixed list names GPU
  /// ids that a build without CUDA does not have).
  bool skip_unknown_ids = false;
  std::string backend = "all";        ///< "cpu", "cuda" or "all"
  int threads = 0;                    ///< CPU workers; 0 = one per physical core
  double clock_probe_seconds = 0.3;
  double requested_seconds = 0;       ///< the user's --seconds (a sustained-load case runs this long)
  BenchSettings settings;
};

/// The benchmarks a request selects, in registration order. InvalidArgument (with "did you
/// mean") for a pattern that matches nothing, or a backend other than cpu, cuda or all.
core::Result<std::vector<const Benchmark*>> SelectForRequest(const BenchmarkRegistry& registry,
                                                            const PipelineRequest& request);

/// Runs a request. Unavailable (exit 3) when the request asks for the GPU alone and there is
/// none, before any CPU time is spent; InvalidArgument naming --size when a case would not
/// fit the free memory of its device (bench/memory_budget.h), before anything is allocated; otherwise the document, with why there is no GPU in
/// `gpu_absent_reason` when there is none.
core::Result<BenchDocument> RunPipeline(const BenchmarkRegistry& registry, BenchHost& host, const PipelineRequest& request,
                                        const std::function<void(const CaseProgress&)>& progress = {});

/// A short CPU-only run of `ids` (about a second: a 0.1 s clock probe, cases of 0.05-0.15 s)
/// for a verb that needs the CPU's figures now (advise without saved results); read them with
/// BenchDocument::BestVerified. RunPipeline's errors.
core::Result<BenchDocument> MeasureCpuFigures(BenchHost& host, const std::vector<std::string>& ids);

}  // namespace gpuprobe::bench
