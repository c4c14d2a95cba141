#include "telemetry/findings.h"

#include <gtest/gtest.h>

namespace gpuprobe::telemetry {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

Snapshot Healthy() {
  Snapshot s;
  s.index = 0;
  s.memory_total_bytes = 80 * kGiB;
  s.memory_reserved_bytes = 0.5 * kGiB;
  s.memory_used_bytes = 10 * kGiB;
  s.utilization_gpu_percent = 95;
  s.utilization_memory_percent = 50;
  s.clock_event_reasons = 0;
  s.pcie_generation_current = s.pcie_generation_max = 5;
  s.pcie_width_current = s.pcie_width_max = 16;
  s.persistence_mode = true;
  s.ecc_enabled = true;
  s.ecc_uncorrected_volatile = 0;
  s.processes_known = true;
  s.processes.push_back({123, "C", "python3", 10 * kGiB, std::nullopt, std::nullopt});
  return s;
}

std::vector<std::string> Ids(const Snapshot& s) {
  std::vector<std::string> ids;
  for (const auto& f : EvaluateFindings({s})) ids.push_back(f.id);
  return ids;
}

bool Has(const Snapshot& s, const std::string& id) {
  auto ids = Ids(s);
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

TEST(Findings, AHealthyBusyGpuHasNone) { EXPECT_TRUE(Ids(Healthy()).empty()); }

TEST(Findings, TheIdleClockBitAloneIsNormal) {
  Snapshot s = Healthy();
  s.utilization_gpu_percent = 0;
  s.clock_event_reasons = clock_event::kGpuIdle;
  EXPECT_FALSE(Has(s, "thermal_or_power_throttling"));
}

TEST(Findings, HardwareThrottleBitsAreReal) {
  Snapshot s = Healthy();
  s.clock_event_reasons = clock_event::kHwThermal | clock_event::kHwSlowdown;
  auto findings = EvaluateFindings({s});
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings[0].id, "thermal_or_power_throttling");
  EXPECT_EQ(findings[0].severity, Severity::kWarn);
  EXPECT_NE(findings[0].evidence.find("HW thermal"), std::string::npos);
}

TEST(Findings, PowerCapUnderLoadIsOnlyInformation) {
  Snapshot s = Healthy();
  s.clock_event_reasons = clock_event::kSwPowerCap;
  auto findings = EvaluateFindings({s});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].id, "power_capped");
  EXPECT_EQ(findings[0].severity, Severity::kInfo);
}

TEST(Findings, DowntrainedLinkCountsOnlyUnderLoad) {
  Snapshot s = Healthy();
  s.pcie_generation_current = 1;
  EXPECT_TRUE(Has(s, "pcie_link_degraded"));
  s.utilization_gpu_percent = 0;  // idle links downtrain to save power
  EXPECT_FALSE(Has(s, "pcie_link_degraded"));
}

TEST(Findings, EccAndRowRemapping) {
  Snapshot s = Healthy();
  s.ecc_uncorrected_volatile = 2;
  s.remapped_rows_failure = true;
  s.remapped_rows_pending = true;
  auto findings = EvaluateFindings({s});
  EXPECT_EQ(WorstSeverity(findings), Severity::kFail);
  EXPECT_TRUE(Has(s, "ecc_uncorrectable"));
  EXPECT_TRUE(Has(s, "row_remap_failure"));
  EXPECT_TRUE(Has(s, "memory_repair_pending"));
}

TEST(Findings, MemoryNearlyFullAndHeldWithoutProcess) {
  Snapshot s = Healthy();
  s.memory_used_bytes = 78 * kGiB;
  EXPECT_TRUE(Has(s, "memory_nearly_full"));
  s.processes.clear();
  EXPECT_TRUE(Has(s, "memory_held_without_process"));
  s.mig_enabled = true;  // under MIG processes may sit in instances we cannot see
  EXPECT_FALSE(Has(s, "memory_held_without_process"));
}

TEST(Findings, IdleButReservedAndStarvedByTheHost) {
  Snapshot s = Healthy();
  s.utilization_gpu_percent = 0;
  s.memory_used_bytes = 40 * kGiB;
  EXPECT_TRUE(Has(s, "memory_reserved_idle"));
  s.utilization_gpu_percent = 15;
  EXPECT_TRUE(Has(s, "gpu_starved_by_host"));
  EXPECT_FALSE(Has(s, "memory_reserved_idle"));
}

TEST(Findings, BusyWithoutMemoryTrafficAndTheReverse) {
  Snapshot s = Healthy();
  s.utilization_memory_percent = 5;
  EXPECT_TRUE(Has(s, "busy_not_bandwidth_bound"));
  s.utilization_memory_percent = 85;
  EXPECT_TRUE(Has(s, "bandwidth_bound"));
}

TEST(Findings, ConfigurationFindings) {
  Snapshot s = Healthy();
  s.persistence_mode = false;
  EXPECT_TRUE(Has(s, "persistence_off"));
  s.mig_enabled = true;
  s.utilization_gpu_percent.reset();
  EXPECT_TRUE(Has(s, "mig_hides_utilization"));
}

TEST(Findings, TemperatureNearSlowdown) {
  Snapshot s = Healthy();
  s.temperature_celsius = 87;
  s.temperature_slowdown_celsius = 90;
  EXPECT_TRUE(Has(s, "near_thermal_slowdown"));
}

TEST(Findings, EmptySnapshotsGiveNothingAndNeverCrash) { EXPECT_TRUE(Ids(Snapshot()).empty()); }

}  // namespace
}  // namespace gpuprobe::telemetry
