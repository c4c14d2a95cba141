// Capacity, serving concurrency, speed and multi-GPU communication of a plan that fits.
#include <fmt/format.h>

#include "cli/command.h"
#include "report/phrase_text.h"
#include "cli/plan_view.h"
#include "core/units.h"

namespace gpuprobe::cli {
namespace {

std::string Tokens(double per_second) {
  if (per_second >= 1e4) return fmt::format("{:.0f}", per_second);
  return core::FormatSignificant(per_second);
}

std::string BoundKey(const std::string& limited_by) {
  return limited_by == "compute" ? "plan.bound.compute" : "plan.bound.memory_bandwidth";
}

std::string RateLine(const report::Texts& t, const model::RateEstimate& r) {
  return Tr(t, "plan.throughput.rate", fmt::arg("bound", Tokens(r.bound)), fmt::arg("low", Tokens(r.low)),
            fmt::arg("high", Tokens(r.high)), fmt::arg("elow", static_cast<int>(r.efficiency_low * 100)),
            fmt::arg("ehigh", static_cast<int>(r.efficiency_high * 100)), fmt::arg("limit", t.Get(BoundKey(r.limited_by))));
}

std::string Share(double part, double whole) {
  return whole > 0 ? fmt::format("{:.0f}%", 100.0 * part / whole) : "-";
}

// The terms of one communication estimate, one line each.
std::string Terms(const report::Texts& t, const model::CommEstimate& comm) {
  std::string out;
  for (const auto& term : comm.terms) {
    out += "      " + Tr(t, "plan.comm.term." + term.id, fmt::arg("ops", core::FormatInteger(static_cast<std::uint64_t>(term.operations))),
                         fmt::arg("message", core::FormatBytesBinary(term.message_bytes)),
                         fmt::arg("link_bytes", core::FormatBytesBinary(term.link_bytes)),
                         fmt::arg("time", core::FormatSeconds(term.seconds))) + "\n";
  }
  return out;
}

std::string RenderComm(const PlanReport& r, const report::Texts& t) {
  const model::ThroughputPlan& tp = *r.throughput;
  const model::CommPlan& comm = tp.comm;
  if (comm.gpus <= 1) return {};
  std::string out;
  const model::GpuLink& link = comm.link.link;
  out += "\n" + Tr(t, "plan.comm.title", fmt::arg("gpus", comm.gpus), fmt::arg("link", Say(t, model::LinkName(*r.gpu, link))),
                   fmt::arg("bandwidth", core::FormatBytesPerSecond(link.bytes_per_s))) + "\n";
  if (comm.link.fell_back_to_pcie) out += "  " + t.Get("plan.comm.fallback") + "\n";
  if (comm.link.beyond_domain) out += "  " + Tr(t, "plan.comm.beyond_domain", fmt::arg("max", model::PeerLink(*r.gpu).max_gpus)) + "\n";
  if (comm.link_unknown) out += "  " + t.Get("plan.comm.unknown") + "\n";
  if (tp.has_training) {
    // Training's own words: the step's communication, judged against the step at mid MFU.
    out += "  " + Tr(t, "plan.comm.training", fmt::arg("time", core::FormatSeconds(comm.training.seconds)),
                     fmt::arg("share", Share(comm.training.seconds, tp.training_step.At(1.0))),
                     fmt::arg("compute", core::FormatSeconds(tp.training_step.compute_seconds))) + "\n";
    out += Terms(t, comm.training);
    const double mfu = (model::kMfuLow + model::kMfuHigh) / 2;
    const double step = tp.training_step.At(mfu);
    const double share = step > 0 ? comm.training.seconds / step : 0;
    std::string verdict = share < 0.1 ? "plan.comm.verdict_training.small"
                          : share < 0.3 ? "plan.comm.verdict_training.noticeable" : "plan.comm.verdict_training.dominant";
    out += "  " + Tr(t, verdict, fmt::arg("share", Share(comm.training.seconds, step)), fmt::arg("eff", static_cast<int>(mfu * 100))) + "\n";
    out += "  " + Tr(t, "plan.comm.assumes", fmt::arg("latency", core::FormatSeconds(model::kCollectiveLatencySeconds))) + "\n";
    return out;
  }
  const double decode_step = tp.decode_step.At(1.0), prefill = tp.prefill_pass.At(1.0);
  out += "  " + Tr(t, "plan.comm.decode", fmt::arg("time", core::FormatSeconds(comm.decode.seconds)),
                   fmt::arg("share", Share(comm.decode.seconds, decode_step)),
                   fmt::arg("memory", core::FormatSeconds(tp.decode_step.memory_seconds)),
                   fmt::arg("compute", core::FormatSeconds(tp.decode_step.compute_seconds))) + "\n";
  out += Terms(t, comm.decode);
  out += "  " + Tr(t, "plan.comm.prefill", fmt::arg("tokens", r.job.batch * r.job.seq),
                   fmt::arg("time", core::FormatSeconds(comm.prefill.seconds)), fmt::arg("share", Share(comm.prefill.seconds, prefill)),
                   fmt::arg("compute", core::FormatSeconds(tp.prefill_pass.compute_seconds))) + "\n";
  out += Terms(t, comm.prefill);
  if (tp.comm_over_pcie) {
    const model::CommPlan& pcie = *tp.comm_over_pcie;
    auto step_with = [](const model::StepTimes& s, double comm_seconds) {
      return std::max(s.memory_seconds, s.compute_seconds) + comm_seconds;
    };
    double pcie_decode = step_with(tp.decode_step, pcie.decode.seconds);
    double pcie_prefill = step_with(tp.prefill_pass, pcie.prefill.seconds);
    out += "  " + Tr(t, "plan.comm.pcie", fmt::arg("link", Say(t, model::LinkName(*r.gpu, pcie.link.link))),
                     fmt::arg("bandwidth", core::FormatBytesPerSecond(pcie.link.link.bytes_per_s)),
                     fmt::arg("decode", core::FormatSeconds(pcie.decode.seconds)), fmt::arg("decode_share", Share(pcie.decode.seconds, pcie_decode)),
                     fmt::arg("prefill", core::FormatSeconds(pcie.prefill.seconds)),
                     fmt::arg("prefill_share", Share(pcie.prefill.seconds, pcie_prefill)),
                     fmt::arg("slowdown", fmt::format("{:.1f}", pcie_prefill / prefill))) + "\n";
  }
  // The verdict: communication's share of the prefill (the pass where bandwidth matters most),
  // with compute at the middle of its efficiency range: against compute at 100% of peak the
  // link would look worse than it is.
  const double mid = (model::kPrefillEfficiencyLow + model::kPrefillEfficiencyHigh) / 2;
  const double real_prefill = tp.prefill_pass.At(mid);
  double share = real_prefill > 0 ? comm.prefill.seconds / real_prefill : 0;
  std::string verdict = share < 0.1 ? "plan.comm.verdict.small" : share < 0.3 ? "plan.comm.verdict.noticeable" : "plan.comm.verdict.dominant";
  out += "  " + Tr(t, verdict, fmt::arg("share", Share(comm.prefill.seconds, real_prefill)),
                   fmt::arg("eff", static_cast<int>(mid * 100))) + "\n";
  out += "  " + Tr(t, "plan.comm.assumes", fmt::arg("latency", core::FormatSeconds(model::kCollectiveLatencySeconds))) + "\n";
  return out;
}

}  // namespace

std::string RenderSpeed(const PlanReport& r, const report::Texts& t) {
  std::string out;
  const auto& j = r.job;
  const auto& s = r.shape;
  if (r.engine && !r.fits.empty()) {
    // With a serving engine its budget is the verdict: the same figures as the fit table and
    // the engine section above (the memory table's total is the model's own estimate).
    const model::EngineBudget& b = r.engine->budget;
    out += "\n" + Tr(t, "plan.fits_on_engine", fmt::arg("gpu", GpuNameText(r.gpu->name, t)), fmt::arg("engine", r.fit_engine),
                     fmt::arg("kv", core::FormatBytesBinary(std::max(0.0, b.kv_cache_bytes))),
                     fmt::arg("need", core::FormatBytesBinary(static_cast<double>(j.batch) * b.kv_bytes_per_request)),
                     fmt::arg("free", core::FormatBytesBinary(std::max(0.0, r.fits.front().fit.free_after_bytes)))) + "\n";
  } else {
    out += "\n" + Tr(t, "plan.fits_on", fmt::arg("gpu", GpuNameText(r.gpu->name, t)), fmt::arg("total", core::FormatBytesBinary(r.memory.total_bytes)),
                     fmt::arg("usable", core::FormatBytesBinary(r.fits.front().fit.usable_bytes))) + "\n";
  }
  if (r.capacity) {
    out += "\n" + Tr(t, "plan.capacity", fmt::arg("gpu", GpuNameText(r.gpu->name, t))) + "\n";
    out += "  " + Tr(t, "plan.capacity.batch", fmt::arg("batch", r.capacity->max_batch_at_seq), fmt::arg("seq", j.seq)) + "\n";
    out += "  " + Tr(t, "plan.capacity.seq", fmt::arg("seq", r.capacity->max_seq_at_batch), fmt::arg("batch", j.batch)) + "\n";
    if (s.max_position_embeddings > 0 && r.capacity->max_seq_at_batch > s.max_position_embeddings) {
      out += "  " + Tr(t, "plan.capacity.max_positions", fmt::arg("max", s.max_position_embeddings)) + "\n";
    }
  }
  if (r.serving) {
    const auto& v = *r.serving;
    out += "\n" + Tr(t, "plan.serving", fmt::arg("gpu", GpuNameText(r.gpu->name, t))) + "\n";
    out += "  " + Tr(t, "plan.serving.budget", fmt::arg("budget", core::FormatBytesBinary(std::max(0.0, v.kv_budget_bytes))),
                     fmt::arg("per_seq", core::FormatBytesBinary(v.kv_bytes_per_sequence)), fmt::arg("seq", j.seq),
                     fmt::arg("block", v.block_tokens)) + "\n";
    out += "  " + Tr(t, "plan.serving.concurrency", fmt::arg("n", v.max_sequences), fmt::arg("seq", j.seq),
                     fmt::arg("x", fmt::format("{:.2f}", v.concurrency))) + "\n";
    if (j.shared_prefix > 0) {
      out += "  " + Tr(t, "plan.serving.prefix", fmt::arg("n", v.max_sequences_shared_prefix),
                       fmt::arg("prefix", j.shared_prefix)) + "\n";
    } else {
      out += "  " + t.Get("plan.serving.prefix_hint") + "\n";
    }
  }
  if (r.throughput && r.throughput->has_training) {
    out += RenderTrainingSpeed(r, t) + RenderComm(r, t);
  } else if (r.throughput) {
    const auto& tp = *r.throughput;
    out += "\n" + Tr(t, "plan.throughput", fmt::arg("gpu", GpuNameText(r.gpu->name, t)), fmt::arg("tp", model::GpusOfSplit(j))) + "\n";
    out += "  " + t.Get("plan.throughput.decode") + " " + RateLine(t, tp.decode_per_stream) + "\n";
    out += "      " + Say(t, tp.decode_per_stream.basis) + "\n";
    if (j.batch > 1) {
      out += "  " + t.Get("plan.throughput.decode_batch") + " " + RateLine(t, tp.decode_aggregate) + "\n";
    }
    out += "  " + t.Get("plan.throughput.prefill") + " " + RateLine(t, tp.prefill) + "\n";
    out += "      " + Say(t, tp.prefill.basis) + "\n";
    out += "  " + t.Get("plan.throughput.assumes") + "\n";
    out += "      " + Say(t, tp.decode_per_stream.assumes) + "\n      " + Say(t, tp.prefill.assumes) + "\n";
    out += RenderComm(r, t);
  }
  return out;
}

}  // namespace gpuprobe::cli
