// Chinese is a product language: the texts behind the tour, bench and the common errors exist
// in every language and read in Chinese without English left in them.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "app/gpu_absence.h"
#include "bench/cpu/cpu_context.h"
#include "bench/registry.h"
#include "cli/zh_leak_checker.h"
#include "core/file_io.h"
#include "core/json_input.h"
#include "core/units.h"
#include "knowledge/embedded_knowledge.h"
#include "model/spec_database.h"
#include "report/case_label.h"
#include "report/count_text.h"
#include "report/status_text.h"

namespace gpuprobe::cli {
namespace {

const report::Texts& Zh() {
  static const report::Texts texts = *report::Texts::Load(report::Language::kZh);
  return texts;
}
const report::Texts& En() {
  static const report::Texts texts = *report::Texts::Load(report::Language::kEn);
  return texts;
}
const std::set<std::string>& Allowlist() {
  static const std::set<std::string> words = testing::ReadAllowlist(GPUPROBE_TESTS_DIR "/cli/zh_allowlist.txt");
  return words;
}

void ExpectChinese(const std::string& text, const std::string& what) {
  auto leaks = testing::FindLeaks(text, Allowlist());
  EXPECT_TRUE(leaks.empty()) << what << ":\n" << text << "\n" << testing::DescribeLeaks(leaks);
}

TEST(ZhTextsTest, EveryBenchmarkHasItsTitleClaimAndDescription) {
  bench::BenchmarkRegistry registry;
  bench::RegisterAllBenchmarks(&registry);
  ASSERT_FALSE(registry.all().empty());
  for (const report::Texts* texts : {&En(), &Zh()}) {
    for (const auto& b : registry.all()) {
      for (const char* part : {"title", "claim", "description"}) {
        std::string key = std::string("bench.") + part + "." + b->Info().id;
        EXPECT_TRUE(texts->Has(key)) << report::LanguageCode(texts->language()) << " lacks " << key;
      }
    }
  }
  for (const auto& b : registry.all()) {
    ExpectChinese(Zh().Get("bench.title." + b->Info().id) + "\n" + Zh().Get("bench.claim." + b->Info().id) + "\n" +
                      Zh().Get("bench.description." + b->Info().id),
                  b->Info().id);
  }
}

TEST(ZhTextsTest, EveryCaseLabelOfTheCpuBenchmarksReadsInChinese) {
  bench::BenchmarkRegistry registry;
  bench::RegisterAllBenchmarks(&registry);
  auto context = bench::OpenCpuContext(2);
  int labels = 0;
  for (const auto& b : registry.all()) {
    for (bool full : {false, true}) {
      for (const auto& c : b->Cases(*context, context->spec(), full, 0)) {
        ExpectChinese(report::CaseLabelText(c.label, Zh()), b->Info().id + " case '" + c.label + "'");
        EXPECT_EQ(report::CaseLabelText(c.label, En()), c.label);
        ++labels;
      }
    }
  }
  EXPECT_GT(labels, 20);
}

TEST(ZhTextsTest, TheGpuCaseLabelFormsReadInChinese) {
  // One label of each form the CUDA benchmarks build (src/bench/cuda/*.cu: access, compute,
  // crossover, divergence, intops, latency, launch, matmul, burn, memory, overlap, transfer).
  for (const char* label : {"stride 4", "misaligned", "all 132 SMs", "4M elements, resident", "64K elements, with copies",
                            "n=1024, with copies", "8 paths", "1 path", "int64 multiply-add", "int32 divide", "fp32 FMA",
                            "16.0 KiB (L1)", "64.0 MiB (HBM)", "1000 calls", "256 kernels", "10 s, n=8192",
                            "256 MiB per array", "2 streams", "1 stream", "on the device, sync once",
                            "on the device, sync every step", "round trip to the host every step", "64 KiB", "1 thread",
                            "2 threads, OpenMP"}) {
    ExpectChinese(report::CaseLabelText(label, Zh()), label);
  }
}

TEST(ZhTextsTest, EveryReasonForNoGpuHasItsTextAndHint) {
  for (const char* id : {"not_built", "no_driver", "no_device", "driver_problem", "no_saved_gpu"}) {
    for (const report::Texts* texts : {&En(), &Zh()}) {
      EXPECT_TRUE(texts->Has(app::GpuAbsenceReasonKey(id))) << id;
      EXPECT_TRUE(texts->Has(app::GpuAbsenceHintKey(id))) << id;
    }
    ExpectChinese(report::Tr(Zh(), app::GpuAbsenceReasonKey(id), fmt::arg("detail", "")) + "\n" +
                      Zh().Get(app::GpuAbsenceHintKey(id)),
                  id);
  }
}

// The errors users meet most, made by the real functions and rendered in both languages.
std::vector<core::Status> CommonErrors(const std::string& dir) {
  std::vector<core::Status> out;
  out.push_back(core::ReadTextFile(dir + "/missing.json", 1 << 20).status());
  out.push_back(core::ReadTextFile(dir, 1 << 20).status());
  out.push_back(core::ReadTextFile("/dev/null", 1 << 20).status());
  out.push_back(core::ReadTextFile("", 1 << 20).status());
  {
    std::ofstream(dir + "/big.txt") << std::string(2048, 'x');
    out.push_back(core::ReadTextFile(dir + "/big.txt", 1024).status());
  }
  out.push_back(core::WriteFileAtomically(dir, "x"));
  out.push_back(core::WriteFileAtomically(dir + "/no/such/dir/out.html", "x"));
  if (::symlink("big.txt", (dir + "/link.html").c_str()) == 0) out.push_back(core::WriteFileAtomically(dir + "/link.html", "x"));
  out.push_back(core::WriteFileAtomically("/dev/null", "x"));
  out.push_back(core::ParseJsonInput("{\"a\": [1, 2", "config.json").status());
  out.push_back(core::ParseJsonInput(std::string(100, '[') + std::string(100, ']'), "deep.json").status());
  out.push_back(core::ParseJsonInput("{\"a\": 1e999}", "huge.json").status());
  out.push_back(core::ParseCount("seven").status());
  out.push_back(core::ParseCount("7Q").status());
  out.push_back(core::ParseCount("-7B").status());
  out.push_back(core::ParseBytes("lots").status());
  out.push_back(core::ParseBytes("80 GX").status());
  out.push_back(core::ParseBytes("-1GB").status());
  auto db = knowledge::Specs();
  if (db.ok()) {
    out.push_back((*db)->Find("h2000").status());
    out.push_back((*db)->Find("zzzz-no-such-gpu").status());
    out.push_back((*db)->Find("a100").status());
  }
  bench::BenchmarkRegistry registry;
  bench::RegisterAllBenchmarks(&registry);
  out.push_back(registry.Select({"memory.triadd"}).status());
  out.push_back(registry.Select({"qqqqqqqqq"}).status());
  return out;
}

TEST(ZhTextsTest, CommonErrorsAreTranslatedAndKeepTheirEnglishMessage) {
  char pattern[] = "/tmp/gpuprobe-zh-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  std::string dir = pattern;
  std::vector<core::Status> errors = CommonErrors(dir);
  ASSERT_GE(errors.size(), 20u);
  for (const core::Status& status : errors) {
    ASSERT_FALSE(status.ok());
    EXPECT_FALSE(status.message_key().empty()) << "untranslatable: " << status.message();
    // English from the catalogue is the message the library wrote (logs and JSON keep it).
    EXPECT_EQ(report::StatusMessage(status, En()), status.message());
    if (!status.hint().empty()) {
      EXPECT_EQ(report::StatusHint(status, En()), status.hint());
    }
    std::string zh = report::StatusMessage(status, Zh()) + "\n" + report::StatusHint(status, Zh());
    ExpectChinese(zh, status.message());
  }
  std::remove((dir + "/link.html").c_str());
  std::remove((dir + "/big.txt").c_str());
  ::rmdir(dir.c_str());
}

TEST(ZhTextsTest, AnErrnoReasonIsTranslatedInsideItsMessage) {
  core::Status status = core::StatusFromErrnoKeyed("cannot read 'x'", ENOENT, "error.file.cannot_read", {{"path", "x"}});
  EXPECT_EQ(report::StatusMessage(status, Zh()), "无法读取 'x'：文件或目录不存在");
  EXPECT_EQ(report::StatusMessage(status, En()), "cannot read 'x': No such file or directory");
  core::Status odd = core::StatusFromErrnoKeyed("writing 'y'", ENOTSUP, "error.write.failed", {{"path", "y"}});
  EXPECT_EQ(report::StatusMessage(odd, Zh()), "无法写入 'y'：系统错误 " + std::to_string(ENOTSUP));
}

TEST(ZhTextsTest, ContextsStayInFrontOfATranslatedMessage) {
  core::Status status = core::ParseCount("seven").status().WithContext("--params");
  EXPECT_EQ(status.message(), "--params: 'seven' is not a number (examples: 7B, 350M, 1.5T)");
  EXPECT_EQ(report::StatusMessage(status, Zh()), "--params：'seven' 不是数字（例如 7B、350M、1.5T）");
}

TEST(ZhTextsTest, CountsReadAsChineseMagnitudes) {
  EXPECT_EQ(report::FormatCountZh(7e9), "70 亿");
  EXPECT_EQ(report::FormatCountZh(6.738e9), "67.4 亿");
  EXPECT_EQ(report::FormatCountZh(1.2e12), "1.2 万亿");
  EXPECT_EQ(report::FormatCountZh(3.5e8), "3.5 亿");
  EXPECT_EQ(report::FormatCountZh(12500), "1.25 万");
  EXPECT_EQ(report::FormatCountZh(405e9), "4050 亿");
  EXPECT_EQ(report::FormatCountZh(8192), "8192");
  EXPECT_EQ(report::FormatCountShort(7e9), "7B");
  EXPECT_EQ(report::FormatCountShort(1.5e12), "1.5T");
  EXPECT_EQ(report::FormatCountShort(350e6), "350M");
  EXPECT_EQ(report::FormatCountWithShort(report::Language::kZh, 7e9), "70 亿（7B）");
  EXPECT_EQ(report::FormatCountWithShort(report::Language::kEn, 7e9), "7B");
  EXPECT_EQ(report::FormatCountFor(report::Language::kEn, 7e9), core::FormatCount(7e9));
  EXPECT_EQ(report::FormatSecondsFor(report::Language::kZh, 3 * 86400), "3.00 天");
  EXPECT_EQ(report::FormatSecondsFor(report::Language::kEn, 3 * 86400), "3.00 days");
}

}  // namespace
}  // namespace gpuprobe::cli
