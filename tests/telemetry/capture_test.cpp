// Every real capture in tests/fixtures/nvidia-smi reads without error, and its key figures
// match the file: for the sectioned captures, the -q text against the same moment's
// --query-gpu CSV (two independent formats); for the XML documents, values read off the files.
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "model/fixture.h"
#include "telemetry/capture_reader.h"
#include "telemetry/smi_csv.h"
#include "telemetry/smi_text_parser.h"
#include "telemetry/smi_xml_parser.h"

namespace gpuprobe::telemetry {
namespace {

using gpuprobe::testing::FixturePath;
using gpuprobe::testing::ReadFixture;

constexpr double kMiB = 1024.0 * 1024.0;

std::vector<std::string> FilesIn(const std::string& dir, const std::string& extension) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(FixturePath(dir))) {
    if (entry.path().extension() == extension) out.push_back(dir + "/" + entry.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

class SectionedCapture : public ::testing::TestWithParam<std::string> {};

TEST_P(SectionedCapture, TextAgreesWithTheCsvOfTheSameMoment) {
  std::string text = ReadFixture(GetParam());
  auto capture = ReadCapture(text);
  ASSERT_TRUE(capture.ok()) << capture.status().ToString();
  EXPECT_EQ(capture->format, CaptureFormat::kSectioned);
  ASSERT_GE(capture->sets.size(), 1u);
  int compared = 0;
  for (const auto& section : CaptureSections(text)) {
    if (section.command.rfind("query-gpu (csv", 0) != 0) continue;
    auto csv = ParseSmiCsv(section.body);
    ASSERT_TRUE(csv.ok()) << section.state << ": " << csv.status().ToString();
    for (const auto& set : capture->sets) {
      if (set.state != section.state) continue;
      ASSERT_EQ(set.gpus.size(), csv->size());
      for (size_t i = 0; i < csv->size(); ++i) {
        const Snapshot& a = set.gpus[i];
        const Snapshot& b = (*csv)[i];
        std::string where = GetParam() + " " + section.state;
        EXPECT_EQ(a.name, b.name) << where;
        EXPECT_EQ(a.pci_bus_id, b.pci_bus_id) << where;
        ASSERT_TRUE(a.memory_total_bytes && b.memory_total_bytes) << where;
        EXPECT_DOUBLE_EQ(*a.memory_total_bytes, *b.memory_total_bytes) << where;
        if (a.memory_used_bytes && b.memory_used_bytes) {
          EXPECT_NEAR(*a.memory_used_bytes, *b.memory_used_bytes, 64 * kMiB) << where;  // sampled moments apart
        }
        EXPECT_EQ(a.utilization_gpu_percent.has_value(), b.utilization_gpu_percent.has_value()) << where;
        EXPECT_EQ(a.pcie_generation_max, b.pcie_generation_max) << where;
        EXPECT_EQ(a.pcie_width_max, b.pcie_width_max) << where;
        if (a.power_limit_watts && b.power_limit_watts) {
          EXPECT_DOUBLE_EQ(*a.power_limit_watts, *b.power_limit_watts) << where;
        }
        EXPECT_EQ(a.driver_version, b.driver_version) << where;
        ++compared;
      }
    }
  }
  EXPECT_GE(compared, 1) << "no CSV section to compare with";
}

INSTANTIATE_TEST_SUITE_P(Captures, SectionedCapture, ::testing::ValuesIn(FilesIn("nvidia-smi/captures", ".txt")),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string name = std::filesystem::path(param_info.param).stem().string();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(Captures, H200LoadFiguresMatchTheFile) {
  auto capture = ReadCapture(ReadFixture("nvidia-smi/captures/linux-x86_64__nvidia-h200__590.48.01.txt"));
  ASSERT_TRUE(capture.ok());
  ASSERT_EQ(capture->sets.size(), 2u);
  const Snapshot& idle = capture->sets[0].gpus[0];
  const Snapshot& load = capture->sets[1].gpus[0];
  EXPECT_EQ(capture->sets[1].state, "load");
  EXPECT_EQ(load.name, "NVIDIA H200");
  EXPECT_EQ(load.driver_version, "590.48.01");
  EXPECT_EQ(load.cuda_version, "13.1");
  EXPECT_DOUBLE_EQ(*load.memory_total_bytes, 143771 * kMiB);
  EXPECT_DOUBLE_EQ(*load.memory_reserved_bytes, 614 * kMiB);
  EXPECT_DOUBLE_EQ(*load.memory_used_bytes, 32362 * kMiB);
  EXPECT_DOUBLE_EQ(*load.utilization_gpu_percent, 100);
  EXPECT_DOUBLE_EQ(*load.power_draw_watts, 627.32);
  EXPECT_DOUBLE_EQ(*load.power_limit_watts, 700);
  EXPECT_EQ(*load.pcie_generation_current, 5);
  EXPECT_EQ(*load.pcie_width_current, 16);
  EXPECT_EQ(*load.pci_device_id, 0x233510DEu);
  ASSERT_EQ(load.processes.size(), 3u);
  EXPECT_EQ(load.processes[2].pid, 10309u);
  EXPECT_EQ(load.processes[2].name, "./gpu_burn");
  EXPECT_DOUBLE_EQ(*load.processes[2].used_memory_bytes, 28234 * kMiB);
  EXPECT_EQ(*idle.clock_event_reasons, clock_event::kGpuIdle);  // idle in P0 with only the idle bit
  EXPECT_EQ(*load.clock_event_reasons, 0u);
  EXPECT_TRUE(idle.processes_known);
  EXPECT_TRUE(idle.processes.empty());
}

TEST(Captures, H100MigListsInstancesAndHidesUtilisation) {
  auto capture = ReadCapture(ReadFixture("nvidia-smi/captures/linux-x86_64__nvidia-h100-mig__590.48.01.txt"));
  ASSERT_TRUE(capture.ok());
  const Snapshot& s = capture->sets[0].gpus[0];
  EXPECT_TRUE(*s.mig_enabled);
  EXPECT_EQ(s.mig_instances.size(), 4u);
  EXPECT_EQ(*s.mig_instances[0].sm_count, 60);
  EXPECT_FALSE(s.utilization_gpu_percent.has_value());
}

TEST(Captures, R610BannerRenameIsRead) {
  auto capture = ReadCapture(ReadFixture("nvidia-smi/captures/linux-x86_64__nvidia-geforce-rtx-2080-super__610.57.04.txt"));
  ASSERT_TRUE(capture.ok());
  const Snapshot& s = capture->sets[0].gpus[0];
  EXPECT_EQ(s.driver_version, "610.57.04");
  EXPECT_EQ(s.cuda_version, "13.3");
}

struct XmlExpect {
  const char* file;
  const char* name;
  double total_mib, used_mib;
  int processes;
  int schema;
};

class XmlCapture : public ::testing::TestWithParam<XmlExpect> {};

TEST_P(XmlCapture, ReadsWithTheFilesFigures) {
  const XmlExpect& e = GetParam();
  auto parsed = ParseSmiXml(ReadFixture(std::string("nvidia-smi/xml/") + e.file));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_GE(parsed->gpus.size(), 1u);
  const Snapshot& s = parsed->gpus[0];
  EXPECT_EQ(s.name, e.name);
  ASSERT_TRUE(s.memory_total_bytes) << e.file;
  EXPECT_DOUBLE_EQ(*s.memory_total_bytes, e.total_mib * kMiB) << e.file;
  EXPECT_DOUBLE_EQ(*s.memory_used_bytes, e.used_mib * kMiB) << e.file;
  EXPECT_EQ(static_cast<int>(s.processes.size()), e.processes) << e.file;
  EXPECT_EQ(parsed->schema_version, e.schema) << e.file;
}

INSTANTIATE_TEST_SUITE_P(
    Xml, XmlCapture,
    ::testing::Values(XmlExpect{"a100-sxm4-v12.xml", "NVIDIA A100-SXM4-80GB", 81920, 50, 0, 12},
                      XmlExpect{"a10g.xml", "NVIDIA A10G", 23028, 22, 1, 11},
                      XmlExpect{"gtx-1070-ti.xml", "GeForce GTX 1070 Ti", 4096, 42, 0, 10},
                      XmlExpect{"tesla-t4.xml", "Tesla T4", 15360, 1032, 2, 11},
                      XmlExpect{"rtx-3080-v12.xml", "NVIDIA GeForce RTX 3080", 10240, 1128, 5, 12},
                      XmlExpect{"rtx-3080-v13.xml", "NVIDIA GeForce RTX 3080", 10240, 9184, 0, 13},
                      XmlExpect{"rtx-3090-v12.xml", "NVIDIA GeForce RTX 3090", 24576, 1, 0, 12}));

TEST(XmlCapture, EveryXmlFixtureReads) {
  for (const auto& file : FilesIn("nvidia-smi/xml", ".xml")) {
    auto parsed = ReadCapture(ReadFixture(file));
    EXPECT_TRUE(parsed.ok()) << file << ": " << parsed.status().ToString();
    if (parsed.ok()) {
      EXPECT_EQ(parsed->format, CaptureFormat::kXml) << file;
    }
  }
}

TEST(XmlCapture, PowerUtilisationAndPcieOfTheV13Schema) {
  auto parsed = ParseSmiXml(ReadFixture("nvidia-smi/xml/rtx-3080-v13.xml"));
  ASSERT_TRUE(parsed.ok());
  const Snapshot& s = parsed->gpus[0];
  EXPECT_DOUBLE_EQ(*s.power_draw_watts, 139.62);
  EXPECT_DOUBLE_EQ(*s.utilization_gpu_percent, 65);
  EXPECT_EQ(*s.pcie_generation_current, 4);
  EXPECT_EQ(*s.pcie_width_current, 16);
}

TEST(XmlCapture, MigDevicesAndAttachedGpuMismatchWarning) {
  auto parsed = ParseSmiXml(ReadFixture("nvidia-smi/xml/a100-sxm4-v12.xml"));
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(*parsed->gpus[0].mig_enabled);
  EXPECT_GE(parsed->gpus[0].mig_instances.size(), 1u);
  bool warned = false;
  for (const auto& w : parsed->warnings) warned |= w.find("attached_gpus") != std::string::npos;
  EXPECT_TRUE(warned);
}

}  // namespace
}  // namespace gpuprobe::telemetry
