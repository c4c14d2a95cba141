// The inspect view: process paths elided in the middle, links the capture does not report
// left out (never "Gen0 x0"), and the spec entry matched by PCI device id, then by name.
#include "cli/inspect_view.h"

#include <gtest/gtest.h>

#include "knowledge/embedded_knowledge.h"
#include "report/finding_view.h"
#include "report/table.h"

namespace gpuprobe::cli {
namespace {

using report::FindingEvidence;

const report::Texts& English() {
  static const report::Texts texts = report::Texts::Load(report::Language::kEn).value();
  return texts;
}

TEST(InspectView, ElidesLongPathsInTheMiddleKeepingTheFileName) {
  std::string path = "C:\\Program Files\\NVIDIA Corporation\\NVIDIA GeForce Experience\\NVIDIA Share.exe";
  std::string cut = ElideMiddle(path, 40);
  EXPECT_EQ(report::DisplayWidth(cut), 40);
  EXPECT_EQ(cut.rfind("C:\\Program", 0), 0u);
  EXPECT_NE(cut.find("..."), std::string::npos);
  EXPECT_EQ(cut.substr(cut.size() - 16), "NVIDIA Share.exe");
  EXPECT_EQ(ElideMiddle("python3", 40), "python3");
  std::string wide = ElideMiddle("/opt/模型服务/很长很长很长很长很长很长的目录/server", 24);
  EXPECT_LE(report::DisplayWidth(wide), 24);  // never cuts a character in two
}

TEST(InspectView, TheProcessTableFitsTheTerminal) {
  telemetry::Snapshot s;
  s.processes_known = true;
  s.processes.push_back({4680, "C+G", std::string(300, 'x') + "\\Share.exe", std::nullopt, std::nullopt, std::nullopt});
  std::string out = RenderGpu(s, model::DeviceMatch{}, English(), 80);
  size_t at = out.find("4680");
  ASSERT_NE(at, std::string::npos);
  std::string line = out.substr(out.rfind('\n', at) + 1, out.find('\n', at) - out.rfind('\n', at) - 1);
  EXPECT_LE(report::DisplayWidth(line), 80) << line;
  EXPECT_NE(line.find("Share.exe"), std::string::npos);
}

TEST(InspectView, AnUnreportedLinkIsNotShownAsGen0) {
  telemetry::Snapshot s;
  s.temperature_celsius = 44;
  std::string out = RenderGpu(s, model::DeviceMatch{}, English(), 100);
  EXPECT_EQ(out.find("Gen0"), std::string::npos);
  EXPECT_EQ(out.find("x0"), std::string::npos);
  s.pcie_generation_max = 3;  // only the maximum is known
  out = RenderGpu(s, model::DeviceMatch{}, English(), 100);
  EXPECT_NE(out.find("n/a of Gen3"), std::string::npos) << out;
}

TEST(InspectView, SpecEntryByPciDeviceIdThenByName) {
  const model::SpecDatabase* db = knowledge::Specs().value();
  telemetry::Snapshot s;
  s.name = "NVIDIA H100 80GB HBM3";
  s.pci_device_id = 0x233010DE;
  model::DeviceMatch m = model::MatchDevice(*db, s.pci_device_id, s.name);
  ASSERT_NE(m.spec, nullptr);
  EXPECT_EQ(m.spec->name, "H100 SXM5 80GB");
  EXPECT_EQ(m.by, "pci_device_id");
  EXPECT_EQ(m.pci_device_id, "0x2330");
  s.pci_device_id = 0x2330;  // some drivers print the device id alone
  EXPECT_EQ(model::MatchDevice(*db, s.pci_device_id, s.name).by, "pci_device_id");
  s.pci_device_id.reset();
  s.name = "NVIDIA GB200";  // no PCI id in the database: by name, without "NVIDIA "
  m = model::MatchDevice(*db, s.pci_device_id, s.name);
  ASSERT_NE(m.spec, nullptr);
  EXPECT_EQ(m.by, "name");
  s.name = "NVIDIA GeForce RTX 3060 Laptop GPU";  // a different chip from the desktop 3060
  EXPECT_EQ(model::MatchDevice(*db, s.pci_device_id, s.name).spec, nullptr);
  s.name = "NVIDIA GeForce RTX 3090 ...";  // cut by the table
  EXPECT_EQ(model::MatchDevice(*db, s.pci_device_id, s.name).spec, nullptr);
  std::string out = RenderGpu(s, model::MatchDevice(*db, s.pci_device_id, s.name), English(), 100);
  EXPECT_NE(out.find("none in gpuprobe's spec database"), std::string::npos);
}

TEST(InspectFindings, EvidenceIsFormattedInBothLanguages) {
  telemetry::Finding f;
  f.id = "pcie_link_narrow";
  f.args = {{"width", "1"}, {"max_width", "16"}, {"gen", "3"}, {"bandwidth", "1.0 GB/s"}, {"max_bandwidth", "15.8 GB/s"}, {"fraction", "1/16"}};
  f.notes = {"pcie_x1"};
  std::string en = FindingEvidence(f, English());
  EXPECT_NE(en.find("The link runs x1; the GPU supports x16"), std::string::npos) << en;
  EXPECT_NE(en.find("riser"), std::string::npos);
  const report::Texts zh = report::Texts::Load(report::Language::kZh).value();
  EXPECT_NE(FindingEvidence(f, zh).find("链路只用了 x1"), std::string::npos);
  f.args.clear();  // a value missing from the finding shows the text as written, never throws
  EXPECT_FALSE(FindingEvidence(f, English()).empty());
}

const report::Texts& Chinese() {
  static const report::Texts texts = report::Texts::Load(report::Language::kZh).value();
  return texts;
}

TEST(InspectView, KnownCaptureValuesAreOurWordsAndUnknownOnesAreQuotedData) {
  // The values nvidia-smi and NVML write for the compute mode and the virtualization mode.
  EXPECT_EQ(CaptureValueText("compute_mode", "Default", English()), "Default");
  EXPECT_EQ(CaptureValueText("compute_mode", "Default", Chinese()), Chinese().Get("inspect.compute_mode.default"));
  EXPECT_EQ(CaptureValueText("compute_mode", "Exclusive_Process", Chinese()), Chinese().Get("inspect.compute_mode.exclusive_process"));
  EXPECT_EQ(CaptureValueText("virtualization", "Pass-Through", Chinese()), Chinese().Get("inspect.virtualization.pass_through"));
  EXPECT_EQ(CaptureValueText("virtualization", "Host VGPU", Chinese()), Chinese().Get("inspect.virtualization.host_vgpu"));
  // A value no catalogue knows stays as written: quoted in Chinese, bare in English.
  EXPECT_EQ(CaptureValueText("compute_mode", "Shared Future Mode", Chinese()), "\"Shared Future Mode\"");
  EXPECT_EQ(CaptureValueText("compute_mode", "Shared Future Mode", English()), "Shared Future Mode");
}

TEST(InspectView, TheChineseViewHasNoEnglishOfOurOwn) {
  telemetry::Snapshot s;
  s.name = "NVIDIA GeForce RTX 2080 SUPER";
  s.driver_version = "591.86";
  s.cuda_version = "13.1";
  s.utilization_gpu_percent = 3;
  s.utilization_memory_percent = 1;
  s.utilization_encoder_percent = 0;
  s.utilization_decoder_percent = 0;
  s.sm_clock_mhz = 300;
  s.clock_event_reasons = telemetry::clock_event::kGpuIdle | telemetry::clock_event::kHwPowerBrake;
  s.ecc_enabled = true;
  s.persistence_mode = false;
  s.driver_model = "WDDM";
  s.compute_mode = "Default";
  s.mig_enabled = false;
  std::string zh = RenderGpu(s, model::DeviceMatch{}, Chinese(), 120);
  for (const char* english : {" max", "memory ", "enc ", "dec ", "idle", "brake", "persistence", "compute ", "MIG off", " on,"}) {
    EXPECT_EQ(zh.find(english), std::string::npos) << english << " in:\n" << zh;
  }
  EXPECT_NE(zh.find("\"NVIDIA GeForce RTX 2080 SUPER\""), std::string::npos) << zh;  // the capture's name, as data
  std::string en = RenderGpu(s, model::DeviceMatch{}, English(), 120);
  EXPECT_NE(en.find("CUDA 13.1 max"), std::string::npos) << en;
  EXPECT_NE(en.find("idle, HW power brake"), std::string::npos) << en;
  EXPECT_NE(en.find("persistence off, driver model WDDM, MIG off, compute Default"), std::string::npos) << en;
}

}  // namespace
}  // namespace gpuprobe::cli
