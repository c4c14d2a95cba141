// Hostile inputs for every parser: random bytes, truncations, mutations, deep nesting, entity
// declarations, a CSV with missing columns. Each must give a Status or a result, never a crash
// or a hang. Bounded (fixed seeds and counts) so it runs in CI on every push.
#include <random>

#include <gtest/gtest.h>

#include "model/fixture.h"
#include "telemetry/capture_reader.h"
#include "telemetry/findings.h"
#include "telemetry/smi_csv.h"
#include "telemetry/smi_text_parser.h"
#include "telemetry/smi_xml_parser.h"
#include "telemetry/snapshot_json.h"

namespace gpuprobe::telemetry {
namespace {

using gpuprobe::testing::ReadFixture;

void Feed(const std::string& text) {
  auto result = ReadCapture(text);
  if (result.ok()) {
    for (const auto& set : result->sets) EvaluateFindings(set.gpus);
  } else {
    EXPECT_FALSE(result.status().message().empty());
  }
}

std::string Mutate(std::string text, std::mt19937& rng) {
  int edits = 1 + static_cast<int>(rng() % 8);
  for (int e = 0; e < edits && !text.empty(); ++e) {
    size_t at = rng() % text.size();
    switch (rng() % 3) {
      case 0: text[at] = static_cast<char>(rng() & 0xFF); break;
      case 1: text.erase(at, 1 + rng() % 32); break;
      default: text.insert(at, 1, "<>:,[]\n "[rng() % 8]); break;
    }
  }
  return text;
}

const char* kSeeds[] = {"nvidia-smi/xml/tesla-t4.xml", "nvidia-smi/xml/rtx-3080-v13.xml", "nvidia-smi/xml/a100-sxm4-v12.xml"};

TEST(ParserFuzz, RandomBytesAreRejectedCleanly) {
  std::mt19937 rng(1);
  for (int round = 0; round < 300; ++round) {
    std::string bytes(1 + rng() % 4096, '\0');
    for (auto& c : bytes) c = static_cast<char>(rng() & 0xFF);
    Feed(bytes);
    Feed("<" + bytes);  // looks like XML
    Feed("==============NVSMI LOG==============\n" + bytes);  // looks like -q text
    Feed("name, memory.used [MiB]\n" + bytes);  // looks like CSV
    Feed("{" + bytes);
  }
}

TEST(ParserFuzz, MutatedRealCapturesNeverCrash) {
  std::mt19937 rng(2);
  std::vector<std::string> seeds;
  for (const char* s : kSeeds) seeds.push_back(ReadFixture(s));
  std::string capture = ReadFixture("nvidia-smi/captures/linux-x86_64__nvidia-h200__590.48.01.txt");
  seeds.push_back(capture.substr(capture.find("# load :: query (-q)")));
  seeds.push_back("index, name, memory.used [MiB], utilization.gpu [%]\n0, NVIDIA H200, 100 MiB, 5 %\n");
  for (const auto& seed : seeds) {
    for (int round = 0; round < 150; ++round) Feed(Mutate(seed, rng));
    for (size_t cut = 0; cut < seed.size(); cut += std::max<size_t>(1, seed.size() / 97)) Feed(seed.substr(0, cut));
  }
}

TEST(ParserFuzz, DeeplyNestedXmlIsRejectedOrRead) {
  std::string xml = "<nvidia_smi_log><gpu id=\"x\"><product_name>A</product_name>";
  for (int i = 0; i < 100000; ++i) xml += "<a>";
  Feed(xml);
  std::string text = "==============NVSMI LOG==============\nGPU 0000:00:00.0\n";
  for (int i = 0; i < 5000; ++i) text += std::string(static_cast<size_t>(i % 200) + 4, ' ') + "Key : value\n";
  Feed(text);
}

TEST(ParserFuzz, EntityDeclarationsAreRefused) {
  auto parsed = ParseSmiXml(R"(<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]>
<nvidia_smi_log><gpu id="0"><product_name>&b;</product_name></gpu></nvidia_smi_log>)");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("entities"), std::string::npos);
}

TEST(ParserFuzz, CsvWithMissingColumnsNamesTheLine) {
  auto parsed = ParseSmiCsv("name, memory.used [MiB], utilization.gpu [%]\nNVIDIA H200, 100 MiB\n");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("line 2"), std::string::npos);
  EXPECT_FALSE(ParseSmiCsv("").ok());
  EXPECT_FALSE(ParseSmiCsv("foo, bar\n1, 2\n").ok());
}

TEST(ParserFuzz, UnrecognisedFormatSaysWhatIsAccepted) {
  auto result = ReadCapture("hello world\n");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("unrecognised"), std::string::npos);
  EXPECT_NE(result.status().hint().find("XML"), std::string::npos);
}

TEST(SnapshotJson, RoundTripsThroughItsOwnFormat) {
  auto capture = ReadCapture(ReadFixture("nvidia-smi/captures/linux-x86_64__nvidia-h200__590.48.01.txt"));
  ASSERT_TRUE(capture.ok());
  const Snapshot& original = capture->sets[1].gpus[0];
  nlohmann::json doc = {{"schema", "gpuprobe.inspect.v1"}, {"gpus", {SnapshotToJson(original)}}};
  auto back = ParseSnapshotJson(doc.dump());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  const Snapshot& copy = (*back)[0];
  EXPECT_EQ(copy.name, original.name);
  EXPECT_EQ(copy.memory_used_bytes, original.memory_used_bytes);
  EXPECT_EQ(copy.clock_event_reasons, original.clock_event_reasons);
  EXPECT_EQ(copy.pci_device_id, original.pci_device_id);
  ASSERT_EQ(copy.processes.size(), original.processes.size());
  EXPECT_EQ(copy.processes[2].name, "./gpu_burn");
  EXPECT_FALSE(ParseSnapshotJson(R"({"schema": "gpuprobe.inspect.v1", "gpus": [{"memory_used_bytes": "lots"}]})").ok());
}

}  // namespace
}  // namespace gpuprobe::telemetry
