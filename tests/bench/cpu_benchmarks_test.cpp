// Every registered CPU benchmark: well-formed declaration, declared work, a tiny real run
// that verifies, and a damaged result that fails verification. No test checks a speed.
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "bench/cpu/cpu_context.h"
#include "bench/cpu/cpu_facts.h"
#include "bench/registry.h"
#include "bench/run_plan.h"

namespace gpuprobe::bench {
namespace {

BenchmarkRegistry& Registry() {
  static BenchmarkRegistry* registry = [] {
    auto* r = new BenchmarkRegistry();
    RegisterCpuBenchmarks(r);
    return r;
  }();
  return *registry;
}

CpuContext& Context() {
  static std::unique_ptr<CpuContext> context = OpenCpuContext(2);
  return *context;
}

// Small sizes: the benchmark's own unit (bytes for memory-like ones, n for matmul).
std::uint64_t TinySize(const std::string& group) { return group == "matmul" ? 64 : 64 * 1024; }

// The clock probe counts one dependent add per cycle; a core that runs the chain faster reads
// several times its real clock, which the OS's maximum exposes. Such a reading is dropped (the
// maximum is used, and said), never put into a peak. The probe itself reads a clock at all.
TEST(ClockProbe, AReadingFarAboveTheMaximumIsDropped) {
  EXPECT_DOUBLE_EQ(PlausibleClockHz(2.9e9, 3.0e9), 2.9e9);
  EXPECT_DOUBLE_EQ(PlausibleClockHz(3.5e9, 2.3e9), 3.5e9);   // a VM's nominal maximum, a real turbo
  EXPECT_DOUBLE_EQ(PlausibleClockHz(11.2e9, 2.3e9), 0.0);    // the reading of a folded immediate-add chain
  EXPECT_DOUBLE_EQ(PlausibleClockHz(7.0e9, 0.0), 0.0);       // faster than any core
  EXPECT_DOUBLE_EQ(PlausibleClockHz(4.0e9, 0.0), 4.0e9);     // no maximum known: kept
  EXPECT_DOUBLE_EQ(PlausibleClockHz(0.0, 3.0e9), 0.0);
  EXPECT_GT(ProbeClockOnce(0.01), 1e8);
}

TEST(BenchmarkRegistry, IdsAreUniqueGroupDotNameAndDescribed) {
  std::set<std::string> ids;
  std::regex pattern("^[a-z0-9_]+\\.[a-z0-9_]+$");
  for (const auto& b : Registry().all()) {
    const auto& info = b->Info();
    EXPECT_TRUE(ids.insert(info.id).second) << "duplicate " << info.id;
    EXPECT_TRUE(std::regex_match(info.id, pattern)) << info.id;
    EXPECT_EQ(info.id.substr(0, info.id.find('.')), info.group) << info.id;
    EXPECT_FALSE(info.description.empty()) << info.id;
    EXPECT_FALSE(info.claim.empty()) << info.id;
    EXPECT_FALSE(info.backends.empty()) << info.id;
  }
  for (const char* expected : {"memory.copy", "memory.scale", "memory.add", "memory.triad", "memory.dot", "memory.sweep",
                               "compute.fma_fp64", "compute.fma_fp32", "compute.fma_bf16", "compute.int32", "latency.chase",
                               "matmul.naive", "matmul.blocked", "matmul.openblas_sgemm", "matmul.openblas_dgemm",
                               "access.sequential", "access.strided", "access.random", "branch.predictable",
                               "branch.unpredictable", "parallel.amdahl"}) {
    EXPECT_NE(Registry().Find(expected), nullptr) << expected;
  }
}

TEST(BenchmarkRegistry, SelectsByIdGroupAndPrefixWithDidYouMean) {
  auto group = Registry().Select({"memory"});
  ASSERT_TRUE(group.ok());
  EXPECT_EQ(group->size(), 6u);
  auto prefix = Registry().Select({"matmul.open"});
  ASSERT_TRUE(prefix.ok());
  EXPECT_EQ(prefix->size(), 2u);
  auto mixed = Registry().Select({"latency.chase", "memory.triad"});
  ASSERT_TRUE(mixed.ok());
  EXPECT_EQ((*mixed)[0]->Info().id, "memory.triad");  // registration order kept
  auto bad = Registry().Select({"memroy"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("did you mean 'memory'"), std::string::npos);
}

TEST(BenchmarkWork, StreamCountsFollowStream) {
  const Benchmark* triad = Registry().Find("memory.triad");
  BenchCase c{"x", 1000, 1, 0, ""};
  Work w = triad->WorkFor(c);
  EXPECT_DOUBLE_EQ(w.bytes_read, 16000);  // a and b
  EXPECT_DOUBLE_EQ(w.bytes_written, 8000);
  EXPECT_DOUBLE_EQ(w.flops, 2000);
  Work copy = Registry().Find("memory.copy")->WorkFor(c);
  EXPECT_DOUBLE_EQ(copy.Bytes(), 16000);
  Work dot = Registry().Find("memory.dot")->WorkFor(c);
  EXPECT_DOUBLE_EQ(dot.bytes_written, 0);
  Work gemm = Registry().Find("matmul.openblas_sgemm")->WorkFor({"n", 512, 1, 0, ""});
  EXPECT_DOUBLE_EQ(gemm.flops, 2.0 * 512 * 512 * 512);
  Work dgemm = Registry().Find("matmul.openblas_dgemm")->WorkFor({"n", 512, 1, 0, ""});
  EXPECT_DOUBLE_EQ(dgemm.bytes_read, 2.0 * 512 * 512 * 8);
}

TEST(BenchmarkWork, EveryCaseDeclaresWork) {
  model::CpuSpec cpu = Context().spec();
  for (const auto& b : Registry().all()) {
    for (const auto& c : b->Cases(Context(), cpu, /*full=*/true, 0)) {
      Work w = b->WorkFor(c);
      EXPECT_GT(w.Bytes() + w.flops + w.ops + w.items, 0) << b->Info().id << " " << c.label;
      EXPECT_FALSE(c.label.empty()) << b->Info().id;
    }
  }
}

class EveryBenchmark : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryBenchmark, RunsTinyVerifiesAndCatchesADamagedResult) {
  const Benchmark* b = Registry().Find(GetParam());
  ASSERT_NE(b, nullptr);
  model::CpuSpec cpu = Context().spec();
  auto cases = b->Cases(Context(), cpu, false, TinySize(b->Info().group));
  ASSERT_FALSE(cases.empty());
  const BenchCase& c = cases.front();
  if (!b->Check(Context(), c).available) GTEST_SKIP() << "not available here: " << b->Check(Context(), c).reason;
  auto instance = b->Prepare(Context(), c);
  ASSERT_TRUE(instance.ok()) << instance.status().ToString();
  auto seconds = (*instance)->RunOnce();
  ASSERT_TRUE(seconds.ok());
  EXPECT_GT(*seconds, 0);
  Verification ok = (*instance)->Verify();
  EXPECT_TRUE(ok.verified) << ok.detail;
  ASSERT_TRUE((*instance)->CorruptForTest()) << "every benchmark must support fault injection";
  Verification damaged = (*instance)->Verify();
  EXPECT_FALSE(damaged.verified) << GetParam() << ": a wrong result passed verification";
}

std::vector<std::string> AllIds() {
  std::vector<std::string> ids;
  for (const auto& b : Registry().all()) ids.push_back(b->Info().id);
  return ids;
}

INSTANTIATE_TEST_SUITE_P(Cpu, EveryBenchmark, ::testing::ValuesIn(AllIds()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string name = param_info.param;
                           for (char& ch : name) {
                             if (ch == '.') ch = '_';
                           }
                           return name;
                         });

TEST(RunSelection, ProducesResultsWithPredictionsAndStatistics) {
  auto selection = Registry().Select({"memory.triad", "parallel"});
  ASSERT_TRUE(selection.ok());
  BenchSettings settings;
  settings.size_override = 256 * 1024;
  settings.runner.min_samples = 2;
  settings.runner.min_seconds = 0;
  settings.runner.max_seconds = 0.05;
  std::vector<BackendContext*> contexts = {&Context()};
  auto results = RunSelection(*selection, contexts, Context().spec(), settings);
  ASSERT_GE(results.size(), 3u);
  for (const auto& r : results) {
    EXPECT_TRUE(r.ok()) << r.id << " " << r.error;
    EXPECT_TRUE(r.verified) << r.id;
    EXPECT_GT(r.value, 0) << r.id;
    EXPECT_GE(r.stats.count, 2) << r.id;
    EXPECT_EQ(r.backend, "cpu");
  }
  // The 2-thread Amdahl case is predicted from the measured 1-thread case.
  const BenchResult* amdahl = nullptr;
  for (const auto& r : results) {
    if (r.id == "parallel.amdahl") amdahl = &r;
  }
  ASSERT_NE(amdahl, nullptr);
  const BenchResult& last = *amdahl;
  if (last.threads == 2) {
    ASSERT_TRUE(last.predicted.has_value());
    EXPECT_NE(last.prediction_basis.find("Amdahl"), std::string::npos);
  }
}

}  // namespace
}  // namespace gpuprobe::bench
