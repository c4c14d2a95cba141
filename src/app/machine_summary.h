// The machine in a few figures, CPU and GPU in the same units: memory bandwidth, FP32 peak,
// best matmul, memory size, host link, the fixed cost to start parallel work, and where the
// GPU starts to win. Measured figures come from a bench document; what was not measured (no
// GPU here, or no GPU suite in the run) comes from the spec sheet or the model and says so.
// The tour prints it, the HTML report draws it; both read the same documents.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/matmul_comparison.h"
#include "app/report_sources.h"
#include "model/crossover.h"
#include "model/gpu_spec.h"
#include "report/i18n.h"

namespace gpuprobe::app {

/// One figure with where it comes from.
struct Figure {
  std::optional<double> value;
  std::string source;  ///< "measured", "spec", "model"
  bool noisy = false;  ///< measured with a wide spread (p10-p90): read it as a rough figure
  bool known() const { return value.has_value(); }
};

struct MachineSummary {
  std::string cpu_name;
  int cpu_cores = 0;
  double cpu_memory_bytes = 0;
  bool gpu_present = false;          ///< a GPU is in this machine and usable
  bool gpu_measured = false;         ///< the bench run has GPU results
  bool live_state_read = false;      ///< the live GPU state (inspect) could be read: "no problem" covers it
  std::string gpu_name;              ///< detected GPU, or the spec used for comparison
  std::string gpu_absent_reason;     ///< why there is no GPU (when !gpu_present), English
  std::string gpu_absent_id;         ///< the same as an id (app/gpu_absence.h); empty if unknown
  const model::GpuSpec* gpu_spec = nullptr;
  double gpu_memory_bytes = 0;
  std::string link_name;             ///< "PCIe Gen5 x16"

  Figure cpu_bandwidth, gpu_bandwidth;   ///< bytes/s, streaming (triad)
  Figure cpu_fp32, gpu_fp32;             ///< FLOP/s, FMA peak
  /// FLOP/s, fp32 matmul on both sides (app/matmul_comparison.h: the CPU's best measured fp32
  /// matmul, else its FMA peak by the model; the GPU's on its CUDA cores, else its spec).
  Figure cpu_matmul, gpu_matmul;
  /// The GPU's bf16 tensor-core matmul (measured, else the spec's dense peak): shown apart from
  /// the fp32 comparison and named so.
  Figure gpu_tensor;
  /// The best matmul's benchmark and case ("blocked n=1024"), or, from the spec sheet, a key
  /// "summary.matmul.<kind>" of the texts (gpu_matmul_name_key).
  std::string cpu_matmul_name, gpu_matmul_name;
  std::string gpu_matmul_name_key;
  std::string gpu_tensor_name;           ///< "cublas_bf16 n=8192" when measured
  MatmulComparison matmul;               ///< the comparison the matmul figures come from
  /// The 1-minute load average was above the logical CPUs when the summary was made: CPU
  /// figures measured in this run read low (load_1min, logical_cpus).
  bool cpu_busy = false;
  double load_1min = 0;
  int logical_cpus = 0;
  Figure gpu_link;                       ///< bytes/s per direction, pinned copies
  Figure cpu_fixed, gpu_fixed;           ///< seconds: fork-join / launch round trip
  Figure cpu_bandwidth_one, cpu_fp32_one;  ///< one thread / one core: what a small job gets
  /// The CPU's theoretical FP32 peak (model::CpuPeak: one formula, one clock for every verb);
  /// source "model", with the clock it used in cpu_peak_clock_basis.
  Figure cpu_fp32_peak;
  std::string cpu_peak_clock_basis;      ///< "measured" (under load in this run) or "spec" (max clock)
  std::optional<model::CrossoverCurve> triad_crossover, matmul_crossover;
  /// The model's terms at each predicted crossover size (launch, copies, compute, CPU time).
  std::optional<model::CrossoverPoint> triad_at_crossover, matmul_at_crossover;
  /// The crossover sizes come from crossover.* results (CPU and GPU timed at the same sizes)
  /// rather than from the model; the curves' points stay the model's.
  bool triad_crossover_measured = false, matmul_crossover_measured = false;
};

/// Builds the summary. `spec` is the detected GPU's spec, or the GPU to compare with when
/// there is none (may be null: GPU figures then stay unknown). `load`, when given, is the
/// machine's load while the run was measured (app/matmul_comparison.h).
MachineSummary Summarize(const ReportSources& sources, const model::GpuSpec* spec,
                         const std::optional<MachineLoad>& load = std::nullopt);

/// "20.3 GB/s", "-" when unknown; `unit_kind`: bandwidth, flops, seconds or bytes.
std::string FigureValue(const Figure& figure, const std::string& unit_kind);
/// "20.3 GB/s (measured)", "4.80 TB/s (spec)", "-" when unknown.
std::string FigureText(const Figure& figure, const std::string& unit_kind, const report::Texts& texts);

/// Rows of the side-by-side table: {quantity, CPU, GPU}.
std::vector<std::vector<std::string>> SideBySideRows(const MachineSummary& s, const report::Texts& texts);

/// "what this machine is good for", in three lines.
std::vector<std::string> Verdict(const MachineSummary& s, int problems, const report::Texts& texts);

/// Why the predicted crossovers sit where they do: for each model-only crossover (vector, then
/// matmul), the GPU's launch, copy and compute terms at the crossover size against the CPU's
/// time there; when the GPU never wins with copies, the terms at the largest size. Empty for
/// crossovers that were measured (the sizes are then timings, not a model's terms).
std::vector<std::string> CrossoverWhyLines(const MachineSummary& s, const report::Texts& texts);

/// One line per GPU of the inspect document: busy, memory, temperature, power, clock.
std::vector<std::string> LiveStateLines(const ReportSources& sources, const report::Texts& texts);

/// Findings and doctor failures/warnings as {severity, title, evidence, fix}.
struct Problem {
  std::string severity, title, evidence, fix;
};
std::vector<Problem> Problems(const ReportSources& sources);

}  // namespace gpuprobe::app
