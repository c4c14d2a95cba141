// Bandwidth of a collective the way nccl-tests reports it, so a figure gpuprobe measures can be
// laid beside any published nccl-tests table:
//   algbw = S / t, with S the byte count nccl-tests prints in its "size" column;
//   busbw = algbw x factor, the factor making every collective comparable to the hardware's
//           per-GPU bandwidth (all_reduce 2(n-1)/n; all_gather, reduce_scatter, alltoall
//           (n-1)/n; broadcast, reduce, sendrecv 1).
// Source: NVIDIA/nccl-tests doc/PERFORMANCE.md and the *GetBw functions of src/*.cu, copied
// in tests/fixtures/topology/sources/ (nccl-tests-PERFORMANCE.md, nccl-tests-GetBw-excerpts.txt).
//
// The size convention matters: for all_reduce, broadcast, reduce and sendrecv S is one rank's
// buffer (count x type size); for all_gather and reduce_scatter S is the whole gathered buffer
// (count x type size x n, count being the per-rank part); for alltoall S is one rank's send
// buffer (count x type size x n, count being what goes to each peer).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpuprobe::model {

enum class Collective {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kBroadcast,
  kReduce,
  kAllToAll,
  kSendRecv,
};

/// Every collective above, in declaration order.
const std::vector<Collective>& AllCollectives();
/// The stable id: "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce",
/// "alltoall", "sendrecv" (nccl-tests' binary names without "_perf").
const char* CollectiveId(Collective collective);
/// The collective of an id, ignoring case, '_' and '-' (so nccl-tests' other spellings
/// "allreduce", "allgather", "reducescatter", "all_to_all", "send_recv" match). Empty for
/// anything else.
std::optional<Collective> CollectiveFromId(const std::string& id);

/// busbw / algbw for `ranks` ranks (nccl-tests' GetBw factor). 0 when ranks < 1.
double BusBandwidthFactor(Collective collective, int ranks);
/// The factor as nccl-tests writes it: "2(n-1)/n", "(n-1)/n" or "1".
const char* BusBandwidthFormula(Collective collective);

/// The element count nccl-tests prints in its "count" column for a size of `size_bytes` (see
/// the convention above); 0 when the size does not divide evenly or the inputs are 0.
std::uint64_t NcclTestsCount(Collective collective, std::uint64_t size_bytes, std::uint64_t type_bytes, int ranks);

struct CollectiveBandwidth {
  double algbw_bytes_per_second = 0;  ///< size / time
  double busbw_bytes_per_second = 0;  ///< algbw x BusBandwidthFactor
};

/// algbw and busbw of one timed collective: `size_bytes` in nccl-tests' convention (see
/// above), `seconds` per operation. Zeros when seconds <= 0 or ranks < 1.
CollectiveBandwidth CollectiveBandwidthOf(Collective collective, double size_bytes, double seconds, int ranks);

/// The rank count that turns `algbw` into `busbw` for `collective`: n solving
/// factor(n) = busbw / algbw, rounded to the nearest integer in [2, max_ranks]; empty when the
/// factor does not depend on n (broadcast, reduce, sendrecv), algbw <= 0, or the factor of the
/// rounded n is further than `relative_tolerance` (relative) from the ratio.
std::optional<int> RanksFromBusBandwidth(Collective collective, double algbw, double busbw, double relative_tolerance,
                                         int max_ranks = 4096);

}  // namespace gpuprobe::model
