#include "model/advisor.h"

#include <algorithm>
#include <cmath>

#include "model/hf_config.h"
#include "model/memory_planner.h"
#include "model/quantity.h"
#include "model/spec_derivation.h"

namespace gpuprobe::model {
namespace {

// The host link a GPU's data crosses, per direction, after the copy efficiency.
std::optional<double> HostLinkBytesPerSecond(const GpuSpec& g, Phrase* label) {
  if (g.host_interface.find("SoC") != std::string::npos) {
    *label = Say("advise.link.unified");
    return 0.0;
  }
  if (auto pcie = DerivePcieBandwidth(g)) {
    *label = Say("advise.link.pcie").Int("gen", *g.pcie_generation).Int("lanes", *g.pcie_lanes)
                 .Rate("rate", *pcie * kPcieEfficiency);
    return *pcie * kPcieEfficiency;
  }
  if (g.host_interface.find("NVLink-C2C") != std::string::npos) {
    double c2c = 450e9 * kPcieEfficiency;  // 900 GB/s bidirectional
    *label = Say("advise.link.c2c").Rate("rate", c2c);
    return c2c;
  }
  return std::nullopt;
}

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
  GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kFlops, w.flops, "--flops"));
  GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kBytes, w.bytes, "--bytes"));
  GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kBytes, w.transfer_bytes, "--transfer-bytes"));
  GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kCallsPerSecond, w.calls_per_second, "--calls-per-second"));
  GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kFraction, w.parallel_fraction, "--parallel-fraction"));
  if (w.model_params > 0) GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kParams, w.model_params, "--size"));
  if (w.flops <= 0 && w.bytes <= 0) {
    return core::Status::InvalidArgument("the workload does no work: give --flops or --bytes (or a --profile)")
        .WithKeys("error.advise.no_work", {});
  }
  return core::Status::Ok();
}

core::Result<Advice> Advise(const Workload& w, const CpuCapability& cpu, const std::vector<GpuSpec>& gpus,
                            const PriceBook* prices, const std::function<bool(const GpuSpec&)>& consider) {
  GPUPROBE_RETURN_IF_ERROR(ValidateWorkload(w));
  if (cpu.flops <= 0 || cpu.bandwidth <= 0) {
    return core::Status::InvalidArgument("the CPU's FLOP/s and bandwidth must be positive").WithKeys("error.advise.cpu_positive", {});
  }
  Advice a;
  double cpu_compute = w.flops / cpu.flops, cpu_memory = w.bytes / cpu.bandwidth;
  a.cpu_seconds = std::max(cpu_compute, cpu_memory);
  a.cpu_bandwidth_bound = cpu_memory >= cpu_compute;
  const double p = w.parallel_fraction;
  a.amdahl_cap = p >= 1 ? 1e9 : 1.0 / (1.0 - p);

  // An LLM workload is planned like `plan --params N`: the same job, the same fit rule.
  std::optional<MemoryPlan> model_plan;
  Job model_job;
  if (w.model_params > 0) {
    auto shape = ShapeFromParameterCount(w.model_params, ShapeFlags{});
    if (!shape.ok()) return shape.status();
    auto plan = PlanMemory(*shape, model_job);
    if (!plan.ok()) return plan.status();
    model_plan = std::move(plan.value());
  }

  for (const auto& g : gpus) {
    if (consider && !consider(g)) continue;
    auto peak = PeakFlops(g, w.dtype);
    if (!peak) peak = PeakFlops(g, "fp32");
    auto bandwidth = MemoryBandwidthBytesPerSecond(g);
    Phrase link;
    auto host = HostLinkBytesPerSecond(g, &link);
    if (!peak || !bandwidth || !host) continue;
    GpuEstimate e;
    e.gpu = &g;
    e.link = link;
    e.peak_flops = *peak;
    e.bandwidth_bytes_per_s = *bandwidth;
    e.usable_bytes = DriverUsableMemory(g).bytes;
    if (model_plan) {
      e.model_bytes = model_plan->total_bytes;
      FitResult fit = CheckFit(*model_plan, model_job, e.usable_bytes);
      e.model_fits = fit.fits;
      e.model_budget_bytes = fit.usable_bytes;
    }
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
    if (prices != nullptr) e.price = prices->Find(g);
    if (e.price != nullptr) e.usd_per_million_calls = e.price->usd_per_hour / 3600.0 * e.total_seconds * 1e6;
    a.gpus.push_back(e);
  }
  // Fastest first; a GPU the model does not fit on goes after every one it fits on.
  std::stable_sort(a.gpus.begin(), a.gpus.end(), [](const GpuEstimate& x, const GpuEstimate& y) {
    bool xf = x.model_fits.value_or(true), yf = y.model_fits.value_or(true);
    if (xf != yf) return xf;
    return x.total_seconds < y.total_seconds;
  });
  if (a.gpus.empty()) {
    return core::Status::InvalidArgument("no GPU in the list has the figures the estimate needs").WithKeys("error.advise.no_figures", {});
  }
  if (!a.gpus.front().model_fits.value_or(true)) {
    return core::Status::InvalidArgument("the model fits on no GPU of the database in 16-bit",
                                         "run 'gpuprobe plan --params N --gpu NAME' for the ways to make it fit")
        .WithKeys("error.advise.fits_none", {}, "error.advise.fits_none.hint");
  }

  const GpuEstimate& best = a.gpus.front();
  const GpuEstimate* best_resident = &a.gpus.front();
  for (const auto& e : a.gpus) {
    if (!e.model_fits.value_or(true)) continue;
    // Within 1% is a tie the table shows as equal times: the table's order decides.
    if (e.resident_seconds < best_resident->resident_seconds * 0.99) best_resident = &e;
  }
  double intensity = w.bytes > 0 ? w.flops / w.bytes : 1e9;
  double ridge = RidgePointFlopsPerByte(*best.gpu, w.dtype).value_or(RidgePointFlopsPerByte(*best.gpu, "fp32").value_or(0));

  // 1. Arithmetic intensity.
  {
    Criterion c{"arithmetic_intensity", 0, {}};
    // Past the GPU's ridge point the work is compute-bound there (the full score); below it, it
    // is bandwidth-bound however many FLOP per byte it has (a JSON parser at 10 is not a matmul).
    c.score = intensity >= ridge && ridge > 0 ? 2 : intensity >= 1 ? 1 : intensity >= 0.25 ? 0 : -1;
    c.reason = Say("advise.reason.intensity").Num("intensity", intensity).GpuName("gpu", best.gpu->name).Num("ridge", ridge)
                   .Text("dtype", RidgePointFlopsPerByte(*best.gpu, w.dtype) ? w.dtype : "fp32")
                   .Key("meaning", intensity >= ridge ? "advise.reason.intensity_compute"
                                   : intensity >= 1   ? "advise.reason.intensity_bandwidth"
                                                      : "advise.reason.intensity_movement");
    a.criteria.push_back(c);
  }
  // 2. Data dependency (Amdahl).
  {
    Criterion c{"data_dependency", 0, {}};
    c.score = p >= 0.99 ? 2 : p >= 0.9 ? 1 : p >= 0.5 ? 0 : -2;
    c.reason = p >= 1 ? Say("advise.reason.independent")
                      : Say("advise.reason.amdahl").Percent("p", p).Num("cap", a.amdahl_cap);
    a.criteria.push_back(c);
  }
  // 3. Branching.
  {
    Criterion c{"branching", w.branchy ? -2 : 1, {}};
    c.reason = w.branchy ? Say("advise.reason.branchy").Num("penalty", kDivergencePenalty) : Say("advise.reason.uniform");
    a.criteria.push_back(c);
  }
  // 4. Batchability.
  {
    Criterion c{"batchability", 0, {}};
    // The GPU's share of a call, as the table's "GPU part" shows it (the parallel share).
    double per_call_work = w.parallel_fraction * best.compute_seconds;
    if (w.calls_per_second > 0) {
      c.score = per_call_work < 10 * kLaunchRoundTripSeconds ? -2 : per_call_work < 100 * kLaunchRoundTripSeconds ? 0 : 1;
      c.reason = Say(c.score < 0 ? "advise.reason.calls_batch" : "advise.reason.calls")
                     .Num("calls", w.calls_per_second).Seconds("work", per_call_work)
                     .Seconds("launch", kLaunchRoundTripSeconds);
    } else {
      c.score = 2;
      c.reason = Say("advise.reason.batch_job").Seconds("work", per_call_work).Seconds("launch", kLaunchRoundTripSeconds);
    }
    a.criteria.push_back(c);
  }
  // 5. Algorithmic complexity.
  {
    Criterion c{"complexity", 0, {}};
    double excess = w.flops_growth - w.bytes_growth;
    c.score = excess >= 1 ? 2 : excess > 0 ? 1 : 0;
    c.reason = excess > 0 ? Say("advise.reason.grows").Num("flops", w.flops_growth).Num("bytes", w.bytes_growth)
                          : Say("advise.reason.linear");
    a.criteria.push_back(c);
  }

  // Verdict.
  if (best.speedup >= kWorthIt) {
    a.verdict = Verdict::kMoveToGpu;
    a.pick = best.gpu;
    a.reason = Say("advise.reason.move").GpuName("gpu", best.gpu->name).Seconds("gpu_time", best.total_seconds)
                   .Seconds("cpu_time", a.cpu_seconds).Num("speedup", best.speedup);
  } else if (best_resident->resident_speedup >= kWorthIt) {
    a.verdict = Verdict::kOnlyIfDataStays;
    a.pick = best_resident->gpu;
    a.reason = Say("advise.reason.resident").GpuName("gpu", best_resident->gpu->name)
                   .Seconds("gpu_time", best_resident->resident_seconds).Seconds("cpu_time", a.cpu_seconds)
                   .Num("speedup", best_resident->resident_speedup).Sub("link", best_resident->link)
                   .Seconds("transfer", best_resident->transfer_seconds);
  } else {
    a.verdict = Verdict::kStayOnCpu;
    a.reason = Say(w.branchy || p < 0.5 ? "advise.reason.stay_branchy" : "advise.reason.stay")
                   .Seconds("cpu_time", a.cpu_seconds).GpuName("gpu", best_resident->gpu->name)
                   .Seconds("gpu_time", best_resident->resident_seconds);
  }
  // The cheapest GPU that passes the same test as the verdict's pick.
  if (a.verdict != Verdict::kStayOnCpu) {
    for (size_t i = 0; i < a.gpus.size(); ++i) {
      const GpuEstimate& e = a.gpus[i];
      if (!e.model_fits.value_or(true) || e.price == nullptr) continue;
      double speedup = a.verdict == Verdict::kMoveToGpu ? e.speedup : e.resident_speedup;
      if (speedup < kWorthIt) continue;
      if (a.cheapest < 0 || e.usd_per_million_calls < a.gpus[static_cast<size_t>(a.cheapest)].usd_per_million_calls) {
        a.cheapest = static_cast<int>(i);
      }
    }
  }
  return a;
}

}  // namespace gpuprobe::model
