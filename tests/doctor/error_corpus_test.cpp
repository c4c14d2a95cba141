// The real-error corpus (tests/fixtures/error_corpus: texts copied verbatim from public
// issues, each with the label a GPU expert gave it): every text is explained as a pasted
// message and the first answer must be the one its label names. Prints the recognition rate
// and every miss; fails below 95%.
//
// The corpus is split by a hash of the file name into a two-thirds part the matching rules
// were written against and a held-out third they were not; both rates are printed so a rule
// that only fits the samples it was written for shows as a gap between the two.
#include <cstdint>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "doctor/error_analysis.h"

namespace gpuprobe::doctor {
namespace {

const ErrorMatcher& Matcher() {
  auto m = ErrorMatcher::Embedded();
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return **m;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// 32-bit FNV-1a: the held-out third is the files whose name hashes to 0 modulo 3.
bool HeldOut(const std::string& file) {
  std::uint32_t h = 0x811c9dc5u;
  for (unsigned char c : file) {
    h ^= c;
    h *= 0x01000193u;
  }
  return h % 3 == 0;
}

// The answer key a label stands for. Status labels ("cudaErrorIllegalAddress",
// "cublas:CUBLAS_STATUS_ALLOC_FAILED", "nvml:NVML_ERROR_UNKNOWN") land where that status
// lands; "xid:N" / "sxid:N" where that Xid does; topics are entry ids.
std::string ExpectedKey(const std::string& label) {
  const ErrorMatcher& m = Matcher();
  size_t colon = label.find(':');
  std::string family = colon == std::string::npos ? "" : label.substr(0, colon);
  std::string rest = colon == std::string::npos ? label : label.substr(colon + 1);
  if (family == "xid" || family == "sxid") {
    XidEvent event;
    event.number = std::stoi(rest);
    event.nvswitch = family == "sxid";
    return m.ForXid(event, Evidence::kQuery).key;
  }
  if (label == "nccl:watchdog_timeout") return "nccl_watchdog_timeout";
  if (const StatusCode* s = m.statuses().FindName(rest)) return m.ForStatus(*s, Evidence::kQuery).key;
  EXPECT_NE(m.kb().Find(label), nullptr) << "label '" << label << "' names no entry";
  return label;
}

struct Tally {
  int total = 0, recognised = 0;
  double Rate() const { return total == 0 ? 0 : 100.0 * recognised / total; }
};

TEST(ErrorCorpus, AtLeast95PercentLandOnTheirLabel) {
  const std::string root = std::string(GPUPROBE_FIXTURES_DIR) + "/error_corpus/";
  auto index = nlohmann::json::parse(ReadFile(root + "index.json"), nullptr, false);
  ASSERT_FALSE(index.is_discarded());
  ASSERT_TRUE(index.contains("texts"));
  ASSERT_GE(index["texts"].size(), 150u);
  Tally all, held, seen;
  std::string misses;
  for (const auto& item : index["texts"]) {
    std::string file = item["file"].get<std::string>();
    std::string label = item["expect"].get<std::string>();
    std::string text = ReadFile(root + file);
    ASSERT_FALSE(text.empty()) << file;
    Analysis a = Analyze(Matcher(), text, AnalysisMode::kPaste);
    std::string got = !a.hits.empty() ? a.hits.front().finding.key : !a.readings.empty() ? a.readings.front().key : "(nothing)";
    bool ok = got == ExpectedKey(label);
    Tally& part = HeldOut(file) ? held : seen;
    for (Tally* t : {&all, &part}) {
      ++t->total;
      t->recognised += ok ? 1 : 0;
    }
    if (!ok) misses += "  " + file + ": expected " + ExpectedKey(label) + " (" + label + "), got " + got + "\n";
  }
  std::printf("error corpus: %d/%d recognised (%.1f%%); rules written against %d/%d (%.1f%%), held-out %d/%d (%.1f%%)\n%s",
              all.recognised, all.total, all.Rate(), seen.recognised, seen.total, seen.Rate(), held.recognised, held.total,
              held.Rate(), misses.c_str());
  EXPECT_GE(all.Rate(), 95.0) << misses;
}

// The texts the issue named as not recognised before: each must land on its own answer.
TEST(ErrorCorpus, TheTextsTheIssueNamedAreRecognised) {
  struct Case {
    const char* text;
    const char* key;
  };
  const Case cases[] = {
      {"2017-11-03 11:34:30.628747: E tensorflow/stream_executor/cuda/cuda_driver.cc:924] failed to allocate 1.97G (2120187392 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY", "cuda_out_of_memory"},
      {"jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 7406166528 bytes.", "cuda_out_of_memory"},
      {"failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_ECC_UNCORRECTABLE: uncorrectable ECC error encountered", "ecc_uncorrectable"},
      {"NVRM: GPU 0000:13:00.0: RmInitAdapter failed! (0x26:0x56:1463)", "rm_init_adapter_failed"},
      {"NVRM: No NVIDIA graphics adapter probed!", "no_adapter_probed"},
      {"[ 1843.308145] NVRM: The NVIDIA GPU 0000:3b:00.0\n               NVRM: (PCI ID: 10de:26b5) installed in this system has\n"
       "               NVRM: fallen off the bus and is not responding to commands.", "gpu_fallen_off_bus"},
      {"NVRM: Xid (PCI:0000:01:00): 32, Channel ID 00000052 intr 02000000", "xid_32"},
      {"NVRM: Xid (PCI:0000:0a:00): 45, pid='<unknown>', name=<unknown>, Ch 00000008", "xid_45"},
      {"NVRM: Xid (PCI:0000:3b:00): 109, pid=1234, name=python3, Ch 00000010", "xid_109"},
      {"NVRM: Xid (PCI:0018:01:00): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x0409a0c2 0x00000008)", "xid_145"},
      {"NVRM: Xid (PCI:0019:01:00): 149, NETIR Fatal XC0 i0 Link -1 (0x000fe406 0x00000000)", "xid_149"},
      {"UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env "
       "variable CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero.", "cuda_unknown_error_env"},
  };
  for (const auto& c : cases) {
    Analysis a = Analyze(Matcher(), c.text, AnalysisMode::kPaste);
    ASSERT_FALSE(a.hits.empty()) << c.text;
    EXPECT_EQ(a.hits.front().finding.key, c.key) << c.text;
  }
}

}  // namespace
}  // namespace gpuprobe::doctor
