// How much faster the GPU is on a matmul: one definition, computed here and shown by every
// verb that says it (the tour, report, advise), so the same run gives the same figure
// everywhere.
//
//   CPU figure   the best verified fp32 matmul of this run (matmul.naive / blocked /
//                openblas_sgemm on the CPU) when the run has one ("measured"), else the
//                model's fp32 FMA peak of the CPU (model::CpuPeakOf, "model");
//   GPU figure   the same precision: the best verified fp32 matmul on the CUDA cores
//                ("measured"), else the spec sheet's FP32 vector peak ("spec");
//   tensor cores shown separately and named so: matmul.cublas_bf16 measured, else the
//                spec's dense BF16 tensor peak, against the same CPU fp32 figure.
//
// A speed-up is written by one rounding rule (FormatSpeedup, three significant digits).
// A busy machine (load average above the logical CPUs) is noticed, since it lowers every
// CPU figure measured in it: MachineLoad says so and the views print it beside them.
//
// Thread safety: pure functions (ReadMachineLoad reads /proc/loadavg).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "bench/bench_document.h"
#include "model/cpu_spec.h"
#include "model/gpu_spec.h"

namespace gpuprobe::app {

struct MatmulFigure {
  std::optional<double> flops;  ///< FLOP/s; empty when neither measured nor modelled
  std::string source;           ///< "measured", "model" (the CPU's FMA peak) or "spec"
  std::string name;             ///< the measured result: "openblas_sgemm n=2048"; empty otherwise
  bool noisy = false;           ///< measured with a wide spread
  bool known() const { return flops.has_value(); }
};

struct MatmulComparison {
  MatmulFigure cpu;         ///< fp32
  MatmulFigure gpu_fp32;    ///< fp32 on the CUDA cores
  MatmulFigure gpu_tensor;  ///< bf16 on the tensor cores (fp32 accumulate)
  /// gpu_fp32 / cpu: the like-for-like speed-up; empty when either is unknown.
  std::optional<double> Fp32Speedup() const;
  /// gpu_tensor / cpu: what tensor cores add, named as such; empty when either is unknown.
  std::optional<double> TensorSpeedup() const;
};

/// The fp32 matmul ids on the CPU, in registration order.
bool IsCpuFp32Matmul(const std::string& id);

/// The comparison for `run` (may be null: nothing measured), `cpu` (may be null: no model
/// figure) and `gpu` (may be null: no spec figures).
MatmulComparison CompareMatmul(const bench::BenchDocument* run, const model::CpuSpec* cpu, const model::GpuSpec* gpu);

/// {cpu_fp32_flops, cpu_source, cpu_name, gpu_fp32_flops, gpu_fp32_source, gpu_tensor_bf16_flops,
/// gpu_tensor_source, fp32_speedup, tensor_bf16_speedup}: every verb's JSON of the comparison.
nlohmann::json MatmulComparisonJson(const MatmulComparison& comparison);

/// The one rounding rule of a speed-up: three significant digits, trailing zeros dropped
/// ("1.25", "1.2", "244", "22170").
std::string FormatSpeedup(double ratio);

/// The machine's load while CPU figures were measured.
struct MachineLoad {
  double load_1min = 0;
  int logical_cpus = 0;
  /// The 1-minute load average is above the logical CPUs: other work competed for the cores,
  /// so a CPU figure measured now reads low.
  bool busy() const { return logical_cpus > 0 && load_1min > logical_cpus; }
};

/// The load of a /proc/loadavg text ("0.52 0.58 0.59 1/189 12345") with `logical_cpus`;
/// empty when the text is not in that form.
std::optional<MachineLoad> ParseLoadAverage(std::string_view loadavg, int logical_cpus);

/// This machine's load now; empty where /proc/loadavg cannot be read.
std::optional<MachineLoad> ReadMachineLoad(int logical_cpus);

}  // namespace gpuprobe::app
