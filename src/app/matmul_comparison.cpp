#include "app/matmul_comparison.h"

#include <cmath>
#include <cstdlib>
#include <string>

#include "core/file_io.h"
#include "core/units.h"
#include "model/spec_derivation.h"
#include "report/count_text.h"

namespace gpuprobe::app {
namespace {

bool Usable(const bench::BenchResult& r) { return r.ok() && r.verified && std::isfinite(r.value) && r.value > 0; }

// The fastest usable result among `ids` on `backend`.
MatmulFigure BestOf(const bench::BenchDocument* run, const std::initializer_list<const char*>& ids, const std::string& backend) {
  MatmulFigure best;
  if (run == nullptr) return best;
  for (const char* id : ids) {
    for (const bench::BenchResult* r : run->ResultsOf(id, backend)) {
      if (!Usable(*r) || (best.flops && *best.flops >= r->value)) continue;
      best.flops = r->value;
      best.source = "measured";
      best.name = r->id.substr(r->id.find('.') + 1) + " " + r->case_label;
      best.noisy = r->stats.noisy;
    }
  }
  return best;
}

MatmulFigure FromSpec(std::optional<double> flops) {
  MatmulFigure f;
  if (flops && *flops > 0) {
    f.flops = flops;
    f.source = "spec";
  }
  return f;
}

std::optional<double> Ratio(const MatmulFigure& a, const MatmulFigure& b) {
  if (!a.known() || !b.known() || *b.flops <= 0) return std::nullopt;
  return *a.flops / *b.flops;
}

}  // namespace

bool IsCpuFp32Matmul(const std::string& id) {
  return id == "matmul.naive" || id == "matmul.blocked" || id == "matmul.openblas_sgemm";
}

std::optional<double> MatmulComparison::Fp32Speedup() const { return Ratio(gpu_fp32, cpu); }
std::optional<double> MatmulComparison::TensorSpeedup() const { return Ratio(gpu_tensor, cpu); }

MatmulComparison CompareMatmul(const bench::BenchDocument* run, const model::CpuSpec* cpu, const model::GpuSpec* gpu) {
  MatmulComparison c;
  c.cpu = BestOf(run, {"matmul.naive", "matmul.blocked", "matmul.openblas_sgemm"}, "cpu");
  if (!c.cpu.known() && cpu != nullptr) {
    model::CpuPeak peak = model::CpuPeakOf(*cpu, "fp32", cpu->physical_cores);
    if (peak.flops && *peak.flops > 0) {
      c.cpu.flops = peak.flops;
      c.cpu.source = "model";
    }
  }
  c.gpu_fp32 = BestOf(run, {"matmul.gpu_naive", "matmul.gpu_coalesced", "matmul.gpu_tiled", "matmul.gpu_register_blocked",
                            "matmul.cublas_fp32"}, "cuda");
  // The spec's peaks by the model's one function (model::PeakFlops), as advise plans with.
  if (!c.gpu_fp32.known() && gpu != nullptr) c.gpu_fp32 = FromSpec(model::PeakFlops(*gpu, "fp32"));
  c.gpu_tensor = BestOf(run, {"matmul.cublas_bf16"}, "cuda");
  if (!c.gpu_tensor.known() && gpu != nullptr) c.gpu_tensor = FromSpec(model::PeakFlops(*gpu, "bf16"));
  return c;
}

nlohmann::json MatmulComparisonJson(const MatmulComparison& c) {
  auto value = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  auto text = [](const std::string& v) { return v.empty() ? nlohmann::json(nullptr) : nlohmann::json(v); };
  return {{"cpu_fp32_flops", value(c.cpu.flops)},          {"cpu_source", text(c.cpu.source)},
          {"cpu_name", text(c.cpu.name)},                  {"gpu_fp32_flops", value(c.gpu_fp32.flops)},
          {"gpu_fp32_source", text(c.gpu_fp32.source)},    {"gpu_tensor_bf16_flops", value(c.gpu_tensor.flops)},
          {"gpu_tensor_source", text(c.gpu_tensor.source)}, {"fp32_speedup", value(c.Fp32Speedup())},
          {"tensor_bf16_speedup", value(c.TensorSpeedup())}};
}

std::string FormatSpeedup(double ratio) { return report::DropTrailingZeros(core::FormatSignificant(ratio, 3)); }

std::optional<MachineLoad> ParseLoadAverage(std::string_view loadavg, int logical_cpus) {
  std::string text(loadavg.substr(0, 64));
  char* end = nullptr;
  double load = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(load) || load < 0) return std::nullopt;
  return MachineLoad{load, logical_cpus};
}

std::optional<MachineLoad> ReadMachineLoad(int logical_cpus) {
  auto text = core::ReadSystemFile("/proc/loadavg");
  if (!text.ok()) return std::nullopt;
  return ParseLoadAverage(*text, logical_cpus);
}

}  // namespace gpuprobe::app
