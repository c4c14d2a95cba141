// The plan of the many-GPU benchmarks, `bench collectives` (NCCL collectives across every local
// GPU, measured like nccl-tests) and `bench p2p` (the GPU x GPU copy matrix, measured like
// nvbandwidth's device_to_device memcpy tests): what runs, at which sizes, how often, and how
// each result is checked. The same plan drives the run and `--dry-run`, so the printed plan is
// the run.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/collective_bandwidth.h"

namespace gpuprobe::bench {

/// nccl-tests' defaults, as its header line prints them ("warmup iters: 5 iters: 20",
/// tests/fixtures/topology/nccl-tests/*.txt).
inline constexpr int kCollectiveWarmupIterations = 5;
inline constexpr int kCollectiveIterations = 20;
/// Sizes double from 8 B to 8 GiB (nccl-tests -b 8 -e 8G -f 2).
inline constexpr std::uint64_t kCollectiveMinBytes = 8;
inline constexpr std::uint64_t kCollectiveMaxBytes = 8ull << 30;
/// Share of the smallest free GPU memory the buffers of one size may take: the rest is for
/// NCCL's own buffers and the CUDA context.
inline constexpr double kCollectiveMemoryShare = 0.8;
/// Elements verified per block of the output (see CollectiveVerification).
inline constexpr int kVerifyElementsPerBlockEnd = 256;

/// nvbandwidth's defaults for the copy tests (its --bufferSize 64 MiB, --loopCount 16).
inline constexpr std::uint64_t kP2pBufferBytes = 64ull << 20;
inline constexpr int kP2pWarmupIterations = 1;
inline constexpr int kP2pIterations = 16;

struct CollectivePlanEntry {
  model::Collective collective = model::Collective::kAllReduce;
  std::string formula;             ///< "2(n-1)/n"
  double factor = 0;               ///< busbw / algbw for the plan's GPUs; 0 when unknown
  bool in_place = true;            ///< whether an in-place run is timed too (alltoall: no)
  /// What each checked output element must equal: text "collectives.verify.<id>".
};

struct CollectivesPlan {
  int gpus = 0;                    ///< ranks; 0 when the plan is shown without GPUs
  std::vector<CollectivePlanEntry> collectives;  ///< all_reduce, all_gather, reduce_scatter, broadcast, alltoall
  std::vector<std::uint64_t> sizes_bytes;        ///< in nccl-tests' size convention, before the cap
  std::string dtype = "float";     ///< nccl-tests' type name
  int dtype_bytes = 4;
  int warmup_iterations = kCollectiveWarmupIterations;
  int iterations = kCollectiveIterations;
  std::uint64_t memory_limit_bytes = 0;  ///< per GPU for one size's buffers; 0 = decided at run time
  /// Test hook: zero the first output element of GPU 0 before each check, so the check must
  /// fail (tests/cuda/multi_gpu_gpu_test.cpp proves the verification can fail on a GPU).
  bool corrupt_for_test = false;
};

/// The collectives plan for `gpus` ranks (0: not known here) with `free_bytes_per_gpu` the
/// smallest free memory of them (0: not known; the cap is applied at run time).
CollectivesPlan MakeCollectivesPlan(int gpus, std::uint64_t free_bytes_per_gpu);

/// Device bytes one rank holds for one out-of-place run of `collective` at `size_bytes`
/// (nccl-tests' size convention): its send and receive buffers.
std::uint64_t CollectiveBufferBytes(model::Collective collective, std::uint64_t size_bytes, int ranks);

/// `size_bytes` rounded down so every rank gets whole elements (all_gather, reduce_scatter
/// and alltoall split the size into `ranks` parts); 0 when not even one element per part fits.
std::uint64_t RoundedCollectiveBytes(model::Collective collective, std::uint64_t size_bytes, int dtype_bytes, int ranks);

/// Whether `size_bytes` of `collective` fits the plan's memory limit (always true while the
/// limit is 0, i.e. unknown).
bool CollectiveSizeFits(const CollectivesPlan& plan, model::Collective collective, std::uint64_t size_bytes);

struct P2pPlan {
  int gpus = 0;                        ///< 0 when shown without GPUs
  std::uint64_t buffer_bytes = kP2pBufferBytes;
  int warmup_iterations = kP2pWarmupIterations;
  int iterations = kP2pIterations;
  /// The tests, nvbandwidth's names: device_to_device_memcpy_{read,write}_ce and
  /// device_to_device_bidirectional_memcpy_{read,write}_ce.
  std::vector<std::string> tests;
  /// Test hook: zero the first element of each destination before it is checked.
  bool corrupt_for_test = false;
};

/// The copy-matrix plan for `gpus` GPUs (0: not known here).
P2pPlan MakeP2pPlan(int gpus);

}  // namespace gpuprobe::bench
