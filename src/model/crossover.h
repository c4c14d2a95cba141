// Where the GPU starts to win: the time of one call of a kernel across sizes on the CPU, on
// the GPU with the data already there (resident), and on the GPU with the inputs copied over
// PCIe and the result copied back. Each side costs
//   fixed + max(FLOPs / peak, bytes / bandwidth)            (the roofline of one call)
// and the transfer path adds 2 x link latency + bytes in / link + bytes out / link.
// The fixed cost is the launch round trip on the GPU and the fork-join of the worker
// threads on the CPU. A small job on the CPU runs on one thread and pays no fork-join, so the
// CPU's time is the cheaper of one thread and all threads at each size: that is why the CPU
// wins small problems, and why a GPU's launch cost alone decides where it starts to win.
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

/// The CPU at the two ends of its thread pool: one thread (no fork-join) and all threads.
struct CpuRates {
  ProcessorRates one_thread;   ///< fixed_seconds is normally 0: nothing to start
  ProcessorRates all_threads;  ///< fixed_seconds = the pool's fork-join round trip
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
  double cpu_seconds = 0;            ///< the cheaper of one thread and all threads
  bool cpu_one_thread = false;       ///< the cheaper was one thread
  double gpu_resident_seconds = 0;   ///< launch + compute
  double gpu_transfer_seconds = 0;   ///< launch + compute + copies
  // The terms that set the GPU's time, for "why here": the launch, the compute (roofline)
  // and the copies (latency and bytes over the link, both ways).
  double gpu_launch_seconds = 0, gpu_compute_seconds = 0, gpu_copy_seconds = 0;
};

/// Why the GPU never wins with the copies included (see CrossoverCurve).
enum class NeverReason {
  kNone,
  kCopiesCostMore,     ///< copying the data takes longer than the CPU's whole job at every size
  kFixedCostNotPaid,   ///< the fixed cost per call is not paid back up to the largest size
  kNoMeasuredWin,      ///< measured: no size tried was faster on the GPU with the copies
};

struct CrossoverCurve {
  CrossoverKernel kernel = CrossoverKernel::kVectorTriad;
  std::vector<CrossoverPoint> points;     ///< in increasing size
  std::optional<double> resident_size;    ///< smallest size at which the resident GPU is faster
  std::optional<double> transfer_size;    ///< the same including the copies
  NeverReason why_never = NeverReason::kNone;  ///< when transfer_size is empty
  double link_bandwidth = 0;              ///< bytes/s, for the kCopiesCostMore explanation
  double max_size = 0;                    ///< the largest size tried
};

/// The time of one call at `size` on each path.
CrossoverPoint TimeAt(CrossoverKernel kernel, double size, const CpuRates& cpu, const ProcessorRates& gpu,
                      const LinkRates& link);

/// Curves over sizes from `min_size` to `max_size` (geometric, `points` points) and the
/// crossover sizes, found to 1% by bisection. InvalidArgument for missing or absurd rates.
core::Result<CrossoverCurve> FindCrossover(CrossoverKernel kernel, const CpuRates& cpu, const ProcessorRates& gpu,
                                           const LinkRates& link, double min_size, double max_size, int points = 48);

}  // namespace gpuprobe::model
