// Every real capture in tests/fixtures/nvidia-smi reads without error, and its key figures
// match the file: for the sectioned captures, the -q text against the same moment's
// --query-gpu CSV (two independent formats); for the XML documents, values read off the files.
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "model/fixture.h"
#include "telemetry/capture_reader.h"
#include "telemetry/smi_csv.h"
#include "telemetry/smi_table_parser.h"
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

TEST(EccLayouts, EveryLayoutGivesTheSameTotals) {
  // Pascal-era blocks with a total, the same without one (summed), Ampere's sram/dram, and
  // the 535+ parity/SEC-DED split.
  const char* kLayouts[] = {
      "<single_bit><device_memory>3</device_memory><l1_cache>N/A</l1_cache><total>3</total></single_bit>"
      "<double_bit><device_memory>2</device_memory><total>2</total></double_bit>",
      "<single_bit><device_memory>1</device_memory><register_file>2</register_file></single_bit>"
      "<double_bit><device_memory>2</device_memory><l2_cache>N/A</l2_cache></double_bit>",
      "<sram_correctable>1</sram_correctable><sram_uncorrectable>1</sram_uncorrectable>"
      "<dram_correctable>2</dram_correctable><dram_uncorrectable>1</dram_uncorrectable>",
      "<sram_correctable>0</sram_correctable><sram_uncorrectable_parity>1</sram_uncorrectable_parity>"
      "<sram_uncorrectable_secded>0</sram_uncorrectable_secded><dram_correctable>3</dram_correctable>"
      "<dram_uncorrectable>1</dram_uncorrectable>"};
  for (const char* layout : kLayouts) {
    std::string xml = std::string("<nvidia_smi_log><gpu id=\"0\"><product_name>A</product_name><ecc_errors><aggregate>") + layout +
                      "</aggregate></ecc_errors></gpu></nvidia_smi_log>";
    auto parsed = ParseSmiXml(xml);
    ASSERT_TRUE(parsed.ok()) << layout;
    EXPECT_EQ(parsed->gpus[0].ecc_corrected_aggregate, 3.0) << layout;
    EXPECT_EQ(parsed->gpus[0].ecc_uncorrected_aggregate, 2.0) << layout;
    EXPECT_FALSE(parsed->gpus[0].ecc_uncorrected_volatile.has_value()) << layout;
  }
  auto text = ParseSmiText(
      "==============NVSMI LOG==============\nGPU 00000000:01:00.0\n    Product Name : A\n    ECC Errors\n        Volatile\n"
      "            Single Bit\n                Device Memory : 0\n                Total : 0\n            Double Bit\n"
      "                Device Memory : 0\n                Total : 0\n        Aggregate\n            Single Bit\n"
      "                Device Memory : 7\n                Total : 7\n            Double Bit\n                Device Memory : 4\n"
      "                Total : 4\n");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ((*text)[0].ecc_corrected_aggregate, 7.0);
  EXPECT_EQ((*text)[0].ecc_uncorrected_aggregate, 4.0);
  EXPECT_EQ((*text)[0].ecc_uncorrected_volatile, 0.0);
}

TEST(Captures, TheK80sOldEccSchemaIsReadNotNa) {
  auto parsed = ParseSmiXml(ReadFixture("captures_public/xml/4x-tesla-k80__driver-430.26__linux__openpai.xml"));
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->gpus[0].ecc_corrected_aggregate, 7.0);
  EXPECT_EQ(parsed->gpus[0].ecc_uncorrected_aggregate, 7.0);
  EXPECT_EQ(parsed->gpus[1].ecc_corrected_aggregate, 34.0);
  EXPECT_EQ(parsed->gpus[1].ecc_uncorrected_aggregate, 4.0);
  EXPECT_EQ(parsed->gpus[0].retired_pages_dbe, 1.0);
  EXPECT_EQ(parsed->gpus[0].ecc_uncorrected_volatile, 0.0);
}

TEST(Captures, EveryPublicCaptureReadsInItsFormat) {
  for (const char* dir : {"captures_public/xml", "captures_public/q-text", "captures_public/table", "captures_public/csv"}) {
    for (const auto& file : FilesIn(dir, std::string(dir).find("xml") != std::string::npos ? ".xml"
                                              : std::string(dir).find("csv") != std::string::npos ? ".csv" : ".txt")) {
      auto capture = ReadCapture(ReadFixture(file));
      ASSERT_TRUE(capture.ok()) << file << ": " << capture.status().ToString();
      CaptureFormat want = std::string(dir).find("xml") != std::string::npos      ? CaptureFormat::kXml
                           : std::string(dir).find("q-text") != std::string::npos ? CaptureFormat::kText
                           : std::string(dir).find("table") != std::string::npos  ? CaptureFormat::kTable
                                                                                  : CaptureFormat::kCsv;
      EXPECT_EQ(capture->format, want) << file;
    }
  }
}

TEST(Captures, TheTableReadsItsBoxesAndProcesses) {
  auto capture = ReadCapture(ReadFixture("captures_public/table/8x-geforce-gtx-1080-ti__driver-390.25__linux__nvidia-htop.txt"));
  ASSERT_TRUE(capture.ok());
  const auto& gpus = capture->sets[0].gpus;
  ASSERT_EQ(gpus.size(), 8u);
  EXPECT_EQ(gpus[1].pci_bus_id, "00000000:05:00.0");
  EXPECT_EQ(*gpus[1].temperature_celsius, 83);
  EXPECT_EQ(*gpus[7].power_draw_watts, 249);
  EXPECT_EQ(*gpus[7].power_limit_watts, 250);
  EXPECT_DOUBLE_EQ(*gpus[4].memory_used_bytes, 5964 * kMiB);
  ASSERT_EQ(gpus[3].processes.size(), 2u);
  EXPECT_EQ(gpus[3].processes[0].name, "...ware/MATLAB/matlab94/bin/glnxa64/MATLAB");
  EXPECT_EQ(gpus[4].processes.size(), 4u);
  EXPECT_EQ(gpus[0].driver_version, "390.25");
  auto windows = ReadCapture(ReadFixture("nvidia-smi/captures/windows-x86_64__nvidia-geforce-rtx-2080-super__591.86.txt"));
  ASSERT_TRUE(windows.ok());
  for (const auto& section : CaptureSections(ReadFixture("nvidia-smi/captures/windows-x86_64__nvidia-geforce-rtx-2080-super__591.86.txt"))) {
    if (section.command.rfind("nvidia-smi (default table)", 0) != 0 || section.state != "load") continue;
    auto table = ParseSmiTable(section.body);
    ASSERT_TRUE(table.ok());
    EXPECT_EQ((*table)[0].driver_model, "WDDM");  // the Windows column, not persistence
    EXPECT_FALSE((*table)[0].persistence_mode.has_value());
    ASSERT_EQ((*table)[0].processes.size(), 12u);
    EXPECT_EQ((*table)[0].processes[8].name, "...m Files\\NZXT CAM\\NZXT CAM.exe");
    EXPECT_EQ((*table)[0].processes[10].type, "C");
  }
}

}  // namespace
}  // namespace gpuprobe::telemetry
