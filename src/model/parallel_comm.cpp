#include "model/parallel_comm.h"

#include <algorithm>

namespace gpuprobe::model {
namespace {

double ActivationBytes(const Job& job) { return job.weight_dtype == DType::kFp32 ? 4.0 : 2.0; }

double MoeLayers(const ModelShape& s) {
  if (s.layers.empty()) return s.num_experts > 0 ? static_cast<double>(s.num_layers) : 0.0;
  double n = 0;
  for (const auto& l : s.layers) n += l.experts > 0 ? 1 : 0;
  return n;
}

CommTerm Term(const std::string& id, double operations, double message, double factor, double bandwidth) {
  CommTerm t;
  t.id = id;
  t.operations = operations;
  t.message_bytes = message;
  t.link_bytes = operations * message * factor;
  t.seconds = operations * kCollectiveLatencySeconds + (bandwidth > 0 ? t.link_bytes / bandwidth : 0);
  return t;
}

}  // namespace

CommEstimate CommForTokens(const ModelShape& shape, const Job& job, const GpuLink& link, double tokens, bool training) {
  CommEstimate out;
  const double h = static_cast<double>(shape.hidden_size);
  const double L = static_cast<double>(shape.num_layers);
  const double e = ActivationBytes(job);
  const double passes = training ? 2.0 : 1.0;  // forward, and backward in training
  const double bw = link.bytes_per_s;
  const int tp = job.tensor_parallel, pp = job.pipeline_parallel, ep = job.expert_parallel;
  if (tp > 1) {
    const double n = static_cast<double>(tp);
    out.terms.push_back(Term("tp_allreduce", 2.0 * L * passes, tokens * h * e, 2.0 * (n - 1) / n, bw));
  }
  if (ep > 1) {
    const double n = static_cast<double>(ep);
    // EP spans the TP x DP GPUs: each GPU routes its own share of the tokens.
    const double tokens_per_gpu = tokens * static_cast<double>(tp) / n;
    const double k = static_cast<double>(std::max<std::int64_t>(shape.experts_per_token, 1));
    out.terms.push_back(Term("ep_alltoall", 2.0 * MoeLayers(shape) * passes, tokens_per_gpu * k * h * e, (n - 1) / n, bw));
  }
  if (pp > 1) {
    out.terms.push_back(Term("pp_send", static_cast<double>(pp - 1) * passes, tokens * h * e, 1.0, bw));
  }
  for (const auto& t : out.terms) out.seconds += t.seconds;
  return out;
}

CommPlan PlanCommunication(const ModelShape& shape, const Job& job, const GpuSpec& gpu,
                           std::optional<GpuLink> link_override) {
  CommPlan plan;
  plan.gpus = GpusOfSplit(job);
  plan.link = LinkForGroup(gpu, plan.gpus);
  if (link_override) {
    plan.link = GroupLink{};
    plan.link.link = *link_override;
  }
  if (plan.gpus <= 1) return plan;
  plan.link_unknown = plan.link.link.bytes_per_s <= 0;
  const double b = static_cast<double>(job.batch), s = static_cast<double>(job.seq);
  plan.decode = CommForTokens(shape, job, plan.link.link, b, false);
  plan.prefill = CommForTokens(shape, job, plan.link.link, b * s, false);
  plan.training = CommForTokens(shape, job, plan.link.link, b * s, true);
  return plan;
}

}  // namespace gpuprobe::model
