// Serving engines' start-up logs (telemetry/engine_log.h) on the real corpus
// (tests/fixtures/engine_logs: vLLM V0/V1, SGLang, TensorRT-LLM, llama.cpp, from public issues).
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "telemetry/capture_time.h"
#include "telemetry/engine_log.h"

namespace gpuprobe::telemetry {
namespace {

std::string Read(const std::string& relative) {
  std::ifstream in(std::string(GPUPROBE_FIXTURES_DIR) + "/engine_logs/" + relative, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The outcome the corpus records, as the reader's failure ids.
bool SameOutcome(const std::string& outcome, const std::string& failure) {
  if (outcome == "started") return failure.empty();
  if (outcome == "failed_kv_memory") return failure == "no_kv_memory" || failure == "max_len_exceeds_kv";
  if (outcome == "failed_max_seq_len") return failure == "max_len_exceeds_kv";
  if (outcome == "oom") return failure == "out_of_memory" || failure == "crashed";
  return true;  // other failures (a hang, a warm-up error) are not memory's
}

TEST(EngineLog, EveryCorpusLogIsReadAsItsEngineWithItsOutcome) {
  auto index = nlohmann::json::parse(Read("index.json"));
  int engines = 0, outcomes = 0, checks = 0, held = 0, total = 0;
  for (const auto& entry : index["logs"]) {
    ++total;
    std::string file = entry["file"];
    EngineLogFacts f = ReadEngineLog(Read(file));
    std::string engine = entry["engine"];
    bool engine_ok = f.engine == engine;
    bool outcome_ok = SameOutcome(entry["outcome"], f.failure);
    engines += engine_ok;
    outcomes += outcome_ok;
    if (entry["split"] == "train") {
      EXPECT_TRUE(engine_ok) << file << ": read as '" << f.engine << "'";
      EXPECT_TRUE(outcome_ok) << file << ": outcome " << entry["outcome"] << ", read '" << f.failure << "'";
    }
    for (const LogCheck& c : CheckEngineLog(f)) {
      ++checks;
      held += c.holds;
      EXPECT_TRUE(c.holds) << file << ": " << c.id << " logged " << c.logged << ", recomputed " << c.recomputed;
    }
  }
  // Every log, held-out included, read as its engine (the held-out part is scored, not tuned to).
  EXPECT_GE(engines, total - 1) << engines << " of " << total;
  EXPECT_GE(outcomes, total - 2) << outcomes << " of " << total;
  EXPECT_GT(checks, 10);
  std::cout << "engine logs: engine " << engines << "/" << total << ", outcome " << outcomes << "/" << total
            << ", arithmetic checks " << held << "/" << checks << "\n";
}

TEST(EngineLog, AVllmV0ProfileIsReconstructedLineByLine) {
  EngineLogFacts f = ReadEngineLog(Read("logs/030-vllm-v0-multiworker-24gb-util099.log"));
  ASSERT_EQ(f.engine, "vllm");
  ASSERT_TRUE(f.total_bytes && f.weights_bytes && f.kv_cache_bytes && f.gpu_memory_utilization);
  EXPECT_NEAR(*f.total_bytes / (1 << 30), 23.58, 1e-9);
  EXPECT_NEAR(*f.gpu_memory_utilization, 0.99, 1e-9);
  EXPECT_NEAR(*f.kv_cache_bytes / (1 << 30), 1.57, 1e-9);
  auto checks = CheckEngineLog(f);
  ASSERT_EQ(checks.size(), 2u);
  for (const auto& c : checks) EXPECT_TRUE(c.holds) << c.id;
}

TEST(EngineLog, RefusalsSayWhatTheEngineWanted) {
  EngineLogFacts v1 = ReadEngineLog(Read("logs/040-vllm-fp8-kv-221k-kv-needed.log"));
  EXPECT_EQ(v1.failure, "max_len_exceeds_kv");
  ASSERT_TRUE(v1.kv_needed_bytes && v1.kv_cache_bytes && v1.estimated_max_len && v1.max_model_len);
  EXPECT_EQ(*v1.max_model_len, 221000);
  EXPECT_EQ(*v1.estimated_max_len, 122080);
  EngineLogFacts busy = ReadEngineLog(Read("logs/038-vllm-mixtral-8x7b-fp8-tp8-h100-free-memory.log"));
  EXPECT_EQ(busy.failure, "free_below_requested");
  ASSERT_TRUE(busy.free_bytes);
  EXPECT_NEAR(*busy.free_bytes / (1 << 30), 5.31, 1e-9);
  EXPECT_TRUE(ReadEngineLog("nothing to see\nhere\n").engine.empty());
}

// A capture's timestamp as nvidia-smi prints it, read to epoch seconds (for "captured N days ago").
TEST(CaptureTime, NvidiaSmiTimestampsAreRead) {
  auto t = ParseSmiTimestamp("Fri May  3 11:54:37 2024");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(*t, 1714737277);  // date -u -d '2024-05-03 11:54:37' +%s
  EXPECT_FALSE(ParseSmiTimestamp("Thu Jan  1 00:00:00 1970").has_value()) << "before 1990 refused";
  EXPECT_FALSE(ParseSmiTimestamp("N/A").has_value());
  EXPECT_FALSE(ParseSmiTimestamp("Fri Foo  3 11:54:37 2024").has_value());
  EXPECT_FALSE(ParseSmiTimestamp("Fri May  3 25:54:37 2024").has_value());
  EXPECT_EQ(AgeInDays(*t, *t + 3 * 86400 + 5), 3);
  EXPECT_EQ(AgeInDays(*t, *t - 100), 0);
}

// --query-gpu=timestamp's form, as in the real exporter CSVs of tests/fixtures/captures_public/csv.
TEST(CaptureTime, QueryGpuTimestampsAreRead) {
  auto t = ParseSmiTimestamp("2021/06/10 00:55:54.492");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(*t, 1623286554);  // date -u -d '2021-06-10 00:55:54' +%s
  EXPECT_EQ(ParseSmiTimestamp("2021/06/10 00:55:54"), t) << "the fraction is optional";
  EXPECT_FALSE(ParseSmiTimestamp("2021/13/10 00:55:54.492").has_value()) << "month 13";
  EXPECT_FALSE(ParseSmiTimestamp("2021-06-10 00:55:54").has_value()) << "not nvidia-smi's separator";
  EXPECT_FALSE(ParseSmiTimestamp("2021/06/10 00:55").has_value());
}

}  // namespace
}  // namespace gpuprobe::telemetry
