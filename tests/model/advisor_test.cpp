// The articles' three examples must come out as the articles conclude, on a server-class CPU
// (48 cores: 2 TFLOP/s fp32, 300 GB/s).
#include "model/advisor.h"

#include <gtest/gtest.h>

#include "core/embedded_data.h"
#include "model/spec_database.h"

namespace gpuprobe::model {
namespace {

const std::vector<GpuSpec>& Gpus() {
  static const SpecDatabase db =
      *SpecDatabase::Parse(*core::EmbeddedFile("gpu_specs.json"), *core::EmbeddedFile("host_links.json"));
  return db.gpus();
}

CpuCapability ServerCpu() { return {2e12, 300e9, {}}; }

TEST(Advisor, OneFormulaOverAHundredMillionElementsNeedsTheDataOnTheGpu) {
  Workload w;
  double n = 1e8;
  w.flops = 2 * n;
  w.bytes = 8 * n;
  w.transfer_bytes = 8 * n;
  auto advice = Advise(w, ServerCpu(), Gpus());
  ASSERT_TRUE(advice.ok()) << advice.status().ToString();
  EXPECT_EQ(advice->verdict, Verdict::kOnlyIfDataStays);
  EXPECT_NEAR(advice->cpu_seconds, 8e8 / 300e9, 1e-12);
  for (const auto& e : advice->gpus) {
    // Over PCIe, copying the data costs more than the CPU needs to process it from DRAM.
    if (e.gpu->pcie_generation && e.gpu->host_interface.find("PCIe") == 0) {
      EXPECT_GT(e.transfer_seconds, advice->cpu_seconds) << e.gpu->name;
    }
  }
  ASSERT_NE(advice->pick, nullptr);
  for (const auto& e : advice->gpus) {
    if (e.gpu != advice->pick) continue;
    EXPECT_LT(e.resident_seconds, advice->cpu_seconds / 5);  // HBM is much faster than DRAM
    EXPECT_TRUE(e.bandwidth_bound);
  }
}

TEST(Advisor, BranchyPerRequestWorkStaysOnTheCpu) {
  Workload w;
  w.flops = 2e5;
  w.bytes = 1e5;
  w.transfer_bytes = 2e4;
  w.parallel_fraction = 0.3;
  w.branchy = true;
  w.calls_per_second = 2000;
  auto advice = Advise(w, ServerCpu(), Gpus());
  ASSERT_TRUE(advice.ok());
  EXPECT_EQ(advice->verdict, Verdict::kStayOnCpu);
  EXPECT_EQ(advice->pick, nullptr);
  EXPECT_NEAR(advice->amdahl_cap, 1 / 0.7, 1e-9);
  int against = 0;
  for (const auto& c : advice->criteria) against += c.score < 0;
  EXPECT_GE(against, 3);  // dependency, branching, batchability
}

// The batchability criterion speaks of the GPU's share of a call, the table's "GPU part" (the
// parallel share of the work), not of the whole work run on the GPU.
TEST(Advisor, BatchabilityUsesTheTablesGpuPart) {
  Workload w;
  w.flops = 2e4;
  w.bytes = 2e4;
  w.transfer_bytes = 2e4;
  w.parallel_fraction = 0.2;
  w.calls_per_second = 2000;
  auto advice = Advise(w, ServerCpu(), Gpus());
  ASSERT_TRUE(advice.ok());
  const GpuEstimate& top = advice->gpus.front();
  for (const auto& c : advice->criteria) {
    if (c.id != "batchability") continue;
    bool found = false;
    for (const auto& arg : c.reason.args) {
      if (arg.name != "work") continue;
      found = true;
      EXPECT_DOUBLE_EQ(arg.number, 0.2 * top.compute_seconds);
    }
    EXPECT_TRUE(found);
  }
}

TEST(Advisor, A2048MatmulMovesToTheGpuEvenWithTransfers) {
  Workload w;
  double n = 2048;
  w.flops = 2 * n * n * n;
  w.bytes = 12 * n * n;
  w.transfer_bytes = 12 * n * n;
  w.flops_growth = 3;
  w.bytes_growth = 2;
  auto advice = Advise(w, ServerCpu(), Gpus());
  ASSERT_TRUE(advice.ok());
  EXPECT_EQ(advice->verdict, Verdict::kMoveToGpu);
  ASSERT_NE(advice->pick, nullptr);
  EXPECT_GT(advice->gpus.front().speedup, 1.25);
  EXPECT_FALSE(advice->gpus.front().bandwidth_bound);
  bool complexity_for = false;
  for (const auto& c : advice->criteria) complexity_for |= c.id == "complexity" && c.score == 2;
  EXPECT_TRUE(complexity_for);
}

TEST(Advisor, TimesAddUpAsStated) {
  Workload w;
  w.flops = 1e12;
  w.bytes = 1e9;
  w.transfer_bytes = 1e9;
  w.parallel_fraction = 0.5;
  auto advice = Advise(w, ServerCpu(), Gpus());
  ASSERT_TRUE(advice.ok());
  for (const auto& e : advice->gpus) {
    double serial = 0.5 * advice->cpu_seconds;
    EXPECT_NEAR(e.resident_seconds, serial + 0.5 * e.compute_seconds + e.launch_seconds, 1e-12);
    EXPECT_NEAR(e.total_seconds, e.resident_seconds + e.transfer_seconds, 1e-12);
    EXPECT_LE(e.speedup, 2.0 + 1e-9) << e.gpu->name;  // Amdahl: P = 0.5 caps at 2x
  }
}

TEST(Advisor, RejectsBadWorkloads) {
  Workload w;
  EXPECT_FALSE(Advise(w, ServerCpu(), Gpus()).ok());  // no work
  w.flops = 1e9;
  w.parallel_fraction = 1.5;
  EXPECT_FALSE(Advise(w, ServerCpu(), Gpus()).ok());
  w.parallel_fraction = 1;
  w.bytes = -1;
  EXPECT_FALSE(Advise(w, ServerCpu(), Gpus()).ok());
  w.bytes = 1e30;
  EXPECT_FALSE(Advise(w, ServerCpu(), Gpus()).ok());
  w.bytes = 1e9;
  EXPECT_FALSE(Advise(w, {0, 0, {}}, Gpus()).ok());
}

}  // namespace
}  // namespace gpuprobe::model
