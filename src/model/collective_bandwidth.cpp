#include "model/collective_bandwidth.h"

#include <cctype>
#include <cmath>

namespace gpuprobe::model {

const std::vector<Collective>& AllCollectives() {
  static const std::vector<Collective> all = {Collective::kAllReduce, Collective::kAllGather, Collective::kReduceScatter,
                                              Collective::kBroadcast, Collective::kReduce,    Collective::kAllToAll,
                                              Collective::kSendRecv};
  return all;
}

const char* CollectiveId(Collective collective) {
  switch (collective) {
    case Collective::kAllReduce: return "all_reduce";
    case Collective::kAllGather: return "all_gather";
    case Collective::kReduceScatter: return "reduce_scatter";
    case Collective::kBroadcast: return "broadcast";
    case Collective::kReduce: return "reduce";
    case Collective::kAllToAll: return "alltoall";
    case Collective::kSendRecv: return "sendrecv";
  }
  return "";
}

std::optional<Collective> CollectiveFromId(const std::string& id) {
  std::string key;
  for (char c : id) {
    if (c != '_' && c != '-') key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  for (Collective c : AllCollectives()) {
    std::string canonical;
    for (const char* p = CollectiveId(c); *p != '\0'; ++p) {
      if (*p != '_') canonical += *p;
    }
    if (key == canonical) return c;
  }
  return std::nullopt;
}

double BusBandwidthFactor(Collective collective, int ranks) {
  if (ranks < 1) return 0;
  double n = ranks;
  // nccl-tests src/*.cu, *GetBw (tests/fixtures/topology/sources/nccl-tests-GetBw-excerpts.txt).
  switch (collective) {
    case Collective::kAllReduce: return 2 * (n - 1) / n;
    case Collective::kAllGather:
    case Collective::kReduceScatter:
    case Collective::kAllToAll: return (n - 1) / n;
    case Collective::kBroadcast:
    case Collective::kReduce:
    case Collective::kSendRecv: return 1;
  }
  return 0;
}

const char* BusBandwidthFormula(Collective collective) {
  switch (collective) {
    case Collective::kAllReduce: return "2(n-1)/n";
    case Collective::kAllGather:
    case Collective::kReduceScatter:
    case Collective::kAllToAll: return "(n-1)/n";
    case Collective::kBroadcast:
    case Collective::kReduce:
    case Collective::kSendRecv: return "1";
  }
  return "";
}

std::uint64_t NcclTestsCount(Collective collective, std::uint64_t size_bytes, std::uint64_t type_bytes, int ranks) {
  if (type_bytes == 0 || ranks < 1) return 0;
  // GetBw multiplies count x type size by n for these three: the printed size is n per-rank parts.
  std::uint64_t divisor = type_bytes;
  if (collective == Collective::kAllGather || collective == Collective::kReduceScatter ||
      collective == Collective::kAllToAll) {
    divisor *= static_cast<std::uint64_t>(ranks);
  }
  if (size_bytes % divisor != 0) return 0;
  return size_bytes / divisor;
}

CollectiveBandwidth CollectiveBandwidthOf(Collective collective, double size_bytes, double seconds, int ranks) {
  if (!(seconds > 0) || ranks < 1) return {};
  CollectiveBandwidth bw;
  bw.algbw_bytes_per_second = size_bytes / seconds;
  bw.busbw_bytes_per_second = bw.algbw_bytes_per_second * BusBandwidthFactor(collective, ranks);
  return bw;
}

std::optional<int> RanksFromBusBandwidth(Collective collective, double algbw, double busbw, double relative_tolerance,
                                         int max_ranks) {
  if (!(algbw > 0) || BusBandwidthFormula(collective)[0] == '1') return std::nullopt;
  double ratio = busbw / algbw;
  // factor = k (n-1)/n with k = 2 for all_reduce, 1 otherwise: n = k / (k - ratio).
  double k = collective == Collective::kAllReduce ? 2 : 1;
  if (!(ratio < k)) return std::nullopt;
  double n = k / (k - ratio);
  if (!std::isfinite(n) || n < 1.5 || n > max_ranks + 0.5) return std::nullopt;
  int rounded = static_cast<int>(std::lround(n));
  double expected = BusBandwidthFactor(collective, rounded);
  if (std::fabs(expected - ratio) > relative_tolerance * expected) return std::nullopt;
  return rounded;
}

}  // namespace gpuprobe::model
