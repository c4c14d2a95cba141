#include "model/advisor.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/units.h"
#include "model/spec_derivation.h"

namespace gpuprobe::model {
namespace {

// The host link a GPU's data crosses, per direction, after the copy efficiency.
std::optional<double> HostLinkBytesPerSecond(const GpuSpec& g, std::string* label) {
  if (g.host_interface.find("SoC") != std::string::npos) {
    *label = "unified memory (no copy)";
    return 0.0;
  }
  if (auto pcie = DerivePcieBandwidth(g)) {
    *label = fmt::format("PCIe Gen{} x{} at {}", *g.pcie_generation, *g.pcie_lanes,
                         core::FormatBytesPerSecond(*pcie * kPcieEfficiency));
    return *pcie * kPcieEfficiency;
  }
  if (g.host_interface.find("NVLink-C2C") != std::string::npos) {
    double c2c = 450e9 * kPcieEfficiency;  // 900 GB/s bidirectional
    *label = fmt::format("NVLink-C2C at {}", core::FormatBytesPerSecond(c2c));
    return c2c;
  }
  return std::nullopt;
}

std::string Time(double seconds) { return core::FormatSeconds(seconds); }

}  // namespace

std::string VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kStayOnCpu: return "stay_on_cpu";
    case Verdict::kMoveToGpu: return "move_to_gpu";
    case Verdict::kOnlyIfDataStays: return "only_if_data_stays_on_gpu";
  }
  return "?";
}

core::Status ValidateWorkload(const Workload& w) {
  auto check = [](double v, const char* name, double max) -> core::Status {
    if (!std::isfinite(v) || v < 0) return core::Status::InvalidArgument(fmt::format("{} must be a non-negative number", name));
    if (v > max) return core::Status::InvalidArgument(fmt::format("{} = {:.3g} is absurd (limit {:.0e})", name, v, max));
    return core::Status::Ok();
  };
  GPUPROBE_RETURN_IF_ERROR(check(w.flops, "--flops", 1e21));
  GPUPROBE_RETURN_IF_ERROR(check(w.bytes, "--bytes", 1e16));
  GPUPROBE_RETURN_IF_ERROR(check(w.transfer_bytes, "--transfer-bytes", 1e16));
  GPUPROBE_RETURN_IF_ERROR(check(w.calls_per_second, "--calls-per-second", 1e9));
  if (!(w.parallel_fraction >= 0 && w.parallel_fraction <= 1)) {
    return core::Status::InvalidArgument("--parallel-fraction must be between 0 and 1");
  }
  if (w.flops <= 0 && w.bytes <= 0) {
    return core::Status::InvalidArgument("the workload does no work: give --flops or --bytes (or a --profile)");
  }
  return core::Status::Ok();
}

core::Result<Advice> Advise(const Workload& w, const CpuCapability& cpu, const std::vector<GpuSpec>& gpus) {
  GPUPROBE_RETURN_IF_ERROR(ValidateWorkload(w));
  if (cpu.flops <= 0 || cpu.bandwidth <= 0) {
    return core::Status::InvalidArgument("the CPU's FLOP/s and bandwidth must be positive");
  }
  Advice a;
  double cpu_compute = w.flops / cpu.flops, cpu_memory = w.bytes / cpu.bandwidth;
  a.cpu_seconds = std::max(cpu_compute, cpu_memory);
  a.cpu_bandwidth_bound = cpu_memory >= cpu_compute;
  const double p = w.parallel_fraction;
  a.amdahl_cap = p >= 1 ? 1e9 : 1.0 / (1.0 - p);

  for (const auto& g : gpus) {
    auto peak = PeakFlops(g, w.dtype);
    if (!peak) peak = PeakFlops(g, "fp32");
    auto bandwidth = MemoryBandwidthBytesPerSecond(g);
    std::string link;
    auto host = HostLinkBytesPerSecond(g, &link);
    if (!peak || !bandwidth || !host) continue;
    GpuEstimate e;
    e.gpu = &g;
    e.link = link;
    double flops_time = w.flops / *peak * (w.branchy ? kDivergencePenalty : 1.0);
    double memory_time = w.bytes / *bandwidth;
    e.bandwidth_bound = memory_time >= flops_time;
    e.compute_seconds = std::max(flops_time, memory_time);
    e.launch_seconds = kLaunchRoundTripSeconds;
    e.transfer_seconds = *host > 0 ? w.transfer_bytes / *host : 0;
    // Amdahl: the serial part stays on the CPU; only the parallel part moves.
    double serial = (1 - p) * a.cpu_seconds;
    e.resident_seconds = serial + p * e.compute_seconds + e.launch_seconds;
    e.total_seconds = e.resident_seconds + e.transfer_seconds;
    e.speedup = a.cpu_seconds / e.total_seconds;
    e.resident_speedup = a.cpu_seconds / e.resident_seconds;
    a.gpus.push_back(e);
  }
  std::stable_sort(a.gpus.begin(), a.gpus.end(),
                   [](const GpuEstimate& x, const GpuEstimate& y) { return x.total_seconds < y.total_seconds; });
  if (a.gpus.empty()) return core::Status::InvalidArgument("no GPU in the list has the figures the estimate needs");

  const GpuEstimate& best = a.gpus.front();
  const GpuEstimate* best_resident = &a.gpus.front();
  for (const auto& e : a.gpus) {
    if (e.resident_seconds < best_resident->resident_seconds) best_resident = &e;
  }
  double intensity = w.bytes > 0 ? w.flops / w.bytes : 1e9;
  double ridge = RidgePointFlopsPerByte(*best.gpu, w.dtype).value_or(RidgePointFlopsPerByte(*best.gpu, "fp32").value_or(0));

  // 1. Arithmetic intensity.
  {
    Criterion c{"arithmetic_intensity", 0, ""};
    c.score = intensity >= 10 ? 2 : intensity >= 1 ? 1 : intensity >= 0.25 ? 0 : -1;
    c.reason = fmt::format("{:.3g} FLOP per byte moved (the {} bends at {:.0f}): {}", intensity, best.gpu->name, ridge,
                           intensity >= ridge ? "compute-bound, the GPU's arithmetic pays off"
                           : intensity >= 1   ? "bandwidth-bound, but HBM is many times faster than DRAM"
                                              : "pure data movement: the GPU helps only through its memory bandwidth");
    a.criteria.push_back(c);
  }
  // 2. Data dependency (Amdahl).
  {
    Criterion c{"data_dependency", 0, ""};
    c.score = p >= 0.99 ? 2 : p >= 0.9 ? 1 : p >= 0.5 ? 0 : -2;
    c.reason = p >= 1 ? "every element is independent: all of it can run in parallel"
                      : fmt::format("{:.0f}% can run in parallel: Amdahl caps any speed-up at {:.1f}x", p * 100, a.amdahl_cap);
    a.criteria.push_back(c);
  }
  // 3. Branching.
  {
    Criterion c{"branching", w.branchy ? -2 : 1, ""};
    c.reason = w.branchy ? fmt::format("data-dependent branches: a warp runs its diverging paths in turn (assumed {:.0f}x slower)",
                                       kDivergencePenalty)
                         : "uniform control flow: all 32 lanes of a warp do the same thing";
    a.criteria.push_back(c);
  }
  // 4. Batchability.
  {
    Criterion c{"batchability", 0, ""};
    double per_call_work = best.compute_seconds;
    if (w.calls_per_second > 0) {
      c.score = per_call_work < 10 * kLaunchRoundTripSeconds ? -2 : per_call_work < 100 * kLaunchRoundTripSeconds ? 0 : 1;
      c.reason = fmt::format("{:.0f} calls per second, each {} of GPU work against a {} launch round trip{}", w.calls_per_second,
                             Time(per_call_work), Time(kLaunchRoundTripSeconds),
                             c.score < 0 ? ": batch requests together, or the GPU idles between launches" : "");
    } else {
      c.score = 2;
      c.reason = fmt::format("one batch job: {} of GPU work amortises a {} launch", Time(per_call_work), Time(kLaunchRoundTripSeconds));
    }
    a.criteria.push_back(c);
  }
  // 5. Algorithmic complexity.
  {
    Criterion c{"complexity", 0, ""};
    double excess = w.flops_growth - w.bytes_growth;
    c.score = excess >= 1 ? 2 : excess > 0 ? 1 : 0;
    c.reason = excess > 0 ? fmt::format("work grows as n^{:g} on n^{:g} data: the larger the problem, the better the GPU does",
                                        w.flops_growth, w.bytes_growth)
                          : "work grows like the data: size alone will not make the GPU win";
    a.criteria.push_back(c);
  }

  // Verdict.
  if (best.speedup >= kWorthIt) {
    a.verdict = Verdict::kMoveToGpu;
    a.pick = best.gpu;
    a.reason = fmt::format("the {} takes {} per call including transfers against {} on the CPU ({:.1f}x)", best.gpu->name,
                           Time(best.total_seconds), Time(a.cpu_seconds), best.speedup);
  } else if (best_resident->resident_speedup >= kWorthIt) {
    a.verdict = Verdict::kOnlyIfDataStays;
    a.pick = best_resident->gpu;
    a.reason = fmt::format("with the data already on the {} a call takes {} against {} on the CPU ({:.1f}x), but copying it "
                           "over {} adds {}: keep the data on the GPU across calls, or stay on the CPU",
                           best_resident->gpu->name, Time(best_resident->resident_seconds), Time(a.cpu_seconds),
                           best_resident->resident_speedup, best_resident->link, Time(best_resident->transfer_seconds));
  } else {
    a.verdict = Verdict::kStayOnCpu;
    a.reason = fmt::format("the CPU takes {} per call; the best GPU ({}) needs {} even with the data resident{}", Time(a.cpu_seconds),
                           best_resident->gpu->name, Time(best_resident->resident_seconds),
                           w.branchy || p < 0.5 ? ": branchy or serial work is what CPUs are built for" : "");
  }
  return a;
}

}  // namespace gpuprobe::model
