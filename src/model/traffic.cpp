#include "model/traffic.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "model/gpu_link.h"
#include "model/quantity.h"
#include "model/spec_derivation.h"
#include "model/throughput_model.h"

namespace gpuprobe::model {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Everything about one tensor-parallel degree that does not depend on the load.
struct Replica {
  bool ok = false;
  int tp = 1;
  Job job;
  MemoryPlan plan;
  ServingCapacity serving;
  DeviceRates rates;
  GpuLink link;
};

Replica MakeReplica(const ModelShape& shape, const Job& base, const GpuSpec& gpu, int tp, std::int64_t seq) {
  Replica r;
  r.tp = tp;
  r.job = base;
  r.job.mode = JobMode::kInfer;
  r.job.tensor_parallel = tp;
  r.job.pipeline_parallel = 1;
  if (r.job.expert_parallel > 0 && r.job.expert_parallel % tp != 0) r.job.expert_parallel = 0;
  r.job.batch = 1;
  r.job.seq = seq;
  r.job.shared_prefix = 0;
  auto plan = PlanMemory(shape, r.job);
  if (!plan.ok()) return r;
  r.plan = std::move(plan.value());
  double usable = DriverUsableMemory(gpu).bytes;
  if (!CheckFit(r.plan, r.job, usable).fits) return r;
  r.serving = PlanServing(shape, r.job, r.plan, usable);
  auto rates = RatesFor(r.job, gpu);
  if (!rates.ok()) return r;
  r.rates = *rates;
  r.link = LinkForGroup(gpu, tp).link;
  r.ok = true;
  return r;
}

struct Evaluator {
  const ModelShape& shape;
  const Traffic& traffic;
  const Replica& replica;
  double eff_decode, eff_prefill;

  double Prefill() const {
    return PrefillPass(shape, replica.plan, replica.job, replica.rates, replica.link, 1,
                       static_cast<double>(traffic.prompt_tokens)).At(eff_prefill);
  }
  double Step(double n) const {
    double context = static_cast<double>(traffic.prompt_tokens) + static_cast<double>(traffic.output_tokens) / 2.0;
    return DecodeStep(shape, replica.plan, replica.job, replica.rates, replica.link, std::max(1.0, n), context)
        .At(eff_decode);
  }

  // Open load: the fixed point N = lambda O t(N) / (1 - u); infinity when it does not exist.
  ReplicaLoad Open(double lambda, int replicas) const {
    ReplicaLoad load = Base(replicas);
    load.arrival_rps = lambda * replicas;
    Fill(&load, lambda);
    return load;
  }

  // Closed loop: lambda = U / (Z + W(lambda)), found by bisection (the left side grows with
  // lambda, the right side falls).
  ReplicaLoad Closed(double users, int replicas) const {
    ReplicaLoad probe = Base(replicas);
    double hi = users / (traffic.think_seconds + Prefill() + static_cast<double>(traffic.output_tokens) * Step(1));
    double lo = 0;
    for (int i = 0; i < 50; ++i) {
      double mid = (lo + hi) / 2;
      ReplicaLoad at = probe;
      Fill(&at, mid);
      double w = at.request_seconds;
      if (std::isfinite(w) && mid < users / (traffic.think_seconds + w)) lo = mid; else hi = mid;
    }
    ReplicaLoad load = Base(replicas);
    load.arrival_rps = lo * replicas;
    Fill(&load, lo);
    return load;
  }

  ReplicaLoad Base(int replicas) const {
    ReplicaLoad load;
    load.tensor_parallel = replica.tp;
    load.replicas = replicas;
    load.gpus = replicas * replica.tp;
    load.efficiency_decode = eff_decode;
    load.efficiency_prefill = eff_prefill;
    load.max_sequences = static_cast<double>(replica.serving.max_sequences);
    load.kv_budget_bytes = replica.serving.kv_budget_bytes;
    load.prefill_seconds = Prefill();
    double n_max = std::max(1.0, load.max_sequences);
    load.replica_peak_output_tokens_per_s = n_max / Step(n_max);
    return load;
  }

  void Fill(ReplicaLoad* load, double lambda) const {
    const double O = static_cast<double>(traffic.output_tokens);
    load->arrival_rps_per_replica = lambda;
    load->output_tokens_per_s = load->arrival_rps_per_replica * O * load->replicas;
    load->prefill_share = lambda * load->prefill_seconds;
    load->request_seconds = kInf;
    if (load->prefill_share >= 1) {
      load->blocked_by = "prefill";
      return;
    }
    const double stretch = 1.0 / (1.0 - load->prefill_share);
    // N = K t(N) with K = lambda O / (1 - u): g(N) = K t(N) - N starts positive (t(0) > 0);
    // bisection finds where it crosses zero below a cap past the KV capacity. No crossing:
    // either decode cannot keep up at any batch (the slope K t'(N) stays >= 1) or the
    // crossing lies beyond what the KV cache holds.
    const double k = lambda * O * stretch;
    const double cap = 4.0 * std::max(1.0, load->max_sequences) + 16.0;
    auto g = [&](double n) { return k * Step(n) - n; };
    if (g(cap) > 0) {
      double slope = k * (Step(2 * cap) - Step(cap)) / cap;
      load->blocked_by = slope >= 1 ? "decode" : "kv_cache";
      return;
    }
    double lo = 0, hi = cap;
    for (int i = 0; i < 64; ++i) {
      double mid = (lo + hi) / 2;
      if (g(mid) > 0) lo = mid; else hi = mid;
    }
    double n = hi;
    load->decoding_sequences = n;
    load->step_seconds = Step(n);
    load->tpot_seconds = load->step_seconds * stretch;
    load->ttft_seconds = load->prefill_seconds + load->step_seconds;
    load->request_seconds = load->ttft_seconds + O * load->tpot_seconds;
    load->sequences = n + lambda * load->prefill_seconds;
    load->kv_bytes_needed = load->sequences * replica.serving.kv_bytes_per_sequence;
    if (load->sequences > load->max_sequences) {
      load->blocked_by = "kv_cache";
      return;
    }
    if (traffic.max_tpot_seconds > 0 && load->tpot_seconds > traffic.max_tpot_seconds) {
      load->blocked_by = "latency";
      return;
    }
    load->feasible = true;
    load->blocked_by.clear();
  }

  ReplicaLoad At(int replicas) const {
    if (traffic.users > 0) return Closed(traffic.users / replicas, replicas);
    return Open(traffic.requests_per_second / replicas, replicas);
  }
};

// Lower TPOT wins a tie on GPUs: the reader's latency.
bool Better(const ReplicaLoad& a, const ReplicaLoad& b) {
  if (!b.feasible) return a.feasible;
  if (!a.feasible) return false;
  if (a.gpus != b.gpus) return a.gpus < b.gpus;
  return a.tpot_seconds < b.tpot_seconds;
}

ReplicaLoad Search(const ModelShape& shape, const Traffic& traffic, const std::vector<Replica>& replicas, double eff_decode,
                   double eff_prefill) {
  ReplicaLoad best;
  best.blocked_by = "memory";
  for (const auto& replica : replicas) {
    if (!replica.ok) continue;
    Evaluator ev{shape, traffic, replica, eff_decode, eff_prefill};
    // Feasibility only improves with more replicas: double, then bisect for the fewest.
    int hi = 1;
    ReplicaLoad at = ev.At(hi);
    while (!at.feasible && hi < kMaxReplicas) {
      hi = std::min(kMaxReplicas, hi * 2);
      at = ev.At(hi);
    }
    if (!at.feasible) {
      if (!best.feasible) best = at;
      continue;
    }
    int lo = hi / 2 + 1;
    ReplicaLoad found = at;
    while (lo < hi) {
      int mid = lo + (hi - lo) / 2;
      ReplicaLoad m = ev.At(mid);
      if (m.feasible) {
        hi = mid;
        found = m;
      } else {
        lo = mid + 1;
      }
    }
    if (hi != found.replicas) found = ev.At(hi);
    if (Better(found, best)) best = found;
  }
  return best;
}

}  // namespace

core::Status ValidateTraffic(const Traffic& t) {
  const bool rate = t.requests_per_second != 0, users = t.users != 0;
  if (rate == users) {
    return core::Status::InvalidArgument("give the load as --rps R or as --users N (with --think-time S), not both or neither")
        .WithKeys("error.traffic.one_load", {});
  }
  if (rate) GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kRequestRate, t.requests_per_second, "--rps"));
  if (users) GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kUsers, t.users, "--users"));
  GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kSeconds, t.think_seconds, "--think-time"));
  if (t.max_tpot_seconds != 0) GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kSeconds, t.max_tpot_seconds, "--tpot-ms"));
  GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kTokens, static_cast<double>(t.prompt_tokens), "--prompt-tokens"));
  GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kTokens, static_cast<double>(t.output_tokens), "--output-tokens"));
  GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kTokens, static_cast<double>(t.prompt_tokens + t.output_tokens),
                                         "--prompt-tokens + --output-tokens"));
  return core::Status::Ok();
}

core::Result<TrafficPlan> SizeForTraffic(const ModelShape& shape, const Job& base, const GpuSpec& gpu,
                                         const Traffic& traffic) {
  GPUPROBE_RETURN_IF_ERROR(ValidateTraffic(traffic));
  GPUPROBE_RETURN_IF_ERROR(RatesFor(base, gpu).status());
  TrafficPlan out;
  out.traffic = traffic;
  out.seq = traffic.prompt_tokens + traffic.output_tokens;
  // Tensor parallel inside one host: powers of two dividing the heads, up to 8.
  std::vector<Replica> replicas;
  for (int tp = std::max(1, base.tensor_parallel); tp <= std::max(8, base.tensor_parallel); tp *= 2) {
    if (tp > 1 && shape.num_heads % tp != 0) continue;
    replicas.push_back(MakeReplica(shape, base, gpu, tp, out.seq));
  }
  out.high = Search(shape, traffic, replicas, kDecodeEfficiencyHigh, kPrefillEfficiencyHigh);
  out.low = Search(shape, traffic, replicas, kDecodeEfficiencyLow, kPrefillEfficiencyLow);
  return out;
}

}  // namespace gpuprobe::model
