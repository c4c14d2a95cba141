#include "model/crossover.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace gpuprobe::model {
namespace {

constexpr double kFp32Bytes = 4;

double ComputeSeconds(const KernelWork& w, const ProcessorRates& rates) {
  return std::max(w.flops / rates.flops, w.bytes / rates.bandwidth);
}

double CallSeconds(const KernelWork& w, const ProcessorRates& rates) { return rates.fixed_seconds + ComputeSeconds(w, rates); }

double CopySeconds(double bytes, const LinkRates& link) {
  return bytes > 0 ? link.latency_seconds + bytes / link.bandwidth : 0;
}

bool Finite(double v) { return std::isfinite(v) && v >= 0; }

core::Status CheckRates(const ProcessorRates& r, const char* who, const char* who_key) {
  if (!(r.flops > 0) || !(r.bandwidth > 0) || !std::isfinite(r.flops) || !std::isfinite(r.bandwidth) ||
      !Finite(r.fixed_seconds)) {
    return core::Status::InvalidArgument(fmt::format("{} rates must be positive and finite", who))
        .WithKeys("error.crossover.rates", {{"who_key", who_key}});
  }
  return core::Status::Ok();
}

/// Smallest size in (lo, hi] where `faster(size)` holds, given !faster(lo) and faster(hi).
template <typename Pred>
double Bisect(double lo, double hi, Pred faster) {
  while (hi / lo > 1.01) {
    double mid = std::sqrt(lo * hi);
    if (faster(mid)) hi = mid; else lo = mid;
  }
  return hi;
}

}  // namespace

std::string CrossoverKernelName(CrossoverKernel kernel) {
  return kernel == CrossoverKernel::kMatmul ? "matmul (fp32)" : "vector triad (fp32)";
}

KernelWork WorkOf(CrossoverKernel kernel, double size) {
  KernelWork w;
  if (kernel == CrossoverKernel::kMatmul) {
    w.flops = 2 * size * size * size;
    w.bytes = 3 * kFp32Bytes * size * size;  // each matrix read or written once at best
    w.bytes_in = 2 * kFp32Bytes * size * size;
    w.bytes_out = kFp32Bytes * size * size;
  } else {
    w.flops = 2 * size;
    w.bytes = 3 * kFp32Bytes * size;
    w.bytes_in = 2 * kFp32Bytes * size;
    w.bytes_out = kFp32Bytes * size;
  }
  return w;
}

CrossoverPoint TimeAt(CrossoverKernel kernel, double size, const CpuRates& cpu, const ProcessorRates& gpu,
                      const LinkRates& link) {
  KernelWork w = WorkOf(kernel, size);
  CrossoverPoint p;
  p.size = size;
  double one = CallSeconds(w, cpu.one_thread), all = CallSeconds(w, cpu.all_threads);
  p.cpu_one_thread = one <= all;
  p.cpu_seconds = std::min(one, all);
  p.gpu_launch_seconds = gpu.fixed_seconds;
  p.gpu_compute_seconds = ComputeSeconds(w, gpu);
  p.gpu_copy_seconds = CopySeconds(w.bytes_in, link) + CopySeconds(w.bytes_out, link);
  p.gpu_resident_seconds = p.gpu_launch_seconds + p.gpu_compute_seconds;
  p.gpu_transfer_seconds = p.gpu_resident_seconds + p.gpu_copy_seconds;
  return p;
}

core::Result<CrossoverCurve> FindCrossover(CrossoverKernel kernel, const CpuRates& cpu, const ProcessorRates& gpu,
                                           const LinkRates& link, double min_size, double max_size, int points) {
  GPUPROBE_RETURN_IF_ERROR(CheckRates(cpu.one_thread, "CPU (one thread)", "error.crossover.who.cpu_one"));
  GPUPROBE_RETURN_IF_ERROR(CheckRates(cpu.all_threads, "CPU (all threads)", "error.crossover.who.cpu_all"));
  GPUPROBE_RETURN_IF_ERROR(CheckRates(gpu, "GPU", "error.crossover.who.gpu"));
  if (!(link.bandwidth > 0) || !std::isfinite(link.bandwidth) || !Finite(link.latency_seconds)) {
    return core::Status::InvalidArgument("link bandwidth must be positive and finite").WithKeys("error.crossover.link");
  }
  if (!(min_size >= 1) || !(max_size > min_size) || max_size > 1e15 || points < 2 || points > 10000) {
    return core::Status::InvalidArgument("crossover sizes must satisfy 1 <= min < max <= 1e15 with 2..10000 points")
        .WithKeys("error.crossover.sizes");
  }
  CrossoverCurve curve;
  curve.kernel = kernel;
  curve.link_bandwidth = link.bandwidth;
  curve.max_size = max_size;
  double step = std::pow(max_size / min_size, 1.0 / (points - 1));
  for (int i = 0; i < points; ++i) {
    double size = i + 1 == points ? max_size : min_size * std::pow(step, i);
    curve.points.push_back(TimeAt(kernel, size, cpu, gpu, link));
  }
  auto resident_faster = [&](double s) {
    CrossoverPoint p = TimeAt(kernel, s, cpu, gpu, link);
    return p.gpu_resident_seconds < p.cpu_seconds;
  };
  auto transfer_faster = [&](double s) {
    CrossoverPoint p = TimeAt(kernel, s, cpu, gpu, link);
    return p.gpu_transfer_seconds < p.cpu_seconds;
  };
  // The first sample where the GPU is faster; bisect between it and the one before.
  auto first = [&](auto faster) -> std::optional<double> {
    for (size_t i = 0; i < curve.points.size(); ++i) {
      if (!faster(curve.points[i].size)) continue;
      if (i == 0) return curve.points[0].size;
      return Bisect(curve.points[i - 1].size, curve.points[i].size, faster);
    }
    return std::nullopt;
  };
  curve.resident_size = first(resident_faster);
  curve.transfer_size = first(transfer_faster);
  if (!curve.transfer_size) {
    // Per unit of size at the large end: does copying alone cost more than the CPU's work?
    KernelWork w = WorkOf(kernel, max_size);
    double copy = (w.bytes_in + w.bytes_out) / link.bandwidth;
    double cpu_work = std::min(ComputeSeconds(w, cpu.one_thread), ComputeSeconds(w, cpu.all_threads));
    curve.why_never = copy >= cpu_work ? NeverReason::kCopiesCostMore : NeverReason::kFixedCostNotPaid;
  }
  return curve;
}

}  // namespace gpuprobe::model
