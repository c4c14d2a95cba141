// From traffic to hardware: how many GPUs a request rate needs, by Little's law over the
// planner's own memory and speed figures (docs/plan.md, 'From traffic to GPUs').
//
// One replica = `tp` GPUs serving with continuous batching. At an arrival rate lambda per
// replica, each request a prompt of P tokens and an answer of O tokens:
//   prefill share   u = lambda x t_prefill(P)          (compute-bound; the GPU's time on prompts)
//   decoding seqs   N = lambda x O x TPOT              (Little's law: L = lambda W)
//   TPOT            = t_step(N) / (1 - u)              (a decode step of N sequences at context
//                                                       P + O/2, stretched by the prefill share)
// solved as a fixed point in N; the replica is feasible when u < 1, the fixed point exists,
// and N plus the prompts being prefilled fit the KV budget (each sequence holding P + O
// tokens in 16-token blocks, as vLLM allocates them). With --users U and think time Z
// (a closed loop), lambda = U / (Z + W) with W = TTFT + O x TPOT, solved by bisection.
// The search takes the fewest GPUs (replicas x tp) that are feasible, at both ends of the
// stated efficiency ranges (decode 50-90% of the bandwidth bound, prefill 20-60% of peak).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>

#include "core/status.h"
#include "model/memory_planner.h"
#include "model/phrase.h"
#include "model/spec_database.h"

namespace gpuprobe::model {

struct Traffic {
  double requests_per_second = 0;  ///< open load (--rps); 0 when users are given
  double users = 0;                ///< closed load (--users); 0 when a rate is given
  double think_seconds = 0;        ///< a user's pause between an answer and the next request
  std::int64_t prompt_tokens = 0;  ///< P
  std::int64_t output_tokens = 0;  ///< O
  double max_tpot_seconds = 0;     ///< optional latency target (--tpot-ms): 0 = none
};

/// Checks the traffic's numbers (model/quantity.h): exactly one of rate and users, positive
/// token counts. InvalidArgument naming the flag.
core::Status ValidateTraffic(const Traffic& traffic);

/// One configuration (replicas x tp GPUs) under the traffic, at one pair of efficiencies.
struct ReplicaLoad {
  bool feasible = false;
  std::string blocked_by;            ///< when not: "memory" (weights), "kv_cache", "prefill", "decode", "latency"
  int tensor_parallel = 1;
  int replicas = 0;
  int gpus = 0;                      ///< replicas x tensor_parallel
  double efficiency_decode = 0, efficiency_prefill = 0;
  double arrival_rps = 0;            ///< the whole service (closed loop: the rate it settles at)
  double arrival_rps_per_replica = 0;
  double prefill_seconds = 0;        ///< one prompt on one replica
  double prefill_share = 0;          ///< u: the share of a replica's time spent on prompts
  double decoding_sequences = 0;     ///< N per replica
  double sequences = 0;              ///< N plus prompts being prefilled, per replica
  double max_sequences = 0;          ///< what the KV budget holds, per replica
  double kv_bytes_needed = 0;        ///< per GPU
  double kv_budget_bytes = 0;        ///< per GPU
  double step_seconds = 0;           ///< one decode step of N sequences
  double tpot_seconds = 0;           ///< time per output token seen by one request (p50)
  double ttft_seconds = 0;           ///< time to first token: one prefill plus one step, no queueing
  double request_seconds = 0;        ///< TTFT + O x TPOT
  double output_tokens_per_s = 0;    ///< lambda x O, the whole service
  double replica_peak_output_tokens_per_s = 0;  ///< one replica decoding its KV-limited maximum batch
};

struct TrafficPlan {
  Traffic traffic;
  std::int64_t seq = 0;   ///< P + O: the sequence each request holds
  ReplicaLoad high;       ///< at the high end of the efficiency ranges
  ReplicaLoad low;        ///< at the low end: the count to plan for
};

/// Sizes `traffic` on GPUs of kind `gpu` for the model and the base job (its dtypes; batch and
/// sequence are set from the traffic). InvalidArgument for bad traffic; Unavailable when the
/// spec lacks the figures. A plan whose loads are not feasible (no configuration up to 4096
/// replicas x 8 GPUs) says why in blocked_by.
core::Result<TrafficPlan> SizeForTraffic(const ModelShape& shape, const Job& base, const GpuSpec& gpu,
                                         const Traffic& traffic);

/// The largest number of replicas the search considers.
inline constexpr int kMaxReplicas = 4096;

}  // namespace gpuprobe::model
