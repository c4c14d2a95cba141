// Measuring several GPUs together: NCCL collectives across every local GPU (one process,
// ncclCommInitAll, one stream per GPU, CUDA events, out-of-place and in-place like nccl-tests)
// and the GPU x GPU copy matrix (cudaMemcpyPeerAsync, like nvbandwidth's copy-engine tests).
// Every result is verified on the host; a wrong result fails its case.
//
// This header is CUDA-free. CMake builds bench/cuda/collectives_cuda.cu and p2p_cuda.cu where
// nvcc exists, and bench/cuda/multi_gpu_absent.cpp (Unavailable: built without CUDA) where not.
//
// Thread safety: one run at a time per process (the CUDA device is switched while running).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench/multi_gpu_plan.h"
#include "bench/nccl_library.h"
#include "core/status.h"
#include "model/collective_bandwidth.h"

namespace gpuprobe::bench {

/// One timed variant (out-of-place or in-place) of one size.
struct CollectiveTiming {
  bool ran = false;                    ///< false: not run (alltoall in-place, or an earlier failure)
  double seconds = 0;                  ///< per operation: the slowest GPU's event time / iterations
  model::CollectiveBandwidth bandwidth;
  bool verified = false;               ///< every checked element had its expected value
  std::uint64_t checked_elements = 0;  ///< over all GPUs
  std::uint64_t mismatches = 0;
  std::string first_mismatch;          ///< "rank 1 element 5: 3 (expected 6)"; empty when none
};

struct CollectiveSizeResult {
  std::uint64_t size_bytes = 0;        ///< nccl-tests' size convention
  std::uint64_t count = 0;             ///< nccl-tests' count column
  CollectiveTiming out_of_place;
  CollectiveTiming in_place;
  std::string error;                   ///< a CUDA or NCCL failure of this size; empty when none
};

struct CollectiveResult {
  model::Collective collective = model::Collective::kAllReduce;
  double factor = 0;
  std::vector<CollectiveSizeResult> sizes;
  /// Sizes of the plan left out because their buffers exceed the memory limit.
  std::vector<std::uint64_t> skipped_for_memory_bytes;
  double peak_busbw_bytes_per_second = 0;   ///< the highest out-of-place busbw
  std::uint64_t peak_size_bytes = 0;
};

struct GpuName {
  int index = 0;
  std::string name;
};

struct CollectivesReport {
  int gpus = 0;
  std::vector<GpuName> devices;
  std::string nccl_version;             ///< "2.28.3"
  std::string nccl_library;
  std::uint64_t memory_limit_bytes = 0;  ///< the cap applied (0: none was needed)
  std::vector<CollectiveResult> results;
  bool all_verified = false;            ///< every case ran and verified
};

struct CollectiveProgress {
  std::string collective;
  std::uint64_t size_bytes = 0;
  int index = 0;
  int total = 0;
};

/// Runs `plan` on `devices` (CUDA device indices, at least two) with NCCL `api`. Unavailable
/// when this build has no CUDA; Internal when a CUDA or NCCL call fails before any size ran
/// (communicator creation); a failure within a size is kept in that size's `error`.
core::Result<CollectivesReport> RunCollectives(const CollectivesPlan& plan, const nccl::Api& api,
                                               const std::vector<int>& devices,
                                               const std::function<void(const CollectiveProgress&)>& progress = {});

/// One nvbandwidth test's matrix.
struct P2pMatrix {
  std::string test;                     ///< "device_to_device_memcpy_read_ce", ...
  bool bidirectional = false;
  /// [row][column] bytes per second; empty on the diagonal. Read tests: row = the GPU the data
  /// is copied to, column = the GPU it is read from (the copy runs on the row's stream);
  /// write tests: row = the source, column = the destination (the copy runs on the source).
  /// Bidirectional: the sum of both directions, run at once.
  std::vector<std::vector<std::optional<double>>> bytes_per_second;
  std::uint64_t mismatches = 0;         ///< over every pair
  std::string first_mismatch;
};

struct P2pReport {
  int gpus = 0;
  std::vector<GpuName> devices;
  std::uint64_t buffer_bytes = 0;
  /// [row][column] cudaDeviceCanAccessPeer: where false, CUDA stages the copy through host memory.
  std::vector<std::vector<bool>> peer_access;
  std::vector<P2pMatrix> matrices;
  bool all_verified = false;
};

/// Runs `plan` on `devices` (at least two). Unavailable when this build has no CUDA; Internal
/// when a CUDA call fails.
core::Result<P2pReport> RunP2p(const P2pPlan& plan, const std::vector<int>& devices);

}  // namespace gpuprobe::bench
