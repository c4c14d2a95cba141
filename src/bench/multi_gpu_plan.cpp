#include "bench/multi_gpu_plan.h"

namespace gpuprobe::bench {
namespace {

bool SplitsByRanks(model::Collective c) {
  return c == model::Collective::kAllGather || c == model::Collective::kReduceScatter ||
         c == model::Collective::kAllToAll;
}

}  // namespace

CollectivesPlan MakeCollectivesPlan(int gpus, std::uint64_t free_bytes_per_gpu) {
  CollectivesPlan plan;
  plan.gpus = gpus;
  // reduce and sendrecv are left out: reduce's busbw equals broadcast's path in reverse, and
  // sendrecv is what `bench p2p` measures pair by pair.
  for (model::Collective c : {model::Collective::kAllReduce, model::Collective::kAllGather,
                              model::Collective::kReduceScatter, model::Collective::kBroadcast,
                              model::Collective::kAllToAll}) {
    CollectivePlanEntry e;
    e.collective = c;
    e.formula = model::BusBandwidthFormula(c);
    e.factor = gpus > 0 ? model::BusBandwidthFactor(c, gpus) : 0;
    // NCCL has no in-place alltoall (nccl-tests prints N/A there).
    e.in_place = c != model::Collective::kAllToAll;
    plan.collectives.push_back(e);
  }
  for (std::uint64_t s = kCollectiveMinBytes; s <= kCollectiveMaxBytes; s *= 2) plan.sizes_bytes.push_back(s);
  if (free_bytes_per_gpu > 0) {
    plan.memory_limit_bytes = static_cast<std::uint64_t>(kCollectiveMemoryShare * static_cast<double>(free_bytes_per_gpu));
  }
  return plan;
}

std::uint64_t CollectiveBufferBytes(model::Collective collective, std::uint64_t size_bytes, int ranks) {
  std::uint64_t n = ranks > 0 ? static_cast<std::uint64_t>(ranks) : 1;
  switch (collective) {
    // Size is the gathered output; each rank sends one n-th of it.
    case model::Collective::kAllGather: return size_bytes + size_bytes / n;
    // Size is each rank's input; each receives one n-th of it.
    case model::Collective::kReduceScatter: return size_bytes + size_bytes / n;
    default: return 2 * size_bytes;
  }
}

std::uint64_t RoundedCollectiveBytes(model::Collective collective, std::uint64_t size_bytes, int dtype_bytes, int ranks) {
  if (dtype_bytes <= 0 || ranks <= 0) return 0;
  std::uint64_t unit = static_cast<std::uint64_t>(dtype_bytes);
  if (SplitsByRanks(collective)) unit *= static_cast<std::uint64_t>(ranks);
  return size_bytes / unit * unit;
}

bool CollectiveSizeFits(const CollectivesPlan& plan, model::Collective collective, std::uint64_t size_bytes) {
  if (plan.memory_limit_bytes == 0) return true;
  return CollectiveBufferBytes(collective, size_bytes, plan.gpus) <= plan.memory_limit_bytes;
}

P2pPlan MakeP2pPlan(int gpus) {
  P2pPlan plan;
  plan.gpus = gpus;
  plan.tests = {"device_to_device_memcpy_read_ce", "device_to_device_memcpy_write_ce",
                "device_to_device_bidirectional_memcpy_read_ce", "device_to_device_bidirectional_memcpy_write_ce"};
  return plan;
}

}  // namespace gpuprobe::bench
