// The summary, verdict and report content built from recorded documents: a tour run on a
// 2-core machine without a GPU, an nvidia-smi capture with a finding, a doctor run that failed.
#include "app/machine_summary.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "app/report_builder.h"
#include "app/report_file.h"
#include "core/file_io.h"
#include "knowledge/embedded_knowledge.h"
#include "report/html_report.h"

namespace gpuprobe::app {
namespace {

const std::string kDir = std::string(GPUPROBE_FIXTURES_DIR) + "/report/";

report::Texts English() { return *report::Texts::Load(report::Language::kEn); }

const model::GpuSpec* H200() { return *(*knowledge::Specs())->Find("h200"); }

ReportSources Tour() {
  auto src = LoadReportSources({kDir + "tour-cpu-2core.json"});
  EXPECT_TRUE(src.ok()) << src.status().message();
  return *src;
}

TEST(MachineSummaryTest, CpuMeasuredGpuFromTheSpecSheet) {
  MachineSummary s = Summarize(Tour(), H200());
  EXPECT_FALSE(s.gpu_present);
  EXPECT_FALSE(s.gpu_measured);
  ASSERT_TRUE(s.cpu_bandwidth.known());
  EXPECT_EQ(s.cpu_bandwidth.source, "measured");
  EXPECT_GT(*s.cpu_bandwidth.value, 1e9);
  EXPECT_TRUE(s.cpu_fp32.known());
  EXPECT_TRUE(s.cpu_matmul.known());
  EXPECT_TRUE(s.cpu_fixed.known());
  EXPECT_EQ(s.gpu_bandwidth.source, "spec");
  EXPECT_DOUBLE_EQ(*s.gpu_bandwidth.value, 4.8e12);
  // Matmul, fp32 against fp32 (app/matmul_comparison.h): the spec's FP32 peak, its tensor
  // cores apart.
  EXPECT_EQ(s.gpu_matmul_name_key, "summary.matmul.fp32");
  EXPECT_EQ(s.gpu_matmul.source, "spec");
  EXPECT_DOUBLE_EQ(*s.gpu_matmul.value, *H200()->fp32_vector_tflops.value * 1e12);
  EXPECT_DOUBLE_EQ(*s.gpu_tensor.value, *H200()->fp16_bf16_tensor_dense_tflops.value * 1e12);
  EXPECT_EQ(s.gpu_link.source, "model");
  EXPECT_EQ(s.gpu_fixed.source, "model");
  ASSERT_TRUE(s.triad_crossover.has_value());
  ASSERT_TRUE(s.matmul_crossover.has_value());
  EXPECT_TRUE(s.matmul_crossover->resident_size.has_value());
}

// The predicted crossover is explained by its terms at the crossover size itself: there the
// GPU's launch + copies + compute add up to the CPU's time, and the line names the same size
// as the side-by-side table.
TEST(MachineSummaryTest, PredictedCrossoverIsExplainedByItsTermsAtTheCrossover) {
  MachineSummary s = Summarize(Tour(), H200());
  // In this recorded run the matmul crosses over with copies; the vector triad never does
  // (copies over PCIe cost more than the CPU's whole job).
  ASSERT_TRUE(s.matmul_crossover && s.matmul_crossover->transfer_size);
  ASSERT_TRUE(s.matmul_at_crossover.has_value());
  const model::CrossoverPoint& at = *s.matmul_at_crossover;
  EXPECT_DOUBLE_EQ(at.size, *s.matmul_crossover->transfer_size);
  EXPECT_GT(at.gpu_launch_seconds, 0);
  EXPECT_GT(at.gpu_copy_seconds, 0);
  EXPECT_NEAR(at.gpu_launch_seconds + at.gpu_copy_seconds + at.gpu_compute_seconds, at.gpu_transfer_seconds,
              1e-9 * at.gpu_transfer_seconds + 1e-15);
  // Found to 1% by bisection: the two sides are equal there within that.
  EXPECT_NEAR(at.gpu_transfer_seconds / at.cpu_seconds, 1.0, 0.03);
  const report::Texts t = English();
  std::vector<std::string> why = CrossoverWhyLines(s, t);
  ASSERT_EQ(why.size(), 2u);
  // The size the line explains is the one the table shows "with copies".
  const std::string n = fmt::format("n={:.0f}", *s.matmul_crossover->transfer_size);
  EXPECT_NE(why[1].find(n), std::string::npos) << why[1];
  bool table_has_size = false;
  for (const auto& row : SideBySideRows(s, t)) table_has_size |= row[2].find(n + " with copies") != std::string::npos;
  EXPECT_TRUE(table_has_size);
  if (s.triad_crossover && !s.triad_crossover->transfer_size) {
    EXPECT_NE(why[0].find("why never"), std::string::npos) << why[0];
  }
}

// A synthetic GPU run (hand-made numbers, not a measurement): the GPU column must take the
// measured figures, the best transfer size, and say "measured".
TEST(MachineSummaryTest, MeasuredGpuFiguresReplaceTheSpecSheet) {
  ReportSources src = Tour();
  ASSERT_TRUE(src.bench.has_value());
  auto add = [&](const char* id, const char* c, double value, double bytes) {
    bench::BenchResult r;
    r.id = id;
    r.group = std::string(id).substr(0, std::string(id).find('.'));
    r.backend = "cuda";
    r.case_label = c;
    r.value = value;
    r.verified = true;
    r.param = bytes;
    r.work.bytes_read = bytes;
    src.bench->results.push_back(r);
  };
  add("memory.triad", "1.00 GiB per array", 4.1e12, 0);
  add("compute.fma_fp32", "all 132 SMs", 60e12, 0);
  add("transfer.h2d_pinned", "64.0 KiB", 10e9, 65536);
  add("transfer.h2d_pinned", "256 MiB", 52e9, 268435456);
  add("launch.round_trip", "200 calls", 6e-6, 0);
  add("matmul.cublas_fp32", "n=4096", 50e12, 0);
  add("matmul.cublas_bf16", "n=4096", 700e12, 0);
  src.gpu = {{"available", true}, {"devices", {{{"name", "NVIDIA H200"}, {"memory_bytes", 150e9}}}}};
  MachineSummary s = Summarize(src, H200());
  EXPECT_TRUE(s.gpu_present);
  EXPECT_TRUE(s.gpu_measured);
  EXPECT_EQ(s.gpu_bandwidth.source, "measured");
  EXPECT_DOUBLE_EQ(*s.gpu_bandwidth.value, 4.1e12);
  EXPECT_DOUBLE_EQ(*s.gpu_link.value, 52e9) << "the plateau, not the smallest copy";
  EXPECT_DOUBLE_EQ(*s.gpu_fixed.value, 6e-6);
  EXPECT_DOUBLE_EQ(*s.gpu_matmul.value, 50e12) << "fp32 against the CPU's fp32, the measured SGEMM";
  EXPECT_DOUBLE_EQ(*s.gpu_tensor.value, 700e12) << "the tensor cores, apart";
  auto verdict = Verdict(s, 0, English());
  EXPECT_NE(verdict[0].find("NVIDIA H200"), std::string::npos);
  EXPECT_NE(verdict[0].find("(measured)"), std::string::npos);
}

TEST(MachineSummaryTest, WithoutASpecTheGpuColumnStaysEmpty) {
  MachineSummary s = Summarize(Tour(), nullptr);
  EXPECT_FALSE(s.gpu_bandwidth.known());
  EXPECT_FALSE(s.triad_crossover.has_value());
  auto rows = SideBySideRows(s, English());
  EXPECT_EQ(rows[1][2], "-");
}

TEST(MachineSummaryTest, WithoutABenchTheTourIdentityNamesTheCpu) {
  ReportSources src;
  src.cpu = {{"model", "Test CPU"}, {"physical_cores", 4}, {"memory_bytes", 8e9}};
  MachineSummary s = Summarize(src, nullptr);
  EXPECT_EQ(s.cpu_name, "Test CPU");
  EXPECT_EQ(s.cpu_cores, 4);
  EXPECT_DOUBLE_EQ(s.cpu_memory_bytes, 8e9);
  EXPECT_FALSE(s.cpu_bandwidth.known());
}

// "No problem" says what it covers: without the live GPU state only doctor looked.
TEST(MachineSummaryTest, ACleanVerdictSaysWhenTheLiveStateWasNotRead) {
  ReportSources src;
  src.cpu = {{"model", "Test CPU"}, {"physical_cores", 4}, {"memory_bytes", 8e9}};
  MachineSummary s = Summarize(src, nullptr);
  EXPECT_FALSE(s.live_state_read);
  EXPECT_NE(Verdict(s, 0, English()).back().find("could not be read"), std::string::npos);
  src.inspect = {{"gpus", nlohmann::json::array()}};
  MachineSummary live = Summarize(src, nullptr);
  EXPECT_TRUE(live.live_state_read);
  EXPECT_EQ(Verdict(live, 0, English()).back(), "No problem found by doctor or in the live GPU state.");
}

TEST(MachineSummaryTest, SideBySideRowsNameTheirSource) {
  auto rows = SideBySideRows(Summarize(Tour(), H200()), English());
  ASSERT_EQ(rows.size(), 10u);  // matmul fp32 and matmul on the bf16 tensor cores are two rows
  for (const auto& row : rows) ASSERT_EQ(row.size(), 3u);
  EXPECT_NE(rows[0][2].find("H200"), std::string::npos);
  EXPECT_NE(rows[1][1].find("measured"), std::string::npos);
  EXPECT_NE(rows[1][2].find("4.80 TB/s (spec)"), std::string::npos);
}

TEST(MachineSummaryTest, VerdictIsThreeLinesAndProblemsComeFirst) {
  MachineSummary s = Summarize(Tour(), H200());
  auto clean = Verdict(s, 0, English());
  ASSERT_EQ(clean.size(), 3u);
  EXPECT_NE(clean[0].find("no usable GPU"), std::string::npos);
  EXPECT_NE(clean[2].find("Watch out"), std::string::npos);
  auto broken = Verdict(s, 2, English());
  EXPECT_NE(broken[2].find("Fix first: 2"), std::string::npos);
  auto zh = Verdict(s, 0, *report::Texts::Load(report::Language::kZh));
  EXPECT_EQ(zh.size(), 3u);
  EXPECT_NE(zh[1], clean[1]);
}

TEST(MachineSummaryTest, ProblemsKeepWarningsAndFailuresOnly) {
  auto src = LoadReportSources({kDir + "tour-cpu-2core.json", kDir + "inspect-rtx-3080.json", kDir + "doctor-container-no-gpus.json"});
  ASSERT_FALSE(src.ok()) << "the tour already has a doctor document: a second one is refused";
  EXPECT_NE(src.status().message().find("second doctor"), std::string::npos);
  src = LoadReportSources({kDir + "inspect-rtx-3080.json", kDir + "doctor-container-no-gpus.json"});
  ASSERT_TRUE(src.ok()) << src.status().message();
  auto problems = Problems(*src);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].severity, "warn");
  EXPECT_EQ(problems[1].severity, "fail");
  EXPECT_FALSE(problems[1].fix.empty());
}

class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gpuprobe-report-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + "/" + name) << text;
    return dir_ + "/" + name;
  }
  std::string dir_;
};

using LoadReportSourcesTest = TempDir;

TEST_F(LoadReportSourcesTest, RefusesWhatItCannotUse) {
  EXPECT_FALSE(LoadReportSources({dir_ + "/missing.json"}).ok());
  auto bad = LoadReportSources({Write("bad.json", "{\"schema\": ")});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("not valid JSON (line 1"), std::string::npos);
  auto other = LoadReportSources({Write("gpus.json", R"({"schema": "gpuprobe.gpus.v1"})")});
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("gpuprobe.gpus.v1"), std::string::npos);
  auto empty_bench = LoadReportSources({Write("b.json", R"({"schema": "gpuprobe.bench.v1"})")});
  EXPECT_FALSE(empty_bench.ok());
  // Wrong value types name the file and the field instead of throwing.
  auto typed = LoadReportSources({Write("t.json", R"({"schema": "gpuprobe.bench.v1", "results": [{"id": 7}]})")});
  ASSERT_FALSE(typed.ok());
  EXPECT_NE(typed.status().message().find("t.json: results[0].id must be a string"), std::string::npos)
      << typed.status().message();
  auto part = LoadReportSources({Write("p.json", R"({"schema": "gpuprobe.tour.v1", "inspect": [1]})")});
  ASSERT_FALSE(part.ok());
  EXPECT_NE(part.status().message().find("inspect part must be an object"), std::string::npos);
  std::string deep = "{\"schema\": \"gpuprobe.tour.v1\", \"cpu\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  auto nested = LoadReportSources({Write("deep.json", deep)});
  ASSERT_FALSE(nested.ok());
  EXPECT_NE(nested.status().message().find("nest more than"), std::string::npos);
  auto array = LoadReportSources({Write("a.json", "[1, 2]")});
  EXPECT_FALSE(array.ok());
}

TEST_F(LoadReportSourcesTest, ABenchWithGpuResultsNamesItsGpu) {
  auto src = LoadReportSources({Write("g.json", R"({"schema": "gpuprobe.bench.v1", "machine": {"gpus": ["GPU 0: NVIDIA H200"]},
    "results": [{"id": "memory.triad", "backend": "cuda", "metric": "bandwidth", "value": 4e12, "verified": true}]})")});
  ASSERT_TRUE(src.ok()) << src.status().message();
  EXPECT_TRUE(src->gpu.value("available", false));
  EXPECT_EQ(src->gpu["devices"][0].value("name", ""), "NVIDIA H200");
}

TEST_F(LoadReportSourcesTest, ABenchAloneHasNoGpuIdentity) {
  auto src = LoadReportSources({Write("b.json", R"({"schema": "gpuprobe.bench.v1", "results": []})")});
  ASSERT_TRUE(src.ok());
  EXPECT_FALSE(src->gpu.value("available", true));
  MachineSummary s = Summarize(*src, H200());
  EXPECT_FALSE(s.cpu_bandwidth.known());
  EXPECT_FALSE(s.triad_crossover.has_value());  // nothing measured: no curve from guesses
}

using WriteReportFileTest = TempDir;

TEST_F(WriteReportFileTest, ReplacesItsOwnReportButNeverAForeignFile) {
  report::HtmlReport r;
  r.title = "t";
  std::string html = report::RenderHtmlReport(r);
  EXPECT_TRUE(IsGpuprobeReport(html));
  std::string path = dir_ + "/r.html";
  ASSERT_TRUE(WriteReportFile(path, html, false).ok());
  ASSERT_TRUE(WriteReportFile(path, html, false).ok()) << "a gpuprobe report may be replaced";
  std::string notes = Write("notes.html", "<html>my notes</html>");
  core::Status refused = WriteReportFile(notes, html, false);
  EXPECT_FALSE(refused.ok());
  EXPECT_EQ(*core::ReadTextFile(notes, 1000), "<html>my notes</html>");
  // A page that quotes our generator tag in its body is still the user's page.
  std::string quoting = Write("quote.html", "<html><body><pre>&lt;meta name=\"generator\" content=\"gpuprobe\"&gt; "
                                            "<meta name=\"generator\" content=\"gpuprobe\"></pre></body></html>");
  EXPECT_FALSE(WriteReportFile(quoting, html, false).ok());
  EXPECT_TRUE(WriteReportFile(notes, html, true).ok()) << "--force replaces it";
  EXPECT_FALSE(WriteReportFile(dir_, html, false).ok()) << "a directory";
  EXPECT_FALSE(WriteReportFile(dir_ + "/no/such/dir/r.html", html, false).ok());
}

TEST_F(WriteReportFileTest, KeepsThePermissionsOfTheFileItReplaces) {
  report::HtmlReport r;
  std::string html = report::RenderHtmlReport(r);
  std::string path = dir_ + "/private.html";
  ASSERT_TRUE(WriteReportFile(path, html, false).ok());
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  ASSERT_TRUE(WriteReportFile(path, html, false).ok());
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u) << "a private report stays private";
}

TEST_F(WriteReportFileTest, NeverWritesThroughALinkOrIntoAPipeOrDevice) {
  report::HtmlReport r;
  std::string html = report::RenderHtmlReport(r);
  std::string target = Write("target.html", "<html>keep me</html>");
  std::string link = dir_ + "/link.html";
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  EXPECT_FALSE(WriteReportFile(link, html, true).ok()) << "not even with --force";
  EXPECT_EQ(*core::ReadTextFile(target, 1000), "<html>keep me</html>");
  std::string fifo = dir_ + "/pipe.html";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(WriteReportFile(fifo, html, true).ok());
  EXPECT_FALSE(WriteReportFile("/dev/null", html, true).ok());
}

TEST(ReportBuilderTest, SixChartsEachWithALessonAndNoScript) {
  ReportSources src = Tour();
  MachineSummary s = Summarize(src, H200());
  report::HtmlReport r = BuildHtmlReport(src, s, Verdict(s, 0, English()), {"title", "subtitle"}, English());
  ASSERT_EQ(r.charts.size(), 6u);
  for (const auto& c : r.charts) {
    EXPECT_FALSE(c.lesson.empty()) << c.heading;
    EXPECT_NE(c.svg.find("class=\"marks\""), std::string::npos) << c.heading << " has nothing drawn";
  }
  std::string html = report::RenderHtmlReport(r);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("matmul-ladder"), std::string::npos);
}

}  // namespace
}  // namespace gpuprobe::app
