// The expected values the collectives are checked against, compared with the collectives
// carried out on the host by their definitions (nccl.h's comments): the check on the GPU
// machine is only as good as these.
#include "bench/collective_pattern.h"

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

namespace gpuprobe::bench {
namespace {

using model::Collective;
using Buffers = std::vector<std::vector<float>>;

Buffers Inputs(int ranks, std::uint64_t elements) {
  Buffers in(static_cast<size_t>(ranks), std::vector<float>(elements));
  for (int r = 0; r < ranks; ++r) {
    for (std::uint64_t x = 0; x < elements; ++x) in[static_cast<size_t>(r)][x] = PatternInput(r, x);
  }
  return in;
}

void ExpectMatches(Collective c, const Buffers& out, int ranks, std::uint64_t count) {
  for (int r = 0; r < ranks; ++r) {
    const auto& o = out[static_cast<size_t>(r)];
    ASSERT_EQ(o.size(), PatternOutputElements(c, ranks, count));
    for (std::uint64_t i = 0; i < o.size(); ++i) {
      EXPECT_EQ(PatternExpected(c, r, ranks, count, i), o[i]) << model::CollectiveId(c) << " rank " << r << " element " << i;
    }
  }
}

TEST(CollectivePatternTest, MatchesEachCollectiveDoneOnTheHost) {
  const int n = 3;
  const std::uint64_t c = 300;  // crosses the 251 period
  // all_reduce: every rank gets the element-wise sum.
  {
    auto in = Inputs(n, c);
    Buffers out(n, std::vector<float>(c, 0));
    for (auto& o : out) for (std::uint64_t i = 0; i < c; ++i) for (int q = 0; q < n; ++q) o[i] += in[q][i];
    ExpectMatches(Collective::kAllReduce, out, n, c);
  }
  // broadcast from rank 0.
  {
    auto in = Inputs(n, c);
    Buffers out(n, in[0]);
    ExpectMatches(Collective::kBroadcast, out, n, c);
  }
  // all_gather: rank q's c elements land at q*c on every rank.
  {
    auto in = Inputs(n, c);
    Buffers out(n, std::vector<float>(n * c));
    for (auto& o : out) for (int q = 0; q < n; ++q) for (std::uint64_t i = 0; i < c; ++i) o[q * c + i] = in[q][i];
    ExpectMatches(Collective::kAllGather, out, n, c);
  }
  // reduce_scatter: rank r gets block r of the sum of n*c-element inputs.
  {
    auto in = Inputs(n, n * c);
    Buffers out(n, std::vector<float>(c, 0));
    for (int r = 0; r < n; ++r) for (std::uint64_t i = 0; i < c; ++i) for (int q = 0; q < n; ++q) out[r][i] += in[q][r * c + i];
    ExpectMatches(Collective::kReduceScatter, out, n, c);
  }
  // alltoall: data for rank j is at j*c of the sender; from rank i it lands at i*c.
  {
    auto in = Inputs(n, n * c);
    Buffers out(n, std::vector<float>(n * c));
    for (int i = 0; i < n; ++i) for (int j = 0; j < n; ++j) for (std::uint64_t e = 0; e < c; ++e) out[j][i * c + e] = in[i][j * c + e];
    ExpectMatches(Collective::kAllToAll, out, n, c);
  }
}

TEST(CollectivePatternTest, SumsStayExactUpToTheLimit) {
  // 251 x n (n+1) / 2 below 2^24 for n = kPatternMaxRanks.
  double top = 251.0 * kPatternMaxRanks * (kPatternMaxRanks + 1) / 2;
  EXPECT_LT(top, 16777216.0);
  EXPECT_EQ(static_cast<double>(PatternExpected(Collective::kAllReduce, 0, kPatternMaxRanks, 1000, 250)), top);
}

TEST(CollectivePatternTest, VerifyRangesCoverEachBlocksEnds) {
  // Small outputs are checked whole.
  auto all = VerifyRanges(100, 4, 256);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0], std::make_pair(std::uint64_t{0}, std::uint64_t{100}));
  // 4 blocks of 10000: head and tail of each; a tail and the next head meet at the block
  // boundary and merge into one range.
  auto r = VerifyRanges(40000, 4, 256);
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0], std::make_pair(std::uint64_t{0}, std::uint64_t{256}));
  EXPECT_EQ(r[1], std::make_pair(std::uint64_t{10000 - 256}, std::uint64_t{10000 + 256}));
  EXPECT_EQ(r[4], std::make_pair(std::uint64_t{40000 - 256}, std::uint64_t{40000}));
  std::uint64_t checked = 0;
  for (const auto& [b, e] : r) checked += e - b;
  EXPECT_EQ(checked, 8u * 256);
  for (size_t i = 1; i < r.size(); ++i) EXPECT_LT(r[i - 1].second, r[i].first);
  EXPECT_TRUE(VerifyRanges(0, 4, 256).empty());
}

// The compare kernel's loop, replayed on the host: every element of an output against the
// closed-form values. An 8 GiB all-reduce once had ~4,096 of its 2^31 elements per rank read
// back; the kernel sees a wrong element anywhere.
TEST(CollectivePatternTest, TheCompareSeesEveryElement) {
  const int n = 4;
  const std::uint64_t c = 20000;
  auto in = Inputs(n, c);
  Buffers out(n, std::vector<float>(c, 0));
  for (auto& o : out) for (std::uint64_t i = 0; i < c; ++i) for (int q = 0; q < n; ++q) o[i] += in[q][i];
  for (int r = 0; r < n; ++r) {
    PatternCheck check;
    check.collective = Collective::kAllReduce;
    check.rank = r;
    check.ranks = n;
    check.count = c;
    EXPECT_EQ(ComparePattern(check, out[static_cast<size_t>(r)].data(), c).count, 0u) << r;
  }
  // One element in the middle, far from every block's head and tail that the host reads back.
  PatternCheck check;
  check.collective = Collective::kAllReduce;
  check.ranks = n;
  check.count = c;
  const std::uint64_t middle = c / 2 + c / (2 * n);  // the middle of block 2
  const auto read_back = VerifyRanges(c, n, 256);
  ASSERT_TRUE(std::none_of(read_back.begin(), read_back.end(),
                           [&](const auto& range) { return range.first <= middle && middle < range.second; }));
  out[0][middle] += 1;
  PatternMismatches m = ComparePattern(check, out[0].data(), c);
  EXPECT_EQ(m.count, 1u);
  EXPECT_EQ(m.first_index, middle);
  EXPECT_EQ(m.first_value, out[0][middle]);
  // Never written: the receive buffers' all-ones fill is NaN, and NaN never passes.
  std::vector<float> unwritten(100, std::nanf(""));
  EXPECT_EQ(ComparePattern(check, unwritten.data(), unwritten.size()).count, 100u);
}

TEST(CollectivePatternTest, ACopyIsComparedWithItsSourcesPattern) {
  PatternCheck check;
  check.copy = true;
  check.rank = 2;  // the source GPU's rank
  std::vector<float> copied(5000);
  for (std::uint64_t x = 0; x < copied.size(); ++x) copied[x] = PatternInput(2, x);
  EXPECT_EQ(ComparePattern(check, copied.data(), copied.size()).count, 0u);
  check.rank = 1;  // the wrong source: every element differs
  EXPECT_EQ(ComparePattern(check, copied.data(), copied.size()).count, copied.size());
  check.rank = 2;
  copied[2500] = 0;  // what bench p2p's test hook writes, mid-buffer
  EXPECT_EQ(ComparePattern(check, copied.data(), copied.size()).first_index, 2500u);
}

}  // namespace
}  // namespace gpuprobe::bench
