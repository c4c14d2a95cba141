// The NVML path through the real dlopen code, against fake libnvidia-ml libraries built by
// the tests and scripted by fixtures (tests/fixtures/nvml/).
#include <cstdlib>

#include <gtest/gtest.h>

#include "model/fixture.h"
#include "telemetry/findings.h"
#include "telemetry/nvml_library.h"
#include "telemetry/nvml_source.h"
#include "telemetry/nvml_topology.h"
#include "telemetry/topology_findings.h"

namespace gpuprobe::telemetry {
namespace {

using gpuprobe::testing::FixturePath;

core::Result<std::vector<Snapshot>> ReadWith(const std::string& library, const std::string& fixture) {
  ::setenv("FAKE_NVML_FIXTURE", FixturePath("nvml/" + fixture).c_str(), 1);
  auto nvml = NvmlLibrary::Load(library);
  if (!nvml.ok()) return nvml.status();
  GPUPROBE_RETURN_IF_ERROR((*nvml)->Init());
  return ReadNvmlSnapshots(**nvml);
}

constexpr double kMiB = 1024.0 * 1024.0;

TEST(NvmlFake, H200UnderLoadReadsEveryField) {
  auto gpus = ReadWith(FAKE_NVML_FULL, "h200-load.nvml");
  ASSERT_TRUE(gpus.ok()) << gpus.status().ToString();
  ASSERT_EQ(gpus->size(), 1u);
  const Snapshot& s = (*gpus)[0];
  EXPECT_EQ(s.source, "nvml");
  EXPECT_EQ(s.name, "NVIDIA H200");
  EXPECT_EQ(s.driver_version, "590.48.01");
  EXPECT_EQ(s.cuda_version, "13.1");
  EXPECT_EQ(s.pci_bus_id, "00000000:83:00.0");
  EXPECT_EQ(*s.pci_device_id, 0x233510DEu);
  // Memory v2 was called with the right version field: the reservation comes separately.
  EXPECT_DOUBLE_EQ(*s.memory_total_bytes, 143771 * kMiB);
  EXPECT_DOUBLE_EQ(*s.memory_reserved_bytes, 614 * kMiB);
  EXPECT_DOUBLE_EQ(*s.memory_used_bytes, 32362 * kMiB);
  EXPECT_DOUBLE_EQ(*s.power_draw_watts, 627.32);
  EXPECT_DOUBLE_EQ(*s.power_limit_watts, 700);
  EXPECT_EQ(s.performance_state, "P0");
  EXPECT_EQ(*s.pcie_generation_current, 5);
  EXPECT_DOUBLE_EQ(*s.pcie_tx_bytes_per_s, 4217 * 1024.0);
  EXPECT_EQ(s.compute_capability, "9.0");
  ASSERT_EQ(s.processes.size(), 3u);
  EXPECT_EQ(s.processes[2].pid, 10309u);
  EXPECT_EQ(s.processes[2].name, "./gpu_burn");
  EXPECT_DOUBLE_EQ(*s.processes[2].used_memory_bytes, 29605642240.0);
  EXPECT_FALSE(s.processes[0].gpu_instance_id.has_value());
}

TEST(NvmlFake, MigGpuLeavesUtilisationEmptyAndSaysSo) {
  auto gpus = ReadWith(FAKE_NVML_FULL, "h100-mig.nvml");
  ASSERT_TRUE(gpus.ok());
  const Snapshot& s = (*gpus)[0];
  EXPECT_TRUE(*s.mig_enabled);
  EXPECT_FALSE(s.utilization_gpu_percent.has_value());
  auto findings = EvaluateFindings(*gpus);
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings.back().id, "mig_hides_utilization");
}

TEST(NvmlFake, Driver535ProcessLayoutIsDetected) {
  auto gpus = ReadWith(FAKE_NVML_535, "rtx-535.nvml");
  ASSERT_TRUE(gpus.ok()) << gpus.status().ToString();
  const Snapshot& s = (*gpus)[0];
  ASSERT_EQ(s.processes.size(), 2u);
  // With a 24-byte stride the second pid would be garbage; with detection it is right.
  EXPECT_EQ(s.processes[0].pid, 4242u);
  EXPECT_EQ(s.processes[1].pid, 4343u);
  EXPECT_EQ(s.processes[1].name, "tritonserver");
  EXPECT_DOUBLE_EQ(*s.processes[1].used_memory_bytes, 2147483648.0);
  EXPECT_FALSE(s.mig_enabled.has_value());  // NOT_SUPPORTED leaves the field empty
  EXPECT_FALSE(*s.persistence_mode);
}

TEST(NvmlFake, OldDriverWithoutOptionalSymbolsStillReads) {
  auto gpus = ReadWith(FAKE_NVML_MINIMAL, "minimal.nvml");
  ASSERT_TRUE(gpus.ok()) << gpus.status().ToString();
  const Snapshot& s = (*gpus)[0];
  EXPECT_EQ(s.name, "Tesla T4");
  EXPECT_TRUE(s.memory_total_bytes.has_value());  // memory v1 fallback
  EXPECT_FALSE(s.memory_reserved_bytes.has_value());
  EXPECT_FALSE(s.power_draw_watts.has_value());
  EXPECT_FALSE(s.processes_known);
  EXPECT_TRUE(s.driver_version.empty());
}

TEST(NvmlFake, InitFailuresAndLostGpusBecomeReasons) {
  auto not_loaded = ReadWith(FAKE_NVML_FULL, "driver-not-loaded.nvml");
  ASSERT_FALSE(not_loaded.ok());
  EXPECT_EQ(not_loaded.status().code(), core::StatusCode::kUnavailable);
  EXPECT_NE(not_loaded.status().message().find("kernel driver is not loaded"), std::string::npos);
  auto lost = ReadWith(FAKE_NVML_FULL, "gpu-lost.nvml");
  ASSERT_FALSE(lost.ok());
  EXPECT_NE(lost.status().message().find("fallen off the bus"), std::string::npos);
}

TEST(NvmlFake, AMissingLibraryOrSymbolIsUnavailableNeverACrash) {
  auto missing = NvmlLibrary::Load("/nonexistent/libnvidia-ml.so.1");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), core::StatusCode::kUnavailable);
  auto not_nvml = NvmlLibrary::Load("libm.so.6");
  ASSERT_FALSE(not_nvml.ok());
  EXPECT_NE(not_nvml.status().message().find("nvmlInit_v2"), std::string::npos);
}

// The live topology: NV# from active links (a bridge to the peer GPU, links to a switch), the
// common ancestor for the rest, and the same findings as a saved topo -m.
TEST(NvmlFake, TopologyFromAncestorsAndLinks) {
  ::setenv("FAKE_NVML_FIXTURE", FixturePath("nvml/topology-4gpu-synthetic.nvml").c_str(), 1);
  auto nvml = NvmlLibrary::Load(FAKE_NVML_FULL);
  ASSERT_TRUE(nvml.ok()) << nvml.status().ToString();
  ASSERT_TRUE((*nvml)->Init().ok());
  auto m = ReadNvmlTopology(**nvml);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ(m->Gpus().size(), 4u);
  EXPECT_EQ(m->Link(0, 1)->code, "NV4");  // 4 active links to the peer; the inactive one not counted
  EXPECT_EQ(m->Link(2, 3)->code, "NV2");  // both reach the same non-GPU device with 2 links
  EXPECT_EQ(m->Link(0, 2)->code, "SYS");
  EXPECT_EQ(m->Link(1, 3)->code, "SYS");
  EXPECT_TRUE(m->notes.empty());
  auto findings = AssessTopology(*m);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].id, "mixed_nvlink");
}

// The minimal fake has no topology symbol: the live topology is unavailable, not guessed.
TEST(NvmlFake, TopologyNeedsTheSymbol) {
  ::setenv("FAKE_NVML_FIXTURE", FixturePath("nvml/minimal.nvml").c_str(), 1);
  auto nvml = NvmlLibrary::Load(FAKE_NVML_MINIMAL);
  ASSERT_TRUE(nvml.ok());
  ASSERT_TRUE((*nvml)->Init().ok());
  auto m = ReadNvmlTopology(**nvml);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), core::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace gpuprobe::telemetry
