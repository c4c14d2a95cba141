// One definition of the CPU-against-GPU matmul figure: the tour and report's summary, advise
// and bench all call CompareMatmul, so for the same run and GPU they say the same numbers.
#include "app/matmul_comparison.h"

#include <gtest/gtest.h>

#include "app/machine_summary.h"
#include "app/report_sources.h"
#include "knowledge/embedded_knowledge.h"
#include "model/spec_derivation.h"

namespace gpuprobe::app {
namespace {

// A real 2-core CPU run (see tests/fixtures/bench): its best fp32 matmul is openblas_sgemm
// n=2048 at 59.89 GFLOP/s; its FMA peak measured 73.8 GFLOP/s.
const std::string kRun = std::string(GPUPROBE_FIXTURES_DIR) + "/bench/cpu-bench-2core.json";
constexpr double kSgemm2048 = 59894472749.54357;

const model::GpuSpec* Gpu(const std::string& name) { return *(*knowledge::Specs())->Find(name); }

bench::BenchResult Result(const std::string& id, const std::string& backend, const std::string& label, double value) {
  bench::BenchResult r;
  r.id = id;
  r.group = id.substr(0, id.find('.'));
  r.backend = backend;
  r.case_label = label;
  r.value = value;
  r.verified = true;
  return r;
}

TEST(MatmulComparison, SummaryAndAdviseAndBenchTakeTheSameCpuFigure) {
  auto sources = LoadReportSources({kRun});
  ASSERT_TRUE(sources.ok()) << sources.status().ToString();
  ASSERT_TRUE(sources->bench.has_value());
  const bench::BenchDocument& run = *sources->bench;
  const model::GpuSpec* h100 = Gpu("h100");

  MatmulComparison direct = CompareMatmul(&run, &run.cpu, h100);
  EXPECT_DOUBLE_EQ(*direct.cpu.flops, kSgemm2048);
  EXPECT_EQ(direct.cpu.source, "measured");
  EXPECT_EQ(direct.cpu.name, "openblas_sgemm n=2048");
  // fp32 against fp32: the GPU's FP32 peak, not its tensor cores.
  EXPECT_DOUBLE_EQ(*direct.gpu_fp32.flops, *model::PeakFlops(*h100, "fp32"));
  EXPECT_DOUBLE_EQ(*direct.gpu_tensor.flops, *model::PeakFlops(*h100, "bf16"));
  EXPECT_DOUBLE_EQ(*direct.Fp32Speedup(), *model::PeakFlops(*h100, "fp32") / kSgemm2048);

  // The tour and report: the summary holds the same comparison and shows its figures.
  MachineSummary s = Summarize(*sources, h100);
  EXPECT_DOUBLE_EQ(*s.cpu_matmul.value, kSgemm2048);
  EXPECT_DOUBLE_EQ(*s.gpu_matmul.value, *direct.gpu_fp32.flops);
  EXPECT_DOUBLE_EQ(*s.gpu_tensor.value, *direct.gpu_tensor.flops);
  // No GPU in this run: the second line compares with the spec's GPU.
  auto verdict = Verdict(s, 0, *report::Texts::Load(report::Language::kEn));
  ASSERT_GE(verdict.size(), 2u);
  EXPECT_NE(verdict[1].find(FormatSpeedup(*direct.Fp32Speedup()) + "x the fp32 matmul rate (fp32 against fp32; CPU measured)"),
            std::string::npos) << verdict[1];
  EXPECT_NE(verdict[1].find(FormatSpeedup(*direct.TensorSpeedup()) + "x the CPU's fp32 matmul (spec)"), std::string::npos) << verdict[1];

  // bench: what the run measured only (no model, no spec), the same CPU figure.
  MatmulComparison bench_view = CompareMatmul(&run, nullptr, nullptr);
  EXPECT_DOUBLE_EQ(*bench_view.cpu.flops, kSgemm2048);
  EXPECT_FALSE(bench_view.Fp32Speedup().has_value()) << "no GPU in this run: no speed-up from a spec";
}

TEST(MatmulComparison, WithoutAMeasuredMatmulTheCpuFigureIsTheModelsAndSaysSo) {
  auto sources = LoadReportSources({kRun});
  ASSERT_TRUE(sources.ok());
  bench::BenchDocument run = *sources->bench;
  std::vector<bench::BenchResult> kept;
  for (const auto& r : run.results) {
    if (r.group != "matmul") kept.push_back(r);
  }
  run.results = kept;
  MatmulComparison c = CompareMatmul(&run, &run.cpu, Gpu("h100"));
  ASSERT_TRUE(c.cpu.known());
  EXPECT_EQ(c.cpu.source, "model");
  EXPECT_DOUBLE_EQ(*c.cpu.flops, *model::CpuPeakOf(run.cpu, "fp32", run.cpu.physical_cores).flops);
}

TEST(MatmulComparison, MeasuredGpuIsFp32AgainstFp32AndTensorCoresApart) {
  bench::BenchDocument run;
  run.results = {Result("matmul.openblas_sgemm", "cpu", "n=2048", 60e9), Result("matmul.openblas_dgemm", "cpu", "n=2048", 80e9),
                 Result("matmul.cublas_fp32", "cuda", "n=8192", 50e12), Result("matmul.cublas_bf16", "cuda", "n=8192", 700e12)};
  MatmulComparison c = CompareMatmul(&run, nullptr, Gpu("h100"));
  EXPECT_DOUBLE_EQ(*c.cpu.flops, 60e9) << "fp64 is another precision: never the fp32 CPU figure";
  EXPECT_DOUBLE_EQ(*c.gpu_fp32.flops, 50e12) << "the measured fp32 GEMM, not the bf16 one";
  EXPECT_EQ(c.gpu_fp32.source, "measured");
  EXPECT_DOUBLE_EQ(*c.gpu_tensor.flops, 700e12);
  EXPECT_EQ(FormatSpeedup(*c.Fp32Speedup()), "833");
  EXPECT_EQ(FormatSpeedup(*c.TensorSpeedup()), "11667");
}

TEST(MatmulComparison, OneRoundingRule) {
  EXPECT_EQ(FormatSpeedup(1.25), "1.25");
  EXPECT_EQ(FormatSpeedup(1.2), "1.2");
  EXPECT_EQ(FormatSpeedup(244.3), "244");
  EXPECT_EQ(FormatSpeedup(22170.4), "22170");
}

TEST(MachineLoad, ABusyMachineIsNoticed) {
  auto busy = ParseLoadAverage("3.10 2.00 1.00 1/189 12345\n", 2);
  ASSERT_TRUE(busy.has_value());
  EXPECT_TRUE(busy->busy());
  EXPECT_FALSE(ParseLoadAverage("0.52 0.58 0.59 1/189 12345\n", 2)->busy());
  EXPECT_FALSE(ParseLoadAverage("2.00 0.58 0.59 1/189 12345\n", 2)->busy()) << "at the core count, not above it";
  EXPECT_FALSE(ParseLoadAverage("busy", 2).has_value());
  // Beside the CPU figures of the summary and in its verdict.
  auto sources = LoadReportSources({kRun});
  ASSERT_TRUE(sources.ok());
  MachineSummary s = Summarize(*sources, Gpu("h100"), busy);
  auto t = *report::Texts::Load(report::Language::kEn);
  auto rows = SideBySideRows(s, t);
  bool noted = false;
  for (const auto& row : rows) noted |= row[1].find("busy: load 3.1 on 2 CPUs") != std::string::npos;
  EXPECT_TRUE(noted);
  auto verdict = Verdict(s, 0, t);
  ASSERT_GE(verdict.size(), 2u);
  EXPECT_NE(verdict[1].find("The CPU was busy while it was measured (load average 3.1 on 2 logical CPUs)"), std::string::npos) << verdict[1];
}

}  // namespace
}  // namespace gpuprobe::app
