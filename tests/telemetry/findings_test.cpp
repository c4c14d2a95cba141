// The rules one at a time, on snapshots built by hand (the corpus tests check them on real
// captures). Each case states the situation an operator would recognise.
#include "telemetry/findings.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "telemetry/process_kind.h"

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
  s.utilization_encoder_percent = 0;
  s.utilization_decoder_percent = 0;
  s.clock_event_reasons = 0;
  s.pcie_generation_current = s.pcie_generation_max = 5;
  s.pcie_width_current = s.pcie_width_max = 16;
  s.persistence_mode = true;
  s.ecc_enabled = true;
  s.ecc_uncorrected_volatile = s.ecc_uncorrected_aggregate = s.ecc_corrected_aggregate = s.ecc_corrected_volatile = 0;
  s.remapped_rows_pending = s.remapped_rows_failure = false;
  s.remapped_rows_correctable = s.remapped_rows_uncorrectable = 0;
  s.temperature_celsius = 60;
  s.temperature_slowdown_celsius = 90;
  s.power_draw_watts = 500;
  s.power_limit_watts = 700;
  s.pcie_replay_count = 0;
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

const Finding* Get(const Assessment& a, const std::string& id) {
  for (const auto& f : a.findings) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

const NotJudged* Unjudged(const Assessment& a, const std::string& id) {
  for (const auto& n : a.not_judged) {
    if (n.id == id) return &n;
  }
  return nullptr;
}

std::string ArgOf(const Finding& f, const std::string& name) {
  for (const auto& [arg, value] : f.args) {
    if (arg == name) return value;
  }
  return "<none>";
}

bool HasNote(const Finding& f, const std::string& note) { return std::find(f.notes.begin(), f.notes.end(), note) != f.notes.end(); }

std::string FactOf(const Finding& f, const std::string& field) {
  for (const auto& fact : f.facts) {
    if (fact.field == field) return fact.value;
  }
  return "<none>";
}

TEST(Findings, AHealthyBusyGpuHasNoneAndJudgesEverything) {
  auto a = Assess({Healthy()});
  EXPECT_TRUE(a.findings.empty());
  for (const auto& n : a.not_judged) ADD_FAILURE() << "not judged: " << n.id;
}

// A GeForce card (no ECC) or a datacenter card with ECC disabled counts no memory errors: the
// ECC rules are not judged, with the reason, and nothing else is said to be missing.
TEST(Findings, EccOffSaysWhyTheMemoryErrorRulesAreNotJudged) {
  Snapshot s = Healthy();
  s.ecc_enabled = false;
  s.ecc_corrected_volatile.reset();
  s.ecc_uncorrected_volatile.reset();
  s.ecc_corrected_aggregate.reset();
  s.ecc_uncorrected_aggregate.reset();
  auto off = Assess({s});
  for (const char* id : {"ecc_uncorrectable", "ecc_uncorrectable_history", "ecc_corrected"}) {
    const NotJudged* n = Unjudged(off, id);
    ASSERT_NE(n, nullptr) << id;
    EXPECT_EQ(n->reason, "ecc_off") << id;
  }
  // ECC state not reported: the counts are simply missing, no reason is claimed.
  s.ecc_enabled.reset();
  auto unknown = Assess({s});
  const NotJudged* n = Unjudged(unknown, "ecc_uncorrectable");
  ASSERT_NE(n, nullptr);
  EXPECT_TRUE(n->reason.empty());
}

TEST(Findings, EveryFindingNamesItsEvidenceFields) {
  Snapshot s = Healthy();
  s.ecc_uncorrected_volatile = 2;
  auto a = Assess({s});
  const Finding* f = Get(a, "ecc_uncorrectable");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(FactOf(*f, "ecc.errors.uncorrected.volatile.total"), "2");
  EXPECT_EQ(f->confidence(), Confidence::kFull);
  EXPECT_EQ(ArgOf(*f, "count"), "2");
}

TEST(Findings, TheIdleClockBitAloneIsNormal) {
  Snapshot s = Healthy();
  s.utilization_gpu_percent = 0;
  s.clock_event_reasons = clock_event::kGpuIdle;
  EXPECT_FALSE(Has(s, "thermal_or_power_throttling"));
}

TEST(Findings, HardwareThrottleBitsAreRealAndSaySoAtIdle) {
  Snapshot s = Healthy();
  s.utilization_gpu_percent = 0;
  s.processes.clear();
  s.clock_event_reasons = clock_event::kHwSlowdown | clock_event::kHwPowerBrake;
  auto a = Assess({s});
  const Finding* f = Get(a, "thermal_or_power_throttling");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarn);
  EXPECT_EQ(ArgOf(*f, "reasons"), "HW Slowdown, HW Power Brake Slowdown");
  EXPECT_TRUE(HasNote(*f, "throttle_while_idle"));
  EXPECT_TRUE(HasNote(*f, "power_brake_external"));
}

TEST(Findings, AThermalBitOnACoolGpuIsNotItsOwnHeat) {
  Snapshot s = Healthy();
  s.temperature_celsius = 39;
  s.temperature_slowdown_celsius = 88;
  s.clock_event_reasons = clock_event::kSwThermal;
  auto a = Assess({s});
  const Finding* f = Get(a, "thermal_or_power_throttling");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(HasNote(*f, "thermal_bit_but_cool"));
  EXPECT_EQ(ArgOf(*f, "margin"), "49");
}

TEST(Findings, PowerCapUnderLoadIsOnlyInformationAndAtIdleNothing) {
  Snapshot s = Healthy();
  s.clock_event_reasons = clock_event::kSwPowerCap;
  auto findings = EvaluateFindings({s});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].id, "power_capped");
  EXPECT_EQ(findings[0].severity, Severity::kInfo);
  s.utilization_gpu_percent = 0;
  s.processes.clear();
  EXPECT_FALSE(Has(s, "power_capped"));  // consumer cards report the cap at idle
}

TEST(Findings, PastTheSlowdownThresholdSaysWhichSideAndByHowMuch) {
  Snapshot s = Healthy();
  s.temperature_celsius = 93;
  s.temperature_slowdown_celsius = 90;
  s.clock_event_reasons = clock_event::kHwThermal;
  auto a = Assess({s});
  EXPECT_EQ(Get(a, "near_thermal_slowdown"), nullptr);
  const Finding* f = Get(a, "thermal_slowdown_reached");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->variant, "threshold");
  EXPECT_EQ(ArgOf(*f, "margin"), "3");
  EXPECT_TRUE(HasNote(*f, "thermal_confirmed"));

  s.temperature_celsius = 87;
  s.clock_event_reasons = 0;
  a = Assess({s});
  f = Get(a, "near_thermal_slowdown");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(ArgOf(*f, "margin"), "3");
  EXPECT_TRUE(HasNote(*f, "thermal_near_not_yet"));

  s.clock_event_reasons.reset();
  a = Assess({s});
  f = Get(a, "near_thermal_slowdown");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(HasNote(*f, "thermal_unconfirmed_no_reasons"));
  EXPECT_EQ(f->confidence(), Confidence::kReduced);
}

TEST(Findings, TLimitMarginsAreReadForWhatTheyAre) {
  Snapshot s = Healthy();
  s.temperature_slowdown_celsius.reset();
  s.temperature_celsius = 83;
  s.temperature_margin_celsius = -3;            // 3 C past the maximum operating temperature
  s.temperature_slowdown_tlimit_celsius = -2;   // slowdown engages at T.Limit -2
  auto a = Assess({s});
  const Finding* f = Get(a, "thermal_slowdown_reached");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->variant, "tlimit");
  EXPECT_EQ(ArgOf(*f, "margin"), "1");
  EXPECT_EQ(ArgOf(*f, "threshold"), "82");

  s.temperature_margin_celsius = 53;  // a cool RTX 4090: 55 C before slowdown
  EXPECT_TRUE(Ids(s).empty());
  s.temperature_margin_celsius = 4;   // CSV gives only temperature.gpu.tlimit
  s.temperature_slowdown_tlimit_celsius.reset();
  a = Assess({s});
  f = Get(a, "near_thermal_slowdown");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->variant, "max_operating");
}

TEST(Findings, AnIdleLinkAtGen1IsPowerSavingButANarrowLinkIsAFaultAtAnyLoad) {
  Snapshot s = Healthy();
  s.utilization_gpu_percent = 0;
  s.processes.clear();
  s.pcie_generation_current = 1;
  EXPECT_FALSE(Has(s, "pcie_link_degraded"));
  s.utilization_gpu_percent = 95;
  EXPECT_TRUE(Has(s, "pcie_link_degraded"));

  s = Healthy();
  s.utilization_gpu_percent = 0;
  s.processes.clear();
  s.pcie_generation_max = 3;
  s.pcie_generation_current = 1;
  s.pcie_width_current = 1;
  auto a = Assess({s});
  const Finding* f = Get(a, "pcie_link_narrow");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarn);
  EXPECT_EQ(ArgOf(*f, "bandwidth"), "1.0 GB/s");       // Gen3 x1: 8 GT/s x 128/130 / 8
  EXPECT_EQ(ArgOf(*f, "max_bandwidth"), "15.8 GB/s");  // Gen3 x16
  EXPECT_TRUE(HasNote(*f, "pcie_x1"));

  s.multi_gpu_board = true;  // K80 / M10: the board's own switch sets the width
  a = Assess({s});
  f = Get(a, "pcie_link_narrow");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kInfo);
}

TEST(Findings, AnUnreportedLinkIsNotJudgedNeverGen0) {
  Snapshot s = Healthy();
  s.pcie_generation_current.reset();
  s.pcie_generation_max.reset();
  s.pcie_width_current.reset();
  s.pcie_width_max.reset();
  auto a = Assess({s});
  EXPECT_EQ(Get(a, "pcie_link_narrow"), nullptr);
  ASSERT_NE(Unjudged(a, "pcie_link_narrow"), nullptr);
  ASSERT_NE(Unjudged(a, "pcie_link_degraded"), nullptr);
  EXPECT_EQ(Unjudged(a, "pcie_link_narrow")->missing, (std::vector<std::string>{"pcie.link.width.current", "pcie.link.width.max"}));
}

TEST(Findings, PcieReplaysFarPastLinkTraining) {
  Snapshot s = Healthy();
  s.pcie_replay_count = 120;
  EXPECT_FALSE(Has(s, "pcie_replays"));
  s.pcie_replay_count = 65535;
  EXPECT_TRUE(Has(s, "pcie_replays"));
}

TEST(Findings, EccAndRowRemapping) {
  Snapshot s = Healthy();
  s.ecc_uncorrected_volatile = 2;
  s.remapped_rows_failure = true;
  s.remapped_rows_pending = true;
  s.remapped_rows_uncorrectable = 4;
  auto findings = EvaluateFindings({s});
  EXPECT_EQ(WorstSeverity(findings), Severity::kFail);
  EXPECT_TRUE(Has(s, "ecc_uncorrectable"));
  EXPECT_TRUE(Has(s, "row_remap_failure"));
  EXPECT_TRUE(Has(s, "memory_repair_pending"));
  EXPECT_FALSE(Has(s, "ecc_uncorrectable_history"));  // the volatile count already says it
}

TEST(Findings, AggregateCountsAndRetiredPagesOfAnOldBoard) {
  Snapshot s = Healthy();
  s.remapped_rows_pending.reset();
  s.remapped_rows_failure.reset();
  s.remapped_rows_correctable.reset();
  s.remapped_rows_uncorrectable.reset();
  s.ecc_uncorrected_aggregate = 7;
  s.ecc_corrected_aggregate = 7;
  s.retired_pages_sbe = 1;
  s.retired_pages_dbe = 1;
  s.retired_pages_pending = false;
  auto a = Assess({s});
  ASSERT_NE(Get(a, "ecc_uncorrectable_history"), nullptr);
  EXPECT_EQ(Get(a, "ecc_uncorrectable_history")->severity, Severity::kWarn);
  ASSERT_NE(Get(a, "ecc_corrected"), nullptr);
  EXPECT_EQ(Get(a, "ecc_corrected")->severity, Severity::kInfo);
  ASSERT_NE(Get(a, "retired_pages"), nullptr);
  EXPECT_EQ(ArgOf(*Get(a, "retired_pages"), "total"), "2");
  EXPECT_EQ(Unjudged(a, "memory_repair_pending"), nullptr);  // retired pages are reported
  s.retired_pages_sbe = 60;
  s.retired_pages_dbe = 3;
  EXPECT_EQ(Get(Assess({s}), "retired_pages")->severity, Severity::kFail);  // DCGM: >= 63
}

TEST(Findings, MissingEccCountsAreNotJudgedNeverPassed) {
  Snapshot s = Healthy();
  s.ecc_uncorrected_volatile.reset();
  s.ecc_uncorrected_aggregate.reset();
  auto a = Assess({s});
  EXPECT_NE(Unjudged(a, "ecc_uncorrectable"), nullptr);
  EXPECT_NE(Unjudged(a, "ecc_uncorrectable_history"), nullptr);
}

TEST(Findings, MemoryNearlyFullAndHeldWithoutProcess) {
  Snapshot s = Healthy();
  s.memory_used_bytes = 78 * kGiB;
  s.processes.push_back({124, "C", "worker", 40 * kGiB, std::nullopt, std::nullopt});
  s.processes[0].used_memory_bytes = 38 * kGiB;
  auto a = Assess({s});
  ASSERT_NE(Get(a, "memory_nearly_full"), nullptr);
  EXPECT_EQ(Get(a, "memory_nearly_full")->severity, Severity::kWarn);
  s.processes.clear();
  a = Assess({s});
  EXPECT_NE(Get(a, "memory_held_without_process"), nullptr);
  s.mig_enabled = true;  // under MIG processes may sit in instances we cannot see
  EXPECT_FALSE(Has(s, "memory_held_without_process"));
  s.mig_enabled = false;
  s.processes_known = false;  // a CSV lists no processes: not judged, not passed
  a = Assess({s});
  EXPECT_EQ(Get(a, "memory_held_without_process"), nullptr);
  EXPECT_NE(Unjudged(a, "memory_held_without_process"), nullptr);
}

TEST(Findings, OneJobHoldingAllMemoryIsAPreallocationNotAnAlarm) {
  Snapshot s = Healthy();
  s.memory_used_bytes = 78 * kGiB;
  s.processes[0].used_memory_bytes = 77.5 * kGiB;
  auto a = Assess({s});
  const Finding* f = Get(a, "memory_nearly_full");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kInfo);
  EXPECT_EQ(f->variant, "one_job");
}

TEST(Findings, AVgpuHostsFramebufferIsFullByDesign) {
  Snapshot s = Healthy();
  s.virtualization_mode = "Host VGPU";
  s.memory_used_bytes = 79 * kGiB;
  s.processes = {{1, "C+G", "vm-1", 39.5 * kGiB, std::nullopt, std::nullopt}, {2, "C+G", "vm-2", 39.5 * kGiB, std::nullopt, std::nullopt}};
  EXPECT_FALSE(Has(s, "memory_nearly_full"));
}

TEST(Findings, GraphicsProcessesAreNotJobs) {
  // A Linux desktop: Xorg and gnome-shell, idle, display on.
  Snapshot s = Healthy();
  s.utilization_gpu_percent = 12;
  s.memory_total_bytes = 2 * kGiB;
  s.memory_reserved_bytes.reset();
  s.memory_used_bytes = 0.9 * kGiB;
  s.persistence_mode = false;
  s.display_active = true;
  s.processes = {{547, "G", "/usr/lib/Xorg", 0.5 * kGiB, std::nullopt, std::nullopt},
                 {900, "G", "/usr/bin/gnome-shell", 0.1 * kGiB, std::nullopt, std::nullopt}};
  EXPECT_TRUE(Ids(s).empty());
  // A Windows desktop: every window is C+G, per-process memory N/A under WDDM.
  s.driver_model = "WDDM";
  s.processes = {{2056, "C+G", "C:\\Windows\\System32\\dwm.exe", std::nullopt, std::nullopt, std::nullopt},
                 {12332, "C+G", "C:\\Windows\\explorer.exe", std::nullopt, std::nullopt, std::nullopt}};
  s.memory_used_bytes = 1.5 * kGiB;
  auto a = Assess({s});
  EXPECT_TRUE(a.findings.empty());
  ASSERT_NE(Unjudged(a, "memory_unaccounted"), nullptr);
  EXPECT_EQ(Unjudged(a, "memory_unaccounted")->missing, std::vector<std::string>{"process used_memory"});
}

TEST(Findings, IdleButReservedAndStarvedByTheHost) {
  Snapshot s = Healthy();
  s.utilization_gpu_percent = 0;
  s.memory_used_bytes = 40 * kGiB;
  s.processes[0].used_memory_bytes = 40 * kGiB;
  EXPECT_TRUE(Has(s, "memory_reserved_idle"));
  s.utilization_gpu_percent = 15;
  EXPECT_TRUE(Has(s, "gpu_starved_by_host"));
  EXPECT_FALSE(Has(s, "memory_reserved_idle"));
}

TEST(Findings, VideoEngineWorkIsNotStarvation) {
  // ffmpeg encoding on NVENC: GPU-Util 7 %, encoder 100 %.
  Snapshot s = Healthy();
  s.utilization_gpu_percent = 7;
  s.utilization_encoder_percent = 100;
  s.processes = {{25704, "C", "ffmpeg.exe", std::nullopt, std::nullopt, std::nullopt}};
  EXPECT_FALSE(Has(s, "gpu_starved_by_host"));
  auto busy = Assess({s});
  const Finding* video = Get(busy, "video_engine_busy");  // util is not busy: NVENC is the work
  ASSERT_NE(video, nullptr);
  EXPECT_EQ(video->variant, "encoder");
  EXPECT_EQ(ArgOf(*video, "video"), "100");
  s.utilization_encoder_percent.reset();  // a table has no encoder column: cannot tell
  s.utilization_decoder_percent.reset();
  auto a = Assess({s});
  EXPECT_EQ(Get(a, "gpu_starved_by_host"), nullptr);
  EXPECT_NE(Unjudged(a, "gpu_starved_by_host"), nullptr);
}

TEST(Findings, BusyWithoutMemoryTrafficAndTheReverse) {
  Snapshot s = Healthy();
  s.utilization_memory_percent = 5;
  EXPECT_TRUE(Has(s, "busy_not_bandwidth_bound"));
  s.utilization_memory_percent = 85;
  EXPECT_TRUE(Has(s, "bandwidth_bound"));
}

TEST(Findings, ContradictionsOfAnIdleGpuUtil) {
  Snapshot s = Healthy();
  s.processes.clear();
  s.utilization_gpu_percent = 0;
  s.power_draw_watts = 400;  // 57 % of the limit with no kernel
  s.utilization_memory_percent = 37;
  s.display_active = true;
  auto a = Assess({s});
  ASSERT_NE(Get(a, "power_without_utilization"), nullptr);
  const Finding* f = Get(a, "memory_busy_without_kernels");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(HasNote(*f, "display_active"));
}

TEST(Findings, PersistenceMattersOnHeadlessMachinesOnly) {
  Snapshot s = Healthy();
  s.persistence_mode = false;
  s.display_active = false;
  EXPECT_TRUE(Has(s, "persistence_off"));
  s.processes.push_back({547, "G", "Xorg", 0.1 * kGiB, std::nullopt, std::nullopt});
  EXPECT_FALSE(Has(s, "persistence_off"));
}

TEST(Findings, MigHidesUtilisation) {
  Snapshot s = Healthy();
  s.mig_enabled = true;
  s.utilization_gpu_percent.reset();
  EXPECT_TRUE(Has(s, "mig_hides_utilization"));
}

TEST(Findings, EmptySnapshotsGiveNoFindingButSayWhatCouldNotBeJudged) {
  auto a = Assess({Snapshot()});
  EXPECT_TRUE(a.findings.empty());
  EXPECT_NE(Unjudged(a, "ecc_uncorrectable"), nullptr);
  EXPECT_NE(Unjudged(a, "near_thermal_slowdown"), nullptr);
  EXPECT_NE(Unjudged(a, "memory_nearly_full"), nullptr);
}

TEST(Findings, EveryIdIsListed) {
  Snapshot s = Healthy();
  for (const auto& f : Assess({s}).findings) {
    EXPECT_NE(std::find(FindingIds().begin(), FindingIds().end(), f.id), FindingIds().end()) << f.id;
  }
}

TEST(ProcessKind, ClassifiesNvidiaSmiTypes) {
  EXPECT_EQ(ClassifyProcess("C"), ProcessKind::kCompute);
  EXPECT_EQ(ClassifyProcess("M"), ProcessKind::kCompute);
  EXPECT_EQ(ClassifyProcess("M+C"), ProcessKind::kCompute);
  EXPECT_EQ(ClassifyProcess("G"), ProcessKind::kGraphics);
  EXPECT_EQ(ClassifyProcess("C+G"), ProcessKind::kComputeGraphics);
  EXPECT_EQ(ClassifyProcess(" C + G "), ProcessKind::kComputeGraphics);
  EXPECT_EQ(ClassifyProcess(""), ProcessKind::kUnknown);
  EXPECT_EQ(ClassifyProcess("N/A"), ProcessKind::kUnknown);
}

// The health verdict: notes never make a node unhealthy; failures come before warnings.
TEST(HealthVerdict, WorstSeverityWithItsCausesFailuresFirst) {
  std::vector<Finding> findings(3);
  findings[0].id = "memory_held_idle";
  findings[1].id = "thermal_slowdown_reached";
  findings[1].severity = Severity::kWarn;
  findings[1].gpu = 2;
  findings[2].id = "ecc_uncorrectable";
  findings[2].severity = Severity::kFail;
  findings[2].gpu = 5;
  auto v = JudgeHealth(findings, 8);
  EXPECT_EQ(v.worst, Severity::kFail);
  EXPECT_EQ(v.gpus, 8);
  EXPECT_EQ(v.notes, 1);
  ASSERT_EQ(v.causes.size(), 2u);
  EXPECT_EQ(v.causes[0]->id, "ecc_uncorrectable");
  EXPECT_EQ(v.causes[1]->id, "thermal_slowdown_reached");

  auto notes_only = JudgeHealth({findings[0]}, 1);
  EXPECT_EQ(notes_only.worst, Severity::kInfo);
  EXPECT_TRUE(notes_only.causes.empty());
  EXPECT_EQ(notes_only.notes, 1);
}

}  // namespace
}  // namespace gpuprobe::telemetry
