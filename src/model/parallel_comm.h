// Communication of a job split over several GPUs, per decode step, per prefill and per
// training step (docs/plan.md, 'Multi-GPU communication'):
//   tensor parallel (Megatron): 2 all-reduces per layer forward (after attention, after the
//     MLP), 4 in training; each of tokens x h x bytes per activation; a ring all-reduce puts
//     2 (n-1)/n of the message on each GPU's link;
//   pipeline parallel: (pp - 1) point-to-point sends of tokens x h x bytes per forward;
//   expert parallel (MoE): a dispatch and a combine all-to-all per MoE layer, each GPU
//     sending its tokens x top-k x h x bytes, (ep - 1)/ep of it to other GPUs;
// each operation also pays a fixed latency (kCollectiveLatencySeconds). Time = bytes on the
// link / the link's per-direction bandwidth (model/gpu_link.h) + latency, on the critical
// path (Megatron-style TP does not overlap its all-reduces with compute).
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/gpu_link.h"
#include "model/memory_planner.h"
#include "model/model_shape.h"

namespace gpuprobe::model {

/// Time of one small collective, where latency and not bandwidth is what costs: nccl-tests
/// measured 12 us for an 8-byte all-reduce on 2 GPUs over PCIe and 35 us on 8 A100 SXM4 over
/// NVSwitch (tests/fixtures/topology/nccl-tests: autodl-2x-rtx2080ti-all_reduce.txt,
/// superbench-8x-a100-sxm4-40gb-nccl_allreduce.txt). The lower figure is used: engines with
/// their own all-reduce kernels and CUDA graphs (vLLM) get below it, so this stays a bound.
inline constexpr double kCollectiveLatencySeconds = 12e-6;

struct CommTerm {
  std::string id;            ///< "tp_allreduce", "pp_send", "ep_alltoall"
  double operations = 0;     ///< on the critical path per step
  double message_bytes = 0;  ///< per operation, per GPU
  double link_bytes = 0;     ///< per GPU per step, the algorithm's factor applied
  double seconds = 0;        ///< per step: operations x latency + link bytes / bandwidth
};

struct CommEstimate {
  double seconds = 0;            ///< sum of the terms
  std::vector<CommTerm> terms;   ///< one per kind of parallelism in use
};

struct CommPlan {
  int gpus = 1;                  ///< GPUs of the split (max(tp, ep) x pp)
  GroupLink link;                ///< what they talk over
  bool link_unknown = false;     ///< the spec gives no bandwidth for any link: terms are 0
  CommEstimate decode;           ///< per decode step (job.batch tokens)
  CommEstimate prefill;          ///< per prefill of job.batch x job.seq tokens
  CommEstimate training;         ///< per training step of job.batch x job.seq tokens
};

/// Communication for `tokens` flowing through the model once (forward; with `training` also
/// backward) over `link`.
CommEstimate CommForTokens(const ModelShape& shape, const Job& job, const GpuLink& link, double tokens, bool training);

/// The job's communication on GPUs of kind `gpu`, over the link LinkForGroup picks, or over
/// `link_override` (to compare: the same split over PCIe). Empty terms for one GPU.
CommPlan PlanCommunication(const ModelShape& shape, const Job& job, const GpuSpec& gpu,
                           std::optional<GpuLink> link_override = std::nullopt);

}  // namespace gpuprobe::model
