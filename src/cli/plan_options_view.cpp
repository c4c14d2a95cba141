// When it does not fit: the ways to make it fit. From traffic to GPUs. What it costs.
#include <algorithm>

#include <fmt/format.h>

#include "cli/command.h"
#include "report/phrase_text.h"
#include "cli/plan_view.h"
#include "core/units.h"

namespace gpuprobe::cli {
namespace {

std::string Dollars(const report::Texts& t, double usd) {
  return FormatArg(t, model::PhraseArg{"", model::ArgKind::kDollars, usd, {}, nullptr});
}

std::string Tokens(const report::Texts& t, double per_second) {
  return FormatArg(t, model::PhraseArg{"", model::ArgKind::kTokensPerSecond, per_second, {}, nullptr});
}

std::string PriceSource(const report::Texts& t, const model::GpuPrice& p) {
  if (p.user_given) return t.Get("plan.price.given");
  return Tr(t, "plan.price.table", fmt::arg("provider", p.provider), fmt::arg("date", p.date), fmt::arg("url", p.source_url));
}

}  // namespace

std::string RenderOptions(const PlanReport& r, const report::Texts& t) {
  std::string out;
  const auto& fit = r.fits.front().fit;
  // With a serving engine that refuses for its KV cache, its budget is the verdict and its
  // section said why; weights that do not fit are said in memory terms.
  const bool engine_kv = r.engine && (r.engine->budget.failure == "max_len_exceeds_kv" || r.engine->budget.failure == "no_kv_memory");
  out += "\n" + (engine_kv ? Tr(t, "plan.no_fit_engine", fmt::arg("gpu", GpuNameText(r.gpu->name, t)), fmt::arg("engine", r.fit_engine))
                          : Tr(t, "plan.no_fit", fmt::arg("gpu", GpuNameText(r.gpu->name, t)),
                               fmt::arg("total", core::FormatBytesBinary(r.memory.total_bytes)),
                               fmt::arg("usable", core::FormatBytesBinary(fit.usable_bytes)))) +
         "\n";
  out += "  " + t.Get("plan.no_fit.no_speed") + "\n";
  if (r.options.empty()) return out + "  " + t.Get("plan.options.none") + "\n";
  out += "\n" + t.Get("plan.options") + "\n";
  int n = 1;
  bool shown_misses = false;
  for (const auto& o : r.options) {
    if (!o.fit.fits && !shown_misses) {
      out += "  " + t.Get("plan.options.misses") + "\n";
      shown_misses = true;
    }
    // With a serving engine the verdict is its KV budget, so the line says that budget.
    std::string memory = o.engine_kv_request_bytes > 0
                             ? Tr(t, "plan.options.engine_memory", fmt::arg("left", core::FormatBytesBinary(std::max(0.0, o.engine_kv_left_bytes))),
                                  fmt::arg("need", core::FormatBytesBinary(o.engine_kv_request_bytes)),
                                  fmt::arg("seq", core::FormatInteger(static_cast<std::uint64_t>(o.job.seq))), fmt::arg("gpu", GpuNameText(o.gpu->name, t)))
                             : Tr(t, "plan.options.memory", fmt::arg("total", core::FormatBytesBinary(o.plan.total_bytes)),
                                  fmt::arg("usable", core::FormatBytesBinary(o.fit.usable_bytes)), fmt::arg("gpu", GpuNameText(o.gpu->name, t)));
    if (o.engine_kv_log_correction_bytes != 0 && o.engine_kv_request_bytes > 0) {
      // Corrected by the engine's own log (--from-log): say by how much, so the figure can be
      // traced to the log's table above.
      memory = Tr(t, o.engine_kv_log_correction_bytes > 0 ? "plan.options.log_corrected_less" : "plan.options.log_corrected_more",
                  fmt::arg("memory", memory), fmt::arg("bytes", core::FormatBytesBinary(std::fabs(o.engine_kv_log_correction_bytes))));
    }
    std::string verdict = o.fit.fits ? Tr(t, "plan.options.fits", fmt::arg("gpus", o.gpus)) : t.Get("plan.options.no");
    out += fmt::format("  {}. {}\n", n++, Say(t, o.change));
    out += "       " + Tr(t, "plan.options.memory_line", fmt::arg("memory", memory), fmt::arg("verdict", verdict)) + "\n";
    if (o.throughput && o.throughput->has_training) {
      // A training option in training's words: tokens trained per second, communication per step.
      std::string speed = Tr(t, "plan.options.speed_training", fmt::arg("training", Tokens(t, o.throughput->training.bound)));
      if (o.throughput->comm.gpus > 1) {
        speed = Tr(t, "plan.options.speed_comm", fmt::arg("speed", speed),
                   fmt::arg("comm", Tr(t, "plan.options.comm_training", fmt::arg("comm", core::FormatSeconds(o.throughput->comm.training.seconds)),
                                       fmt::arg("link", Say(t, model::LinkName(*o.gpu, o.throughput->comm.link.link))))));
      }
      out += "       " + speed + "\n";
    } else if (o.throughput) {
      std::string speed = Tr(t, "plan.options.speed", fmt::arg("decode", Tokens(t, o.throughput->decode_per_stream.bound)),
                             fmt::arg("prefill", Tokens(t, o.throughput->prefill.bound)));
      if (o.throughput->comm.gpus > 1) {
        speed = Tr(t, "plan.options.speed_comm", fmt::arg("speed", speed),
                   fmt::arg("comm", Tr(t, "plan.options.comm", fmt::arg("comm", core::FormatSeconds(o.throughput->comm.decode.seconds)),
                                       fmt::arg("link", Say(t, model::LinkName(*o.gpu, o.throughput->comm.link.link))))));
      }
      out += "       " + speed + "\n";
    }
    if (o.price != nullptr && o.fit.fits) {
      out += "       " + Tr(t, "plan.options.money", fmt::arg("gpus", o.gpus), fmt::arg("usd", Dollars(t, o.price->usd_per_hour)),
                            fmt::arg("total", Dollars(t, o.price->usd_per_hour * o.gpus)), fmt::arg("source", PriceSource(t, *o.price))) + "\n";
    }
    out += "       " + Tr(t, "plan.options.cost", fmt::arg("cost", Say(t, o.cost))) + "\n";
  }
  out += "  " + t.Get("plan.options.footer") + "\n";
  return out;
}

std::string RenderTraffic(const PlanReport& r, const report::Texts& t) {
  const model::TrafficPlan& tr = *r.traffic;
  const model::Traffic& in = tr.traffic;
  std::string out = "\n";
  if (in.users > 0) {
    out += Tr(t, "plan.traffic.title_users", fmt::arg("users", in.users), fmt::arg("think", core::FormatSeconds(in.think_seconds)),
              fmt::arg("prompt", in.prompt_tokens), fmt::arg("output", in.output_tokens), fmt::arg("gpu", GpuNameText(r.gpu->name, t))) + "\n";
  } else {
    out += Tr(t, "plan.traffic.title", fmt::arg("rps", core::FormatSignificant(in.requests_per_second)),
              fmt::arg("prompt", in.prompt_tokens), fmt::arg("output", in.output_tokens), fmt::arg("gpu", GpuNameText(r.gpu->name, t))) + "\n";
  }
  out += "  " + t.Get("plan.traffic.formulas") + "\n";
  for (const model::ReplicaLoad* load : {&tr.low, &tr.high}) {
    const bool low = load == &tr.low;
    std::string which = Tr(t, low ? "plan.traffic.at_low" : "plan.traffic.at_high",
                           fmt::arg("decode", static_cast<int>(load->efficiency_decode * 100)),
                           fmt::arg("prefill", static_cast<int>(load->efficiency_prefill * 100)));
    if (!load->feasible) {
      out += "  " + Tr(t, "plan.traffic.line", fmt::arg("which", which),
                       fmt::arg("answer", Tr(t, "plan.traffic.infeasible", fmt::arg("why", t.Get("plan.traffic.blocked." + load->blocked_by)),
                                             fmt::arg("max", model::kMaxReplicas)))) + "\n";
      continue;
    }
    out += "  " + Tr(t, "plan.traffic.line", fmt::arg("which", which),
                     fmt::arg("answer", Tr(t, "plan.traffic.answer", fmt::arg("gpus", load->gpus), fmt::arg("gpu", GpuNameText(r.gpu->name, t)),
                                           fmt::arg("replicas", load->replicas), fmt::arg("tp", load->tensor_parallel)))) + "\n";
    out += "      " + Tr(t, "plan.traffic.little", fmt::arg("rps", core::FormatSignificant(load->arrival_rps_per_replica)),
                         fmt::arg("output", in.output_tokens), fmt::arg("tpot", core::FormatSeconds(load->tpot_seconds)),
                         fmt::arg("n", core::FormatSignificant(load->decoding_sequences)),
                         fmt::arg("seqs", core::FormatSignificant(load->sequences)),
                         fmt::arg("max", core::FormatSignificant(load->max_sequences))) + "\n";
    out += "      " + Tr(t, "plan.traffic.kv", fmt::arg("kv", core::FormatBytesBinary(load->kv_bytes_needed)),
                         fmt::arg("budget", core::FormatBytesBinary(load->kv_budget_bytes)), fmt::arg("seq", tr.seq)) + "\n";
    out += "      " + Tr(t, "plan.traffic.decode", fmt::arg("needed", Tokens(t, load->output_tokens_per_s)),
                         fmt::arg("per_replica", Tokens(t, load->output_tokens_per_s / load->replicas)),
                         fmt::arg("peak", Tokens(t, load->replica_peak_output_tokens_per_s)),
                         fmt::arg("step", core::FormatSeconds(load->step_seconds))) + "\n";
    out += "      " + Tr(t, "plan.traffic.prefill", fmt::arg("prefill", core::FormatSeconds(load->prefill_seconds)),
                         fmt::arg("share", fmt::format("{:.0f}%", load->prefill_share * 100))) + "\n";
    out += "      " + Tr(t, "plan.traffic.latency", fmt::arg("tpot", core::FormatSeconds(load->tpot_seconds)),
                         fmt::arg("ttft", core::FormatSeconds(load->ttft_seconds)),
                         fmt::arg("request", core::FormatSeconds(load->request_seconds))) + "\n";
    if (in.users > 0) {
      out += "      " + Tr(t, "plan.traffic.settles", fmt::arg("rps", core::FormatSignificant(load->arrival_rps))) + "\n";
    }
    if (r.gpu_price != nullptr && load->output_tokens_per_s > 0) {
      double usd = model::UsdPerMillionTokens(r.gpu_price->usd_per_hour, load->gpus, load->output_tokens_per_s);
      out += "      " + Tr(t, "plan.traffic.cost", fmt::arg("gpus", load->gpus), fmt::arg("usd", Dollars(t, r.gpu_price->usd_per_hour)),
                           fmt::arg("hour", Dollars(t, r.gpu_price->usd_per_hour * load->gpus)),
                           fmt::arg("million", Dollars(t, usd)), fmt::arg("source", PriceSource(t, *r.gpu_price))) + "\n";
    }
    if (low && r.rental) out += RenderRentalLines(*r.rental, t);
  }
  if (r.gpu_price == nullptr) out += "  " + Tr(t, "plan.price.none", fmt::arg("gpu", GpuNameText(r.gpu->name, t))) + "\n";
  out += "  " + t.Get("plan.traffic.assumes") + "\n";
  return out;
}

std::string RenderCost(const PlanReport& r, const report::Texts& t) {
  if (!r.cost) {
    if (r.gpu_price == nullptr && !r.traffic) return "\n" + Tr(t, "plan.price.none", fmt::arg("gpu", GpuNameText(r.gpu->name, t))) + "\n";
    return {};
  }
  const PlanCost& c = *r.cost;
  std::string out = "\n" + Tr(t, "plan.cost.title", fmt::arg("gpus", c.gpus), fmt::arg("gpu", GpuNameText(r.gpu->name, t)),
                              fmt::arg("usd", Dollars(t, c.price->usd_per_hour)), fmt::arg("source", PriceSource(t, *c.price))) + "\n";
  if (r.job.mode == model::JobMode::kInfer) {
    out += "  " + Tr(t, "plan.cost.inference", fmt::arg("n", c.sequences), fmt::arg("bound", Tokens(t, c.tokens_per_s_bound)),
                     fmt::arg("low", Tokens(t, c.tokens_per_s_low)), fmt::arg("best", Dollars(t, c.usd_per_million_bound)),
                     fmt::arg("budget", Dollars(t, c.usd_per_million_low))) + "\n";
    out += "  " + t.Get("plan.cost.inference_note") + "\n";
  } else {
    out += "  " + Tr(t, "plan.cost.training", fmt::arg("bound", Tokens(t, c.tokens_per_s_bound)),
                     fmt::arg("low", Tokens(t, c.tokens_per_s_low)), fmt::arg("best", Dollars(t, c.usd_per_million_bound)),
                     fmt::arg("budget", Dollars(t, c.usd_per_million_low))) + "\n";
    if (c.train_tokens > 0) {
      double hours_best = c.train_tokens / c.tokens_per_s_bound / 3600, hours_low = c.train_tokens / c.tokens_per_s_low / 3600;
      out += "  " + Tr(t, "plan.cost.run", fmt::arg("tokens", FormatParams(t, c.train_tokens)),
                       fmt::arg("best_time", core::FormatSeconds(hours_best * 3600)),
                       fmt::arg("low_time", core::FormatSeconds(hours_low * 3600)),
                       fmt::arg("best", Dollars(t, hours_best * c.gpus * c.price->usd_per_hour)),
                       fmt::arg("budget", Dollars(t, hours_low * c.gpus * c.price->usd_per_hour))) + "\n";
    }
  }
  return out;
}

}  // namespace gpuprobe::cli
