// The rental answer (app/plan_rental.h): the sweep over every priced GPU, the same figures
// under `plan --gpu X --rps ...`'s traffic section, and their JSON.
#include <algorithm>
#include <cmath>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/plan_view.h"
#include "cli/price_json.h"
#include "core/units.h"
#include "report/count_text.h"
#include "report/phrase_text.h"
#include "report/table.h"

namespace gpuprobe::cli {
namespace {

// A GPU that is not NVIDIA's runs the engines' ROCm (or other) builds, not their CUDA ones.
bool NotCuda(const app::RentalFigures& r) { return r.gpu != nullptr && r.gpu->vendor != "NVIDIA"; }

using nlohmann::json;

std::string Usd(const report::Texts& t, double usd) {
  return FormatArg(t, model::PhraseArg{"", model::ArgKind::kDollars, usd, {}, nullptr});
}

std::string Time(const report::Texts& t, double seconds) {
  if (!std::isfinite(seconds)) return t.Get("plan.rental.unbounded");
  return report::FormatSecondsFor(t.language(), seconds);
}

std::string Percent(double fraction) { return fmt::format("{:.0f}%", fraction * 100); }

std::string GpusCell(const report::Texts& t, const app::RentalFigures& r) {
  return Tr(t, "plan.rental.gpus_cell", fmt::arg("gpus", r.load.gpus), fmt::arg("replicas", r.load.replicas),
            fmt::arg("tp", r.load.tensor_parallel));
}

std::string Reason(const report::Texts& t, const app::RentalFigures& r) {
  if (r.blocked_by == "spec") return t.Get("plan.rental.blocked.spec");
  return t.Get("plan.traffic.blocked." + r.blocked_by);
}

json Number(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

json WaitJson(const model::QueueWait& w) {
  return {{"servers", w.servers}, {"offered_load", w.offered_load}, {"utilisation", w.utilisation},
          {"wait_probability", w.wait_probability}, {"p99_wait_seconds", Number(w.p99_wait_seconds)}, {"stable", w.stable}};
}

}  // namespace

json RentalJson(const app::RentalFigures& r) {
  json out = {{"gpu", r.gpu->name}, {"feasible", r.load.feasible}, {"weight_dtype", r.weight_dtype},
              {"fp16_for_gpu", r.fp16_for_gpu}, {"price", PriceJson(r.price)}};
  if (!r.load.feasible) {
    out["blocked_by"] = r.blocked_by;
    return out;
  }
  const auto& h = r.headroom;
  out.update({{"gpus", r.load.gpus}, {"replicas", r.load.replicas}, {"tensor_parallel", r.load.tensor_parallel},
              {"efficiency_decode", r.load.efficiency_decode}, {"efficiency_prefill", r.load.efficiency_prefill},
              {"ttft_seconds", r.load.ttft_seconds}, {"tpot_seconds", r.load.tpot_seconds},
              {"tokens_per_s", r.tokens_per_s}, {"output_tokens_per_s", r.output_tokens_per_s},
              {"queueing", {{"model", "M/M/c per replica (Erlang C)"}, {"prefill", WaitJson(h.prefill)},
                            {"kv_slots", WaitJson(h.slots)}, {"utilisation", h.utilisation},
                            {"p99_wait_seconds", Number(h.p99_wait_seconds)}}},
              {"n_plus_one", {{"replicas", h.n_plus_one_replicas}, {"gpus", h.n_plus_one_gpus}}}});
  if (r.price != nullptr) {
    out["usd_per_hour"] = r.usd_per_hour;
    out["usd_per_million_tokens"] = r.usd_per_million_tokens;
    out["usd_per_million_output_tokens"] = r.usd_per_million_output_tokens;
    out["n_plus_one"]["usd_per_hour"] = r.n_plus_one_usd_per_hour;
    out["n_plus_one"]["usd_per_million_tokens"] = r.n_plus_one_usd_per_million_tokens;
  }
  return out;
}

json RentalSweepJson(const app::RentalSweep& s) {
  json rows = json::array(), not_served = json::array();
  for (const auto& r : s.rows) rows.push_back(RentalJson(r));
  for (const auto& r : s.not_served) not_served.push_back(RentalJson(r));
  return {{"priced_gpus", s.priced_gpus}, {"sorted_by", "usd_per_million_tokens"},
          {"pricing_rule", "GPUs x USD per GPU-hour / ((prompt + output tokens) x requests/s x 3600) x 1e6; "
                           "output only: the same bill over the output tokens"},
          {"rows", rows}, {"not_served", not_served},
          {"recommended", s.recommended ? json{{"gpu", s.rows[*s.recommended].gpu->name}, {"row", *s.recommended},
                                                {"max_p99_wait_seconds", s.max_p99_wait_seconds},
                                                {"max_busy", app::kRecommendMaxBusy}}
                                         : json(nullptr)},
          {"recommend_rule", {{"max_p99_wait_seconds", s.max_p99_wait_seconds}, {"max_busy", app::kRecommendMaxBusy},
                              {"pick", "the cheapest row per token within both"}}}};
}

std::string RenderRentalLines(const app::RentalFigures& r, const report::Texts& t) {
  if (!r.load.feasible) return {};
  const auto& h = r.headroom;
  std::string out;
  if (r.price != nullptr) {
    out += "      " + Tr(t, "plan.rental.line.cost", fmt::arg("hour", Usd(t, r.usd_per_hour)),
                         fmt::arg("million", Usd(t, r.usd_per_million_tokens)),
                         fmt::arg("output", Usd(t, r.usd_per_million_output_tokens))) + "\n";
  }
  out += "      " + Tr(t, "plan.rental.line.queue", fmt::arg("wait", Time(t, h.p99_wait_seconds)),
                       fmt::arg("busy", Percent(h.utilisation)), fmt::arg("prefill", Time(t, h.prefill.p99_wait_seconds)),
                       fmt::arg("prefill_busy", Percent(h.prefill.utilisation)),
                       fmt::arg("slots", Time(t, h.slots.p99_wait_seconds)),
                       fmt::arg("slots_busy", Percent(h.slots.utilisation)),
                       fmt::arg("c", static_cast<long long>(h.slots.servers))) + "\n";
  std::string n1 = r.price != nullptr
                       ? Tr(t, "plan.rental.line.n1_priced", fmt::arg("gpus", h.n_plus_one_gpus),
                            fmt::arg("replicas", h.n_plus_one_replicas), fmt::arg("hour", Usd(t, r.n_plus_one_usd_per_hour)),
                            fmt::arg("million", Usd(t, r.n_plus_one_usd_per_million_tokens)))
                       : Tr(t, "plan.rental.line.n1", fmt::arg("gpus", h.n_plus_one_gpus), fmt::arg("replicas", h.n_plus_one_replicas));
  out += "      " + n1 + "\n";
  return out;
}

namespace {

// The one row to rent, and why the cheaper rows are not it (app::RentalSweep::recommended).
std::string RenderRecommendation(const app::RentalSweep& s, const report::Texts& t) {
  const std::string limit = Time(t, s.max_p99_wait_seconds);
  const std::string max_busy = Percent(app::kRecommendMaxBusy);
  if (!s.recommended) {
    return "  " + Tr(t, "plan.rental.recommend_none", fmt::arg("limit", limit), fmt::arg("max_busy", max_busy)) + "\n";
  }
  const app::RentalFigures& r = s.rows[*s.recommended];
  std::string out = "  " + Tr(t, "plan.rental.recommend", fmt::arg("gpu", GpuNameText(r.gpu->name, t)), fmt::arg("gpus", r.load.gpus),
                              fmt::arg("hour", Usd(t, r.usd_per_hour)), fmt::arg("million", Usd(t, r.usd_per_million_tokens)),
                              fmt::arg("wait", Time(t, r.headroom.p99_wait_seconds)), fmt::arg("limit", limit),
                              fmt::arg("busy", Percent(r.headroom.utilisation)), fmt::arg("max_busy", max_busy),
                              fmt::arg("n1", r.headroom.n_plus_one_gpus), fmt::arg("n1_hour", Usd(t, r.n_plus_one_usd_per_hour))) +
                    "\n";
  if (*s.recommended > 0) {
    out += "    " + Tr(t, "plan.rental.recommend_skipped", fmt::arg("count", *s.recommended),
                       fmt::arg("first", GpuNameText(s.rows.front().gpu->name, t)),
                       fmt::arg("wait", Time(t, s.rows.front().headroom.p99_wait_seconds)),
                       fmt::arg("busy", Percent(s.rows.front().headroom.utilisation))) +
           "\n";
  }
  return out;
}

}  // namespace

std::string RenderRental(const PlanReport& report, const report::Texts& t) {
  const app::RentalSweep& s = *report.rental_sweep;
  const model::Traffic& in = s.traffic;
  std::string out = "\n";
  std::string load = in.users > 0 ? Tr(t, "plan.rental.load_users", fmt::arg("users", in.users),
                                       fmt::arg("think", Time(t, in.think_seconds)))
                                  : Tr(t, "plan.rental.load_rps", fmt::arg("rps", FormatArg(t, model::PhraseArg{"", model::ArgKind::kNumber,
                                                                                                  in.requests_per_second, {}, nullptr})));
  out += Tr(t, "plan.rental.title", fmt::arg("load", load), fmt::arg("prompt", in.prompt_tokens), fmt::arg("output", in.output_tokens),
            fmt::arg("served", s.rows.size()), fmt::arg("priced", s.priced_gpus)) + "\n";
  out += "  " + Tr(t, "plan.rental.planned", fmt::arg("decode", static_cast<int>(model::kDecodeEfficiencyLow * 100)),
                   fmt::arg("prefill", static_cast<int>(model::kPrefillEfficiencyLow * 100))) + "\n";
  if (!s.rows.empty()) {
    report::TextTable table({t.Get("plan.rental.col.gpu"), t.Get("plan.rental.col.gpus"), t.Get("plan.rental.col.usd_gpu_hour"),
                             t.Get("plan.rental.col.usd_hour"), t.Get("plan.rental.col.million"),
                             t.Get("plan.rental.col.million_output"), t.Get("plan.rental.col.ttft"), t.Get("plan.rental.col.tpot"),
                             t.Get("plan.rental.col.busy"), t.Get("plan.rental.col.p99"), t.Get("plan.rental.col.n1")});
    for (size_t c = 1; c <= 9; ++c) table.SetAlign(c, report::Align::kRight);
    for (const auto& r : s.rows) {
      table.AddRow({GpuNameText(r.gpu->name, t) + (r.fp16_for_gpu ? " *" : "") + (NotCuda(r) ? " +" : ""), GpusCell(t, r),
                    Usd(t, r.price->usd_per_hour), Usd(t, r.usd_per_hour), Usd(t, r.usd_per_million_tokens),
                    Usd(t, r.usd_per_million_output_tokens), Time(t, r.load.ttft_seconds), Time(t, r.load.tpot_seconds),
                    Percent(r.headroom.utilisation), Time(t, r.headroom.p99_wait_seconds),
                    Tr(t, "plan.rental.n1_cell", fmt::arg("gpus", r.headroom.n_plus_one_gpus),
                       fmt::arg("hour", Usd(t, r.n_plus_one_usd_per_hour)))});
    }
    out += table.Render(2);
    bool any_fp16 = std::any_of(s.rows.begin(), s.rows.end(), [](const app::RentalFigures& r) { return r.fp16_for_gpu; });
    if (any_fp16) out += "  " + t.Get("plan.rental.fp16_mark") + "\n";
    // The engines' CUDA builds do not run there: a ROCm build of the same engine is needed.
    if (std::any_of(s.rows.begin(), s.rows.end(), NotCuda)) out += "  " + t.Get("plan.rental.not_cuda_mark") + "\n";
    // The cheapest row can run hot: what the sort does not weigh is said once.
    out += "  " + t.Get("plan.rental.read_busy") + "\n";
    out += RenderRecommendation(s, t);
  }
  if (!s.not_served.empty()) {
    // One line per reason: a 405B model leaves most of the table on "does not fit".
    out += "  " + t.Get("plan.rental.not_served") + "\n";
    std::vector<std::pair<std::string, std::string>> by_reason;  // reason text, GPU names
    for (const auto& r : s.not_served) {
      std::string why = Reason(t, r);
      auto it = std::find_if(by_reason.begin(), by_reason.end(), [&](const auto& p) { return p.first == why; });
      if (it == by_reason.end()) {
        by_reason.push_back({why, GpuNameText(r.gpu->name, t)});
      } else {
        it->second += t.Get("plan.rental.list_separator") + GpuNameText(r.gpu->name, t);
      }
    }
    for (const auto& [why, gpus] : by_reason) {
      out += "    " + Tr(t, "plan.rental.not_served_row", fmt::arg("gpus", gpus), fmt::arg("why", why)) + "\n";
    }
  }
  out += "  " + t.Get("plan.rental.rule.price") + "\n";
  out += "  " + t.Get("plan.rental.rule.latency") + "\n";
  out += "  " + t.Get("plan.rental.rule.queue") + "\n";
  out += "  " + t.Get("plan.rental.rule.n1") + "\n";
  // Where the prices come from: one line per provider and date, not per row.
  std::set<std::pair<std::string, std::string>> sources;
  std::vector<const model::GpuPrice*> listed;
  auto add = [&](const app::RentalFigures& r) {
    if (r.price != nullptr && sources.insert({r.price->user_given ? "" : r.price->provider, r.price->date}).second) listed.push_back(r.price);
  };
  for (const auto& r : s.rows) add(r);
  for (const auto& r : s.not_served) add(r);
  out += "  " + t.Get("plan.rental.prices") + "\n";
  for (const auto* p : listed) {
    out += "    " + (p->user_given ? t.Get("plan.price.given")
                                   : Tr(t, "plan.price.table", fmt::arg("provider", p->provider), fmt::arg("date", p->date),
                                        fmt::arg("url", p->source_url))) + "\n";
  }
  out += "  " + t.Get("plan.rental.next") + "\n";
  return out;
}

}  // namespace gpuprobe::cli
