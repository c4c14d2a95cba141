#include "app/plan_rental.h"

#include <algorithm>
#include <cmath>
#include <limits>


namespace gpuprobe::app {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Dollars per million of `tokens_per_s` for `gpus` GPUs at the price; the one formula of
// model/prices.h, so the output-only figure is the one the traffic section always printed.
double PerMillion(const model::GpuPrice& price, double gpus, double tokens_per_s) {
  return model::UsdPerMillionTokens(price.usd_per_hour, gpus, tokens_per_s);
}

RentalHeadroom HeadroomOf(const model::ReplicaLoad& load) {
  RentalHeadroom h;
  h.n_plus_one_replicas = load.replicas + 1;
  h.n_plus_one_gpus = h.n_plus_one_replicas * load.tensor_parallel;
  const double lambda = load.arrival_rps_per_replica;
  // Prompts queue for the replica's prefill, one prompt at a time: M/M/1. Prefill takes a
  // nearly constant time, and an M/D/1 queue waits half as long on average
  // (Pollaczek-Khinchine), so the exponential service overstates the wait: on the safe side.
  h.prefill = model::MmcWait(1, lambda * load.prefill_seconds, load.prefill_seconds);
  // Requests queue for a KV-cache slot when every sequence the budget holds is taken: M/M/c
  // with c those sequences and a request holding its slot for its whole answer.
  h.slots = model::MmcWait(std::max(1.0, load.max_sequences), lambda * load.request_seconds, load.request_seconds);
  h.p99_wait_seconds = (h.prefill.stable && h.slots.stable) ? h.prefill.p99_wait_seconds + h.slots.p99_wait_seconds : kInf;
  h.utilisation = std::max(h.prefill.utilisation, h.slots.utilisation);
  return h;
}

// Cheapest per token first; fewer GPUs, then the lower TPOT on a tie.
bool Cheaper(const RentalFigures& a, const RentalFigures& b) {
  if (a.usd_per_million_tokens != b.usd_per_million_tokens) return a.usd_per_million_tokens < b.usd_per_million_tokens;
  if (a.load.gpus != b.load.gpus) return a.load.gpus < b.load.gpus;
  return a.load.tpot_seconds < b.load.tpot_seconds;
}

}  // namespace

RentalFigures RentalFiguresFor(const model::GpuSpec& gpu, const model::GpuPrice* price, const model::TrafficPlan& plan,
                               const std::string& weight_dtype) {
  RentalFigures r;
  r.gpu = &gpu;
  r.price = price;
  r.load = plan.low;
  r.weight_dtype = weight_dtype;
  if (!r.load.feasible) {
    r.blocked_by = r.load.blocked_by.empty() ? "memory" : r.load.blocked_by;
    return r;
  }
  const auto& t = plan.traffic;
  r.output_tokens_per_s = r.load.output_tokens_per_s;
  r.tokens_per_s = r.load.arrival_rps * static_cast<double>(t.prompt_tokens + t.output_tokens);
  r.headroom = HeadroomOf(r.load);
  if (price != nullptr) {
    r.usd_per_hour = price->usd_per_hour * r.load.gpus;
    r.usd_per_million_tokens = PerMillion(*price, r.load.gpus, r.tokens_per_s);
    r.usd_per_million_output_tokens = PerMillion(*price, r.load.gpus, r.output_tokens_per_s);
    r.n_plus_one_usd_per_hour = price->usd_per_hour * r.headroom.n_plus_one_gpus;
    r.n_plus_one_usd_per_million_tokens = PerMillion(*price, r.headroom.n_plus_one_gpus, r.tokens_per_s);
  }
  return r;
}

core::Result<RentalSweep> SweepRentals(const model::ModelShape& shape, const model::Job& base, DtypeDefaults defaults,
                                       const model::PriceBook& prices, const model::Traffic& traffic,
                                       double max_p99_wait_seconds) {
  GPUPROBE_RETURN_IF_ERROR(model::ValidateTraffic(traffic));
  RentalSweep sweep;
  sweep.traffic = traffic;
  for (const model::GpuPrice& price : prices.prices()) {
    if (price.gpu == nullptr) continue;
    ++sweep.priced_gpus;
    const model::Job job = PlanJobForGpu(base, *price.gpu, defaults);
    auto plan = model::SizeForTraffic(shape, job, *price.gpu, traffic);
    if (!plan.ok()) {
      // The spec lacks a figure the speed model needs: it cannot be sized, so not offered.
      RentalFigures r;
      r.gpu = price.gpu;
      r.price = &price;
      r.blocked_by = "spec";
      r.weight_dtype = model::DTypeName(job.weight_dtype);
      r.fp16_for_gpu = Bf16DefaultBecameFp16(base, *price.gpu, defaults);
      sweep.not_served.push_back(std::move(r));
      continue;
    }
    RentalFigures r = RentalFiguresFor(*price.gpu, &price, *plan, model::DTypeName(job.weight_dtype));
    r.fp16_for_gpu = Bf16DefaultBecameFp16(base, *price.gpu, defaults);
    (r.load.feasible ? sweep.rows : sweep.not_served).push_back(std::move(r));
  }
  std::stable_sort(sweep.rows.begin(), sweep.rows.end(), Cheaper);
  sweep.max_p99_wait_seconds = max_p99_wait_seconds;
  for (size_t i = 0; i < sweep.rows.size(); ++i) {
    const RentalHeadroom& h = sweep.rows[i].headroom;
    if (h.p99_wait_seconds <= max_p99_wait_seconds && h.utilisation <= kRecommendMaxBusy) {
      sweep.recommended = i;
      break;
    }
  }
  return sweep;
}

}  // namespace gpuprobe::app
