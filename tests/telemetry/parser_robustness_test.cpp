// Regression tests for hostile or broken captures: each once crashed, hung, threw or
// accepted nonsense. Every parser must answer with a result or a Status that names the
// field, never an exception, a stack overflow or undefined behaviour.
#include <string>

#include <gtest/gtest.h>

#include "telemetry/capture_reader.h"
#include "telemetry/findings.h"
#include "telemetry/smi_csv.h"
#include "telemetry/smi_table_parser.h"
#include "telemetry/smi_text_parser.h"
#include "telemetry/smi_values.h"
#include "telemetry/smi_xml_parser.h"
#include "telemetry/snapshot_json.h"

namespace gpuprobe::telemetry {
namespace {

bool AnyWarning(const std::vector<std::string>& warnings, const std::string& needle) {
  for (const auto& w : warnings) {
    if (w.find(needle) != std::string::npos) return true;
  }
  return false;
}

TEST(ParserRobustness, DeeplyNestedXmlIsRefusedWithoutRecursion) {
  // 200,000 closed levels inside a GPU's ECC block once overflowed the stack of a recursive
  // sum over the ECC children.
  std::string xml = "<nvidia_smi_log><gpu id=\"0\"><product_name>A</product_name><ecc_errors><volatile>";
  for (int i = 0; i < 200000; ++i) xml += "<a>";
  for (int i = 0; i < 200000; ++i) xml += "</a>";
  xml += "</volatile></ecc_errors></gpu></nvidia_smi_log>";
  auto parsed = ParseSmiXml(xml);
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("nested more than"), std::string::npos) << parsed.status().message();
}

TEST(ParserRobustness, ManyGpuElementsWithoutAHeaderReadInLinearTime) {
  // 20,000 <gpu> elements and no timestamp/driver_version: each GPU once searched the root's
  // children for the header (quadratic). No timing is asserted; it must simply finish.
  std::string xml = "<nvidia_smi_log>";
  for (int i = 0; i < 20000; ++i) xml += "<gpu id=\"" + std::to_string(i) + "\"><product_name>G</product_name></gpu>";
  xml += "</nvidia_smi_log>";
  auto parsed = ParseSmiXml(xml);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->gpus.size(), 20000u);
  EXPECT_EQ(parsed->gpus[19999].pci_bus_id, "19999");
  EXPECT_EQ(Assess(parsed->gpus).findings.size(), 0u);
}

TEST(ParserRobustness, AnAbsurdSchemaNumberIsAWarningNotAnException) {
  auto parsed = ParseSmiXml(R"(<?xml version="1.0"?><!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v99999999999999.dtd">
<nvidia_smi_log><gpu id="0"><product_name>A</product_name></gpu></nvidia_smi_log>)");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_TRUE(AnyWarning(parsed->warnings, "unreadable number")) << parsed->warnings.front();
  ASSERT_EQ(parsed->warning_texts.size(), parsed->warnings.size());
  EXPECT_EQ(parsed->warning_texts.front().key, "inspect.warning.schema_unreadable");
}

TEST(ParserRobustness, InvalidUtf8IsReplacedAndNamed) {
  std::string xml = "<nvidia_smi_log><gpu id=\"0\"><product_name>NVIDIA \xff\xfe GPU</product_name></gpu></nvidia_smi_log>";
  auto parsed = ParseSmiXml(xml);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->gpus[0].name, "NVIDIA \xEF\xBF\xBD\xEF\xBF\xBD GPU");
  EXPECT_TRUE(AnyWarning(parsed->warnings, "name of GPU 0: invalid UTF-8"));
  // The JSON of that snapshot dumps without throwing (nlohmann's type_error.316 before).
  EXPECT_NO_THROW((void)SnapshotToJson(parsed->gpus[0]).dump());

  auto csv = ReadCapture("name, memory.used [MiB]\nA\xc3\x28, 5 MiB\n");
  ASSERT_TRUE(csv.ok());
  EXPECT_TRUE(AnyWarning(csv->warnings, "name of CSV line 2: invalid UTF-8"));
}

TEST(ParserRobustness, ImpossibleValuesAreRejectedAndNamed) {
  auto parsed = ParseSmiXml(R"(<nvidia_smi_log><gpu id="0"><product_name>A</product_name>
<fb_memory_usage><total>-5 MiB</total><used>1e30 MiB</used></fb_memory_usage>
<clocks><sm_clock>1e30 MHz</sm_clock></clocks><utilization><gpu_util>250 %</gpu_util></utilization>
<pci><pci_gpu_link_info><pcie_gen><current_link_gen>1e30</current_link_gen></pcie_gen>
<link_widths><current_link_width>-16x</current_link_width></link_widths></pci_gpu_link_info></pci>
<processes><process_info><pid>1e30</pid><type>C</type><used_memory>-1 MiB</used_memory></process_info></processes>
</gpu></nvidia_smi_log>)");
  ASSERT_TRUE(parsed.ok());
  const Snapshot& s = parsed->gpus[0];
  EXPECT_FALSE(s.memory_total_bytes.has_value());
  EXPECT_FALSE(s.memory_used_bytes.has_value());
  EXPECT_FALSE(s.sm_clock_mhz.has_value());
  EXPECT_FALSE(s.utilization_gpu_percent.has_value());
  EXPECT_FALSE(s.pcie_generation_current.has_value());
  EXPECT_FALSE(s.pcie_width_current.has_value());
  ASSERT_EQ(s.processes.size(), 1u);
  EXPECT_EQ(s.processes[0].pid, 0u);
  EXPECT_FALSE(s.processes[0].used_memory_bytes.has_value());
  for (const char* field : {"memory.total", "memory.used", "clocks.current.sm", "utilization.gpu", "pcie.link.gen.current",
                            "pcie.link.width.current", "process pid", "process used_memory"}) {
    EXPECT_TRUE(AnyWarning(parsed->warnings, std::string(field) + " of GPU 0: '")) << field;
  }
}

TEST(ParserRobustness, ImpossibleValuesInTextTableAndCsv) {
  smi::Diagnostics notes;
  auto text = ParseSmiText("==============NVSMI LOG==============\nGPU 00000000:01:00.0\n    Product Name : A\n"
                           "    FB Memory Usage\n        Total : -1 MiB\n    Clocks\n        SM : 1e30 MHz\n",
                           &notes);
  ASSERT_TRUE(text.ok());
  EXPECT_FALSE((*text)[0].memory_total_bytes.has_value());
  EXPECT_FALSE((*text)[0].sm_clock_mhz.has_value());
  EXPECT_EQ(notes.Messages().size(), 2u);
  // Each note has its text key for the reader's language, one per message, in order.
  ASSERT_EQ(notes.Texts().size(), 2u);
  EXPECT_EQ(notes.Texts()[0].key, "inspect.warning.value_ignored_at");
  auto csv = ParseSmiCsv("index, name, clocks.current.sm [MHz], pcie.link.width.current\n1e30, A, 1e30 MHz, 1e30\n", &notes);
  ASSERT_TRUE(csv.ok());
  EXPECT_FALSE((*csv)[0].sm_clock_mhz.has_value());
  EXPECT_FALSE((*csv)[0].pcie_width_current.has_value());
  EXPECT_EQ((*csv)[0].index, 0);  // an impossible index is replaced by the row's position
}

TEST(ParserRobustness, GpuprobeJsonRejectsImpossibleValuesNamingTheField) {
  for (const char* body : {R"({"memory_used_bytes": -5})", R"({"sm_clock_mhz": 1e30})", R"({"pcie_width_current": 1e30})",
                           R"({"index": 2.5})", R"({"processes": [{"pid": 1e30}]})", R"({"pci_device_id": "0x1FFFFFFFFF"})"}) {
    auto parsed = ParseSnapshotJson(std::string(R"({"schema": "gpuprobe.inspect.v1", "gpus": [)") + body + "]}");
    ASSERT_FALSE(parsed.ok()) << body;
    EXPECT_NE(parsed.status().message().find("gpus[0]."), std::string::npos) << parsed.status().message();
  }
  std::string deep(100000, '[');
  auto parsed = ParseSnapshotJson(R"({"schema": "gpuprobe.inspect.v1", "gpus": )" + deep);
  ASSERT_FALSE(parsed.ok());
}

TEST(ParserRobustness, DeepIndentationInQTextIsRefused) {
  std::string text = "==============NVSMI LOG==============\nGPU 00000000:01:00.0\n";
  for (int i = 0; i < 3000; ++i) text += std::string(static_cast<size_t>(i) + 4, ' ') + "Key : value\n";
  auto parsed = ParseSmiText(text);
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("indented more than"), std::string::npos);
}

TEST(ParserRobustness, FilteredQTextIsReadForWhatItHas) {
  auto parsed = ParseSmiText("==============NVSMI LOG==============\nAttached GPUs : 1\nGPU 00000000:02:00.0\n"
                             "    FB Memory Usage\n        Total : 12189 MiB\n        Used : 0 MiB\n");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_TRUE((*parsed)[0].name.empty());
  EXPECT_DOUBLE_EQ(*(*parsed)[0].memory_total_bytes, 12189.0 * 1024 * 1024);
  EXPECT_FALSE(ParseSmiText("==============NVSMI LOG==============\nGPU 00000000:02:00.0\n").ok());
}

TEST(ParserRobustness, ValuesConvertWithoutUndefinedBehaviour) {
  EXPECT_FALSE(smi::ToInt(1e30).has_value());
  EXPECT_FALSE(smi::ToInt(-1e30).has_value());
  EXPECT_FALSE(smi::ToUint32(-1).has_value());
  EXPECT_FALSE(smi::ToUint32(std::nullopt).has_value());
  EXPECT_EQ(smi::ToUint32(4294967295.0), 4294967295u);
  EXPECT_FALSE(smi::Integer("99999999999999x").has_value());
  EXPECT_FALSE(smi::Hex("0x1FFFFFFFFFFFFFFFFF").has_value());
  EXPECT_FALSE(smi::Number("inf").has_value());
  EXPECT_FALSE(smi::Number("nan").has_value());
}

TEST(ParserRobustness, Utf8RepairKeepsValidTextAndReplacesTheRest) {
  bool replaced = true;
  EXPECT_EQ(smi::ValidUtf8("显存 H200", &replaced), "显存 H200");
  EXPECT_FALSE(replaced);
  EXPECT_EQ(smi::ValidUtf8("\xc0\xaf", &replaced), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
  EXPECT_TRUE(replaced);
  EXPECT_EQ(smi::ValidUtf8("\xed\xa0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(smi::ValidUtf8("a\xe4\xb8"), "a\xEF\xBF\xBD\xEF\xBF\xBD");              // cut short
}

TEST(ParserRobustness, TableWithoutGpuBoxesIsAnError) {
  auto parsed = ParseSmiTable("+---+\n| NVIDIA-SMI 550.90.07   Driver Version: 550.90.07 |\n+---+\n");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("no GPU box"), std::string::npos);
}

}  // namespace
}  // namespace gpuprobe::telemetry
