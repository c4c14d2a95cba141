// The published nccl-tests tables (tests/fixtures/topology/nccl-tests, described in index.json)
// read back through ParseNcclTestsTable, and every row's algbw and busbw recomputed from
// (size, time, ranks) with model/collective_bandwidth.h: each printed figure must agree within
// the table's own printed rounding. The CoreWeave two-rack table, whose device line names 144
// ranks while its busbw was computed for 128, must be caught, not smoothed over.
#include "bench/nccl_tests_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace gpuprobe::bench {
namespace {

const std::string kRoot = std::string(GPUPROBE_FIXTURES_DIR) + "/topology/";

std::string ReadFixture(const std::string& path) {
  std::ifstream in(kRoot + path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<nlohmann::json> NcclRecords() {
  auto index = nlohmann::json::parse(ReadFixture("index.json"));
  std::vector<nlohmann::json> out;
  for (const auto& f : index["files"]) {
    if (f.value("kind", "") == "nccl-tests") out.push_back(f);
  }
  return out;
}

struct Agreement {
  int rows = 0;                 ///< rows checked (each with both halves)
  int failures = 0;             ///< halves whose algbw or busbw is outside rounding
  double max_busbw_deviation_gbps = 0;  ///< |printed - recomputed from printed time|
  double max_relative_deviation = 0;    ///< the same, over the printed busbw (rows >= 1 GB/s)
};

Agreement Check(model::Collective collective, const NcclTestsTable& table, int ranks) {
  Agreement a;
  for (const auto& row : table.rows) {
    ++a.rows;
    for (const NcclTestsHalf* half : {&row.out_of_place, &row.in_place}) {
      auto c = CheckNcclTestsHalf(collective, row, *half, ranks);
      if (!c.algbw_ok || !c.busbw_ok) ++a.failures;
      double dev = std::fabs(c.busbw_gbps - half->busbw_gbps.value);
      a.max_busbw_deviation_gbps = std::max(a.max_busbw_deviation_gbps, dev);
      if (half->busbw_gbps.value >= 1) a.max_relative_deviation = std::max(a.max_relative_deviation, dev / half->busbw_gbps.value);
    }
  }
  return a;
}

TEST(NcclTestsTableTest, EveryPublishedRowReproducesWithinItsRounding) {
  auto records = NcclRecords();
  ASSERT_GE(records.size(), 18u);
  int checked_files = 0, total_rows = 0;
  for (const auto& rec : records) {
    std::string file = rec["file"];
    if (!rec.contains("ranks")) continue;  // the rank-mismatch table, below
    SCOPED_TRACE(file);
    auto collective = model::CollectiveFromId(rec["collective"].get<std::string>());
    ASSERT_TRUE(collective.has_value());
    auto table = ParseNcclTestsTable(ReadFixture(file));
    ASSERT_TRUE(table.ok()) << table.status().message();
    ASSERT_GE(table->rows.size(), 5u);
    int ranks = rec["ranks"];
    // Where the table names its devices, it names the index's rank count.
    if (table->ranks_stated) {
      EXPECT_EQ(*table->ranks_stated, ranks);
    }
    Agreement a = Check(*collective, *table, ranks);
    EXPECT_EQ(a.failures, 0);
    // The per-rank count column follows the collective's size convention.
    for (const auto& row : table->rows) {
      int type_bytes = NcclTestsTypeBytes(row.type);
      ASSERT_GT(type_bytes, 0) << row.type;
      EXPECT_EQ(model::NcclTestsCount(*collective, row.size_bytes, type_bytes, ranks), row.count) << "line " << row.line;
    }
    // The footer, where the table kept it, is the mean busbw of the out-of-place and in-place
    // halves (nccl-tests averages every busbw it printed).
    if (table->avg_busbw_gbps && rec.value("complete", true)) {
      double sum = 0;
      for (const auto& row : table->rows) sum += row.out_of_place.busbw_gbps.value + row.in_place.busbw_gbps.value;
      double mean = sum / (2.0 * table->rows.size());
      EXPECT_NEAR(mean, *table->avg_busbw_gbps, 0.01 + 0.005) << "footer";
    }
    std::printf("  %-62s %3zu rows, ranks %2d, max |busbw - recomputed| %.4f GB/s (%.3f%%)\n", file.c_str(),
                table->rows.size(), ranks, a.max_busbw_deviation_gbps, 100 * a.max_relative_deviation);
    ++checked_files;
    total_rows += a.rows;
  }
  EXPECT_EQ(checked_files, 17);
  std::printf("  %d tables, %d rows, both halves of each checked\n", checked_files, total_rows);
}

TEST(NcclTestsTableTest, TheRankMismatchTableIsCaught) {
  for (const auto& rec : NcclRecords()) {
    if (!rec.contains("ranks_stated")) continue;
    std::string file = rec["file"];
    SCOPED_TRACE(file);
    auto table = ParseNcclTestsTable(ReadFixture(file));
    ASSERT_TRUE(table.ok()) << table.status().message();
    // Its one device line says "Rank 143".
    ASSERT_TRUE(table->ranks_stated.has_value());
    EXPECT_EQ(*table->ranks_stated, rec["ranks_stated"].get<int>());
    // Trusting the device line: busbw disagrees beyond rounding (algbw does not depend on n).
    Agreement stated = Check(model::Collective::kAllReduce, *table, *table->ranks_stated);
    EXPECT_GT(stated.failures, 0);
    for (const auto& row : table->rows) {
      auto c = CheckNcclTestsHalf(model::Collective::kAllReduce, row, row.out_of_place, *table->ranks_stated);
      EXPECT_TRUE(c.algbw_ok);
    }
    // The rank count the busbw ratio implies, on every row, is the index's 128, and with it
    // every row agrees: the table was computed for 128 ranks and labelled 144.
    for (const auto& row : table->rows) {
      EXPECT_EQ(model::RanksFromBusBandwidth(model::Collective::kAllReduce, row.out_of_place.algbw_gbps.value,
                                             row.out_of_place.busbw_gbps.value, 2e-4),
                rec["ranks_from_busbw"].get<int>());
    }
    Agreement implied = Check(model::Collective::kAllReduce, *table, rec["ranks_from_busbw"].get<int>());
    EXPECT_EQ(implied.failures, 0);
    std::printf("  %s: %d of %d halves disagree with the stated %d ranks; 0 with %d\n", file.c_str(), stated.failures,
                2 * stated.rows, *table->ranks_stated, rec["ranks_from_busbw"].get<int>());
  }
}

TEST(NcclTestsTableTest, HeaderlessTablesGetTheirRanksFromTheRatio) {
  // The AWS excerpt has no device block: nothing says 16 except the ratio busbw / algbw.
  auto table = ParseNcclTestsTable(ReadFixture("nccl-tests/aws-2x-p5.48xlarge-all_reduce-noheader.txt"));
  ASSERT_TRUE(table.ok());
  EXPECT_FALSE(table->ranks_stated.has_value());
  const auto& last = table->rows.back();
  EXPECT_EQ(last.size_bytes, 17179869184u);
  EXPECT_EQ(model::RanksFromBusBandwidth(model::Collective::kAllReduce, last.out_of_place.algbw_gbps.value,
                                         last.out_of_place.busbw_gbps.value, 1e-3),
            16);
}

TEST(NcclTestsTableTest, LayoutsAndDamageAreRead) {
  auto old = ParseNcclTestsTable(ReadFixture("nccl-tests/superbench-8x-a100-sxm4-40gb-nccl_allreduce.txt"));
  ASSERT_TRUE(old.ok());
  EXPECT_FALSE(old->has_root_column);
  EXPECT_EQ(old->header_gpus, 8);
  EXPECT_EQ(old->skipped_lines, 1);  // the "NCCL INFO Launch mode Parallel" line
  EXPECT_EQ(old->rows.front().size_bytes, 0u);
  EXPECT_EQ(old->rows.front().out_of_place.wrong, "N/A");
  auto cut = ParseNcclTestsTable(ReadFixture("nccl-tests/2node-2x-a40-sendrecv-truncated.txt"));
  ASSERT_TRUE(cut.ok());
  EXPECT_TRUE(cut->has_root_column);
  EXPECT_FALSE(cut->avg_busbw_gbps.has_value());
  EXPECT_EQ(cut->rows.back().size_bytes, 4096u);
  EXPECT_EQ(cut->rows.back().in_place.wrong, "N/A");
}

TEST(NcclTestsTableTest, BadTextIsRefusedWithTheLine) {
  EXPECT_FALSE(ParseNcclTestsTable("hello\n").ok());
  std::string header = "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n";
  auto bad = ParseNcclTestsTable(header + "8 2 float sum -1 x 0.00 0.00 0 1.0 0.00 0.00 0\n" +
                                 "16 4 float sum -1 1.0 0.00 0.00 0 1.0 0.00 0.00 0\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("line 2"), std::string::npos);
  // A last row cut in the middle is dropped, not an error.
  auto cut = ParseNcclTestsTable(header + "8 2 float sum -1 1.0 0.00 0.00 0 1.0 0.00 0.00 0\n16 4 float su");
  ASSERT_TRUE(cut.ok());
  EXPECT_EQ(cut->rows.size(), 1u);
  EXPECT_EQ(cut->skipped_lines, 1);
}

TEST(NcclTestsTableTest, AWrongFigureFailsTheCheck) {
  // A row whose busbw was printed for the wrong factor must not pass: the check can fail.
  std::string header = "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n";
  auto t = ParseNcclTestsTable(header + "1073741824 268435456 float sum -1 10000 107.37 107.37 0 10000 107.37 187.90 0\n");
  ASSERT_TRUE(t.ok());
  const auto& row = t->rows[0];
  EXPECT_TRUE(CheckNcclTestsHalf(model::Collective::kAllReduce, row, row.out_of_place, 2).busbw_ok);
  EXPECT_FALSE(CheckNcclTestsHalf(model::Collective::kAllReduce, row, row.in_place, 2).busbw_ok);
  EXPECT_TRUE(CheckNcclTestsHalf(model::Collective::kAllReduce, row, row.in_place, 8).busbw_ok);
  auto c = CheckNcclTestsHalf(model::Collective::kAllReduce, row, row.in_place, 2);
  EXPECT_GT(c.busbw_excess_gbps, 80);
}

}  // namespace
}  // namespace gpuprobe::bench
