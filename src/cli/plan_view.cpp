#include "cli/plan_view.h"

#include <fmt/format.h>

#include "cli/command.h"
#include "core/units.h"
#include "report/json_document.h"
#include "report/table.h"

namespace gpuprobe::cli {
namespace {

using nlohmann::json;

json RateJson(const model::RateEstimate& r) {
  return {{"bound", r.bound}, {"estimate_low", r.low}, {"estimate_high", r.high},
          {"efficiency_low", r.efficiency_low}, {"efficiency_high", r.efficiency_high},
          {"limited_by", r.limited_by}, {"basis", r.basis}, {"assumes", r.assumes}};
}

std::string Tokens(double per_second) {
  if (per_second >= 1e4) return fmt::format("{:.0f}", per_second);
  return core::FormatSignificant(per_second);
}

std::string RateLine(const report::Texts& t, const model::RateEstimate& r) {
  return Tr(t, "plan.throughput.rate", fmt::arg("bound", Tokens(r.bound)), fmt::arg("low", Tokens(r.low)),
            fmt::arg("high", Tokens(r.high)), fmt::arg("elow", static_cast<int>(r.efficiency_low * 100)),
            fmt::arg("ehigh", static_cast<int>(r.efficiency_high * 100)), fmt::arg("limit", r.limited_by));
}

}  // namespace

json PlanToJson(const PlanReport& r) {
  json doc = report::MakeDocument("plan");
  const auto& p = r.memory.params;
  const auto& s = r.shape;
  json model;
  model["source"] = r.model_label;
  model["architecture"] = s.architecture;
  model["family"] = s.family;
  model["torch_dtype"] = s.torch_dtype;
  model["params_total"] = p.total;
  model["params_active"] = p.active;
  model["params_exact"] = s.params_override <= 0;
  model["params_breakdown"] = {{"embedding", p.embedding}, {"attention", p.attention}, {"mlp", p.mlp},
                               {"router", p.router}, {"norms", p.norms}, {"lm_head", p.lm_head}, {"pooler", p.pooler}};
  model["shape"] = {{"layers", s.num_layers}, {"hidden_size", s.hidden_size}, {"heads", s.num_heads},
                    {"kv_heads", s.num_kv_heads}, {"head_dim", s.head_dim}, {"intermediate_size", s.intermediate_size},
                    {"vocab_size", s.vocab_size}, {"tied_embeddings", s.tied_embeddings}, {"experts", s.num_experts},
                    {"experts_per_token", s.experts_per_token}, {"sliding_window", s.sliding_window}};
  if (!s.assumed_note.empty()) model["assumed"] = s.assumed_note;
  doc["model"] = model;

  const auto& j = r.job;
  doc["job"] = {{"mode", model::JobModeName(j.mode)}, {"weight_dtype", model::DTypeName(j.weight_dtype)},
                {"kv_dtype", model::DTypeName(j.kv_dtype)}, {"batch", j.batch}, {"seq", j.seq},
                {"optimizer", model::OptimizerName(j.optimizer)}, {"lora_rank", j.lora_rank},
                {"lora_targets", j.lora_all_linears ? "all" : "attention"}, {"tensor_parallel", j.tensor_parallel},
                {"activation_checkpointing", j.activation_checkpointing}, {"headroom", j.headroom}};

  json memory;
  memory["kv_cache_bytes_per_token"] = r.memory.kv_bytes_per_token;
  memory["components"] = json::array();
  for (const auto& c : r.memory.components) {
    memory["components"].push_back({{"id", c.id}, {"name", c.name}, {"bytes", c.bytes}, {"formula", c.formula}, {"source", c.source}});
  }
  memory["total_bytes"] = r.memory.total_bytes;
  memory["per_gpu"] = true;
  memory["summed"] = r.memory.summed;
  memory["overhead_range_bytes"] = {r.memory.overhead_low_bytes, r.memory.overhead_high_bytes};
  memory["lora_params"] = r.memory.lora_params;
  doc["memory"] = memory;

  doc["fits"] = json::array();
  for (const auto& f : r.fits) {
    doc["fits"].push_back({{"gpu", f.gpu->name}, {"fits", f.fit.fits}, {"gpus_needed", f.fit.gpus_needed},
                           {"usable_bytes", f.fit.usable_bytes}, {"usable_estimated", f.usable_estimated},
                           {"free_after_bytes", f.fit.free_after_bytes}});
  }
  if (r.gpu != nullptr) doc["gpu"] = r.gpu->name;
  if (r.capacity) {
    doc["capacity"] = {{"max_batch_at_seq", r.capacity->max_batch_at_seq}, {"seq", j.seq},
                       {"max_seq_at_batch", r.capacity->max_seq_at_batch}, {"batch", j.batch}};
  }
  if (r.throughput) {
    const auto& tp = *r.throughput;
    json th;
    th["compute_dtype"] = tp.compute_dtype;
    th["peak_flops"] = tp.peak_flops;
    th["bandwidth_bytes_per_s"] = tp.bandwidth_bytes_per_s;
    th["decode_tokens_per_s_bound"] = tp.decode_aggregate.bound;
    th["decode_tokens_per_s_per_stream_bound"] = tp.decode_per_stream.bound;
    th["decode"] = RateJson(tp.decode_aggregate);
    th["decode_per_stream"] = RateJson(tp.decode_per_stream);
    th["prefill_tokens_per_s_bound"] = tp.prefill.bound;
    th["prefill"] = RateJson(tp.prefill);
    if (tp.has_training) {
      th["training_tokens_per_s_bound"] = tp.training.bound;
      th["training"] = RateJson(tp.training);
    }
    doc["throughput"] = th;
  }
  return doc;
}

std::string RenderPlan(const PlanReport& r, const report::Texts& t) {
  std::string out;
  const auto& p = r.memory.params;
  const auto& s = r.shape;
  std::string what = s.architecture.empty() ? s.family : fmt::format("{}, {}", s.architecture, s.family);
  out += Tr(t, "plan.model", fmt::arg("source", r.model_label), fmt::arg("what", what)) + "\n";
  std::string params = s.params_override > 0
                           ? Tr(t, "plan.params_given", fmt::arg("count", core::FormatCount(static_cast<double>(p.total))))
                           : Tr(t, "plan.params_exact", fmt::arg("count", core::FormatInteger(static_cast<std::uint64_t>(p.total))),
                                fmt::arg("short", core::FormatCount(static_cast<double>(p.total))));
  out += "  " + params + "\n";
  if (s.num_experts > 0) {
    out += "  " + Tr(t, "plan.params_active", fmt::arg("count", core::FormatInteger(static_cast<std::uint64_t>(p.active))),
                     fmt::arg("k", s.experts_per_token), fmt::arg("e", s.num_experts)) + "\n";
  }
  out += "  " + Tr(t, "plan.shape", fmt::arg("layers", s.num_layers), fmt::arg("hidden", s.hidden_size),
                   fmt::arg("heads", s.num_heads), fmt::arg("kv", s.num_kv_heads), fmt::arg("d", s.head_dim),
                   fmt::arg("vocab", s.vocab_size)) + "\n";
  if (!s.assumed_note.empty()) out += "  " + t.Get("common.note") + ": " + s.assumed_note + "\n";

  const auto& j = r.job;
  std::string mode = t.Get("plan.mode." + model::JobModeName(j.mode));
  out += "\n" + Tr(t, "plan.job", fmt::arg("mode", mode),
                   fmt::arg("dtype", j.mode == model::JobMode::kQlora ? "nf4" : model::DTypeName(j.weight_dtype)),
                   fmt::arg("kv", model::DTypeName(j.kv_dtype)), fmt::arg("batch", j.batch), fmt::arg("seq", j.seq),
                   fmt::arg("tp", j.tensor_parallel)) + "\n";

  out += "\n" + Tr(t, "plan.memory", fmt::arg("per", j.tensor_parallel > 1 ? t.Get("plan.per_gpu") : "")) + "\n";
  report::TextTable table;
  table.SetAlign(1, report::Align::kRight);
  for (const auto& c : r.memory.components) table.AddRow({c.name, core::FormatBytesBinary(c.bytes), c.formula});
  table.AddRow({t.Get("plan.total"), core::FormatBytesBinary(r.memory.total_bytes), ""});
  out += table.Render(2);
  out += "  " + Tr(t, "plan.kv_per_token", fmt::arg("bytes", core::FormatBytesBinary(r.memory.kv_bytes_per_token)),
                   fmt::arg("dtype", model::DTypeName(j.kv_dtype))) + "\n";
  out += "  " + r.memory.summed + "\n";

  out += "\n" + Tr(t, "plan.fits", fmt::arg("headroom", static_cast<int>(j.headroom * 100))) + "\n";
  report::TextTable fits({t.Get("plan.fits.gpu"), t.Get("plan.fits.usable"), t.Get("plan.fits.fits"),
                          t.Get("plan.fits.needed"), t.Get("plan.fits.free")});
  fits.SetAlign(1, report::Align::kRight);
  fits.SetAlign(3, report::Align::kRight);
  fits.SetAlign(4, report::Align::kRight);
  for (const auto& f : r.fits) {
    std::string usable = core::FormatBytesBinary(f.fit.usable_bytes) + (f.usable_estimated ? "*" : "");
    std::string needed = f.fit.gpus_needed > 0 ? std::to_string(f.fit.gpus_needed) : t.Get("plan.fits.never");
    fits.AddRow({f.gpu->name, usable, f.fit.fits ? t.Get("common.yes") : t.Get("common.no"), needed,
                 f.fit.fits ? core::FormatBytesBinary(f.fit.free_after_bytes) : "-"});
  }
  out += fits.Render(2);
  bool any_estimated = false;
  for (const auto& f : r.fits) any_estimated = any_estimated || f.usable_estimated;
  if (any_estimated) out += "  " + t.Get("plan.fits.footer") + "\n";
  out += "  " + t.Get("plan.fits.split") + "\n";

  if (r.capacity) {
    out += "\n" + Tr(t, "plan.capacity", fmt::arg("gpu", r.gpu->name)) + "\n";
    out += "  " + Tr(t, "plan.capacity.batch", fmt::arg("batch", r.capacity->max_batch_at_seq), fmt::arg("seq", j.seq)) + "\n";
    out += "  " + Tr(t, "plan.capacity.seq", fmt::arg("seq", r.capacity->max_seq_at_batch), fmt::arg("batch", j.batch)) + "\n";
    if (s.max_position_embeddings > 0 && r.capacity->max_seq_at_batch > s.max_position_embeddings) {
      out += "  " + Tr(t, "plan.capacity.max_positions", fmt::arg("max", s.max_position_embeddings)) + "\n";
    }
  }
  if (r.throughput) {
    const auto& tp = *r.throughput;
    out += "\n" + Tr(t, "plan.throughput", fmt::arg("gpu", r.gpu->name), fmt::arg("tp", j.tensor_parallel)) + "\n";
    out += "  " + t.Get("plan.throughput.decode") + " " + RateLine(t, tp.decode_per_stream) + "\n";
    out += "      " + tp.decode_per_stream.basis + "\n";
    if (j.batch > 1) {
      out += "  " + t.Get("plan.throughput.decode_batch") + " " + RateLine(t, tp.decode_aggregate) + "\n";
    }
    out += "  " + t.Get("plan.throughput.prefill") + " " + RateLine(t, tp.prefill) + "\n";
    out += "      " + tp.prefill.basis + "\n";
    if (tp.has_training) {
      out += "  " + t.Get("plan.throughput.training") + " " + RateLine(t, tp.training) + "\n";
      out += "      " + tp.training.basis + "\n";
    }
    out += "  " + t.Get("plan.throughput.assumes") + "\n";
    out += "      " + tp.decode_per_stream.assumes + "\n      " + tp.prefill.assumes + "\n";
    if (tp.has_training) out += "      " + tp.training.assumes + "\n";
  }
  return out;
}

}  // namespace gpuprobe::cli
