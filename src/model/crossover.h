// Where the GPU starts to win: the time of one call of a kernel across sizes on the CPU, on
// the GPU with the data already there (resident), and on the GPU with the inputs copied over
// PCIe and the result copied back. Each side costs
//   fixed + max(FLOPs / peak, bytes / bandwidth)            (the roofline of one call)
// and the transfer path adds 2 x link latency + bytes in / link + bytes out / link.
// The fixed cost is the launch round trip on the GPU and the fork-join of the worker
// threads on the CPU: it is why the CPU wins small problems.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace gpuprobe::model {

struct ProcessorRates {
  double flops = 0;          ///< FLOP/s sustained for the kernel's type
  double bandwidth = 0;      ///< bytes/s sustained from memory
  double fixed_seconds = 0;  ///< per call: launch round trip (GPU), fork-join (CPU)
};

struct LinkRates {
  double bandwidth = 0;        ///< bytes/s per direction
  double latency_seconds = 0;  ///< per copy
};

enum class CrossoverKernel {
  kVectorTriad,  ///< a[i] = b[i] + s * c[i] in fp32: size = elements
  kMatmul,       ///< C = A x B, n x n fp32: size = n
};

/// "vector triad (fp32)" or "matmul (fp32)".
std::string CrossoverKernelName(CrossoverKernel kernel);

/// The work of one call at `size`.
struct KernelWork {
  double flops = 0, bytes = 0, bytes_in = 0, bytes_out = 0;
};
KernelWork WorkOf(CrossoverKernel kernel, double size);

struct CrossoverPoint {
  double size = 0;
  double cpu_seconds = 0;
  double gpu_resident_seconds = 0;
  double gpu_transfer_seconds = 0;
};

struct CrossoverCurve {
  CrossoverKernel kernel = CrossoverKernel::kVectorTriad;
  std::vector<CrossoverPoint> points;     ///< in increasing size
  std::optional<double> resident_size;    ///< smallest size at which the resident GPU is faster
  std::optional<double> transfer_size;    ///< the same including the copies
  std::string why_never;                  ///< when transfer_size is empty: why, one sentence
};

/// The time of one call at `size` on each path.
CrossoverPoint TimeAt(CrossoverKernel kernel, double size, const ProcessorRates& cpu, const ProcessorRates& gpu,
                      const LinkRates& link);

/// Curves over sizes from `min_size` to `max_size` (geometric, `points` points) and the
/// crossover sizes, found to 1% by bisection. InvalidArgument for missing or absurd rates.
core::Result<CrossoverCurve> FindCrossover(CrossoverKernel kernel, const ProcessorRates& cpu, const ProcessorRates& gpu,
                                           const LinkRates& link, double min_size, double max_size, int points = 48);

}  // namespace gpuprobe::model
