// The same state in several formats gives the same findings. The nvidia_gpu_exporter
// captures (tests/fixtures/nvidia-smi/captures) hold, for each moment (idle, load), the
// default table, the -q text and the --query-gpu CSV of one machine; the public corpus has
// one GRID K520 as plain and --dtd XML minutes apart, and one RTX 2080 SUPER as CSV on three
// drivers, the same card as the RTX 2080 SUPER captures. For every pair of formats: a finding
// one raises, the other raises too (same severity) or says it could not judge it (the format
// lacks the field); never "all is well" by omission.
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "telemetry/corpus_support.h"
#include "telemetry/smi_csv.h"
#include "telemetry/smi_table_parser.h"
#include "telemetry/smi_text_parser.h"

namespace gpuprobe::testing {
namespace {

using telemetry::Assessment;
using telemetry::Snapshot;

struct Reading {
  std::string format;
  std::vector<Snapshot> gpus;
  Assessment assessment;
};

std::set<std::pair<int, std::string>> Raised(const Assessment& a) {
  std::set<std::pair<int, std::string>> out;
  for (const auto& f : a.findings) out.insert({f.gpu, f.id});
  return out;
}

bool Unjudged(const Assessment& a, int gpu, const std::string& id) {
  for (const auto& n : a.not_judged) {
    if (n.gpu == gpu && n.id == id) return true;
  }
  return false;
}

const telemetry::Finding* Find(const Assessment& a, int gpu, const std::string& id) {
  for (const auto& f : a.findings) {
    if (f.gpu == gpu && f.id == id) return &f;
  }
  return nullptr;
}

// Every finding of `a` is raised by `b` with the same severity, or `b` could not judge it.
void ExpectCovered(const Reading& a, const Reading& b, const std::string& where) {
  for (const auto& [gpu, id] : Raised(a.assessment)) {
    const telemetry::Finding* other = Find(b.assessment, gpu, id);
    if (other == nullptr) {
      EXPECT_TRUE(Unjudged(b.assessment, gpu, id))
          << where << ": " << a.format << " raises " << id << " on GPU " << gpu << ", " << b.format << " neither raises it nor says it could not judge it";
    } else {
      EXPECT_EQ(other->severity, Find(a.assessment, gpu, id)->severity) << where << ": " << id << " in " << a.format << " and " << b.format;
    }
  }
}

std::string TrimRight(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

void ExpectSameState(const std::vector<Reading>& readings, const std::string& where) {
  ASSERT_GE(readings.size(), 2u) << where;
  for (const auto& r : readings) ASSERT_EQ(r.gpus.size(), readings[0].gpus.size()) << where << " " << r.format;
  for (size_t g = 0; g < readings[0].gpus.size(); ++g) {
    for (const auto& r : readings) {
      EXPECT_EQ(r.gpus[g].pci_bus_id, readings[0].gpus[g].pci_bus_id) << where << " " << r.format;
      // The table cuts long names ("NVIDIA GeForce RTX 2080 ..."); the kept parts must agree.
      std::string a = TrimRight(r.gpus[g].name.substr(0, r.gpus[g].name.find("...")));
      std::string b = TrimRight(readings[0].gpus[g].name.substr(0, readings[0].gpus[g].name.find("...")));
      EXPECT_TRUE(a.rfind(b, 0) == 0 || b.rfind(a, 0) == 0) << where << " " << r.format << ": " << r.gpus[g].name << " vs " << readings[0].gpus[g].name;
      if (r.gpus[g].memory_total_bytes && readings[0].gpus[g].memory_total_bytes) {
        EXPECT_DOUBLE_EQ(*r.gpus[g].memory_total_bytes, *readings[0].gpus[g].memory_total_bytes) << where << " " << r.format;
      }
    }
  }
  for (const auto& a : readings) {
    for (const auto& b : readings) {
      if (&a != &b) ExpectCovered(a, b, where);
    }
  }
}

class SectionedCapture : public ::testing::TestWithParam<std::string> {};

TEST_P(SectionedCapture, TableTextAndCsvOfEachMomentGiveTheSameFindings) {
  std::string text = ReadFixture("nvidia-smi/captures/" + GetParam());
  std::map<std::string, std::vector<Reading>> by_state;
  for (const auto& section : telemetry::CaptureSections(text)) {
    core::Result<std::vector<Snapshot>> gpus = core::Status::NotFound("");
    std::string format;
    if (section.command.rfind("nvidia-smi (default table)", 0) == 0) {
      format = "table";
      gpus = telemetry::ParseSmiTable(section.body);
    } else if (section.command.rfind("query (-q)", 0) == 0) {
      format = "-q text";
      gpus = telemetry::ParseSmiText(section.body);
    } else if (section.command.rfind("query-gpu (csv", 0) == 0) {
      format = "csv";
      gpus = telemetry::ParseSmiCsv(section.body);
    } else {
      continue;
    }
    ASSERT_TRUE(gpus.ok()) << GetParam() << " " << section.state << " " << format << ": " << gpus.status().ToString();
    by_state[section.state].push_back({format, *gpus, telemetry::Assess(*gpus)});
  }
  ASSERT_EQ(by_state.size(), 2u) << "expected an idle and a load moment";
  for (const auto& [state, readings] : by_state) {
    EXPECT_EQ(readings.size(), 3u) << state;
    ExpectSameState(readings, GetParam() + " " + state);
  }
}

INSTANTIATE_TEST_SUITE_P(Captures, SectionedCapture, ::testing::ValuesIn([] {
                           std::vector<std::string> files;
                           for (const auto& f : CaptureFiles("nvidia-smi/captures")) {
                             if (f.size() > 4 && f.substr(f.size() - 4) == ".txt") files.push_back(f);
                           }
                           return files;
                         }()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string name = param_info.param.substr(0, param_info.param.find(".txt"));
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

Reading Read(const std::string& path, const std::string& label) {
  auto capture = telemetry::ReadCapture(ReadFixture(path));
  EXPECT_TRUE(capture.ok()) << path;
  Reading r{label, {}, {}};
  if (capture.ok()) {
    r.gpus = capture->sets.front().gpus;
    r.assessment = telemetry::Assess(r.gpus);
  }
  return r;
}

TEST(CrossFormat, GridK520PlainAndInlineDtdXmlMinutesApart) {
  Reading plain = Read("captures_public/xml/grid-k520__driver-352.99__linux__rai-nvidia-smi.xml", "xml");
  Reading dtd = Read("captures_public/xml/grid-k520__driver-352.99__linux__rai-nvidia-smi__with-dtd.xml", "xml --dtd");
  EXPECT_EQ(plain.gpus[0].uuid, dtd.gpus[0].uuid);
  EXPECT_EQ(Raised(plain.assessment), Raised(dtd.assessment));
  ExpectSameState({plain, dtd}, "GRID K520");
}

TEST(CrossFormat, TheRtx2080SuperIsTheSameCardInEveryCaptureAndIdlesTheSame) {
  // The three exporter CSVs (Linux 465.27, Windows 466.63 and 471.11) and the idle moment of
  // the Windows 591.86 capture: same bus, same device id (466.63 prints 0x1E8110DE, 471.11
  // prints 0x1E81), and all idle at P8.
  std::vector<Reading> idle = {
      Read("captures_public/csv/geforce-rtx-2080-super__driver-465.27__linux__nvidia-gpu-exporter.csv", "csv 465.27"),
      Read("captures_public/csv/geforce-rtx-2080-super__driver-466.63__windows__nvidia-gpu-exporter.csv", "csv 466.63"),
      Read("captures_public/csv/geforce-rtx-2080-super__driver-471.11__windows__nvidia-gpu-exporter.csv", "csv 471.11")};
  auto capture = telemetry::ReadCapture(ReadFixture("nvidia-smi/captures/windows-x86_64__nvidia-geforce-rtx-2080-super__591.86.txt"));
  ASSERT_TRUE(capture.ok());
  idle.push_back({"-q 591.86 idle", capture->sets[0].gpus, telemetry::Assess(capture->sets[0].gpus)});
  const model::SpecDatabase* db = knowledge::Specs().value();
  for (const auto& r : idle) {
    ASSERT_EQ(r.gpus.size(), 1u) << r.format;
    EXPECT_EQ(r.gpus[0].pci_bus_id, "00000000:0C:00.0") << r.format;
    EXPECT_EQ(r.gpus[0].name, "NVIDIA GeForce RTX 2080 SUPER") << r.format;
    EXPECT_EQ(model::MatchDevice(*db, r.gpus[0].pci_device_id, r.gpus[0].name).pci_device_id, "0x1e81") << r.format;
    EXPECT_EQ(r.gpus[0].performance_state, "P8") << r.format;
  }
  for (const auto& a : idle) {
    for (const auto& b : idle) {
      if (&a != &b) ExpectCovered(a, b, "RTX 2080 SUPER idle");
    }
  }
}

}  // namespace
}  // namespace gpuprobe::testing
