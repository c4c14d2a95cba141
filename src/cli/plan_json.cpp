// The JSON view of a plan (gpuprobe.plan.v1; docs/plan.md, 'JSON'). New keys are added beside
// the old ones; none is renamed or removed.
#include <fmt/format.h>

#include "cli/command.h"
#include "cli/gpu_choice_note.h"
#include "cli/gpus_view.h"
#include "report/phrase_text.h"
#include "cli/plan_view.h"
#include "cli/price_json.h"
#include "report/json_document.h"

namespace gpuprobe::cli {
namespace {

using nlohmann::json;

json RateJson(const model::RateEstimate& r, const report::Texts& t) {
  return {{"bound", r.bound}, {"estimate_low", r.low}, {"estimate_high", r.high},
          {"efficiency_low", r.efficiency_low}, {"efficiency_high", r.efficiency_high},
          {"limited_by", r.limited_by}, {"basis", Say(t, r.basis)}, {"assumes", Say(t, r.assumes)}};
}

json StepJson(const model::StepTimes& s) {
  return {{"memory_seconds", s.memory_seconds}, {"compute_seconds", s.compute_seconds},
          {"communication_seconds", s.comm_seconds}, {"step_seconds_bound", s.At(1.0)}};
}

json CommEstimateJson(const model::CommEstimate& c) {
  json terms = json::array();
  for (const auto& term : c.terms) {
    terms.push_back({{"id", term.id}, {"operations", term.operations}, {"message_bytes", term.message_bytes},
                     {"link_bytes", term.link_bytes}, {"seconds", term.seconds}});
  }
  return {{"seconds", c.seconds}, {"terms", terms}};
}

json CommJson(const model::CommPlan& c, const model::GpuSpec& gpu, const report::Texts& t) {
  return {{"gpus", c.gpus}, {"link", LinkJson(gpu, c.link.link, t)}, {"fell_back_to_pcie", c.link.fell_back_to_pcie},
          {"beyond_domain", c.link.beyond_domain}, {"link_unknown", c.link_unknown},
          {"latency_seconds_per_operation", model::kCollectiveLatencySeconds},
          {"decode", CommEstimateJson(c.decode)}, {"prefill", CommEstimateJson(c.prefill)},
          {"training", CommEstimateJson(c.training)}};
}

json LoadJson(const model::ReplicaLoad& l) {
  return {{"feasible", l.feasible}, {"blocked_by", l.blocked_by.empty() ? json(nullptr) : json(l.blocked_by)},
          {"gpus", l.gpus}, {"replicas", l.replicas}, {"tensor_parallel", l.tensor_parallel},
          {"efficiency_decode", l.efficiency_decode}, {"efficiency_prefill", l.efficiency_prefill},
          {"arrival_rps", l.arrival_rps}, {"arrival_rps_per_replica", l.arrival_rps_per_replica},
          {"prefill_seconds", l.prefill_seconds}, {"prefill_share", l.prefill_share},
          {"decoding_sequences", l.decoding_sequences}, {"sequences", l.sequences}, {"max_sequences", l.max_sequences},
          {"kv_bytes_needed", l.kv_bytes_needed}, {"kv_budget_bytes", l.kv_budget_bytes},
          {"step_seconds", l.step_seconds}, {"tpot_seconds", l.feasible ? json(l.tpot_seconds) : json(nullptr)},
          {"ttft_seconds", l.feasible ? json(l.ttft_seconds) : json(nullptr)},
          {"request_seconds", l.feasible ? json(l.request_seconds) : json(nullptr)},
          {"output_tokens_per_s", l.output_tokens_per_s},
          {"replica_peak_output_tokens_per_s", l.replica_peak_output_tokens_per_s}};
}

json OptionJson(const model::FitOption& o, const report::Texts& t) {
  json out = {{"id", o.id}, {"cost_rank", o.cost_rank}, {"gpu", o.gpu->name}, {"fits", o.fit.fits}, {"gpus", o.gpus},
              {"total_bytes", o.plan.total_bytes}, {"usable_bytes", o.fit.usable_bytes},
              {"value", o.value == 0 ? json(nullptr) : json(o.value)},
              {"change", Say(t, o.change)}, {"cost", Say(t, o.cost)},
              {"job", {{"weight_dtype", model::DTypeName(o.job.weight_dtype)}, {"kv_dtype", model::DTypeName(o.job.kv_dtype)},
                       {"mode", model::JobModeName(o.job.mode)}, {"batch", o.job.batch}, {"seq", o.job.seq},
                       {"tensor_parallel", o.job.tensor_parallel}, {"optimizer", model::OptimizerName(o.job.optimizer)},
                       {"activation_checkpointing", o.job.activation_checkpointing}}},
              {"price", PriceJson(o.price)}};
  if (o.throughput) {
    out["decode_tokens_per_s_per_stream_bound"] = o.throughput->decode_per_stream.bound;
    out["prefill_tokens_per_s_bound"] = o.throughput->prefill.bound;
    out["communication_seconds_per_decode_step"] = o.throughput->comm.decode.seconds;
    if (o.throughput->has_training) {
      out["training_tokens_per_s_bound"] = o.throughput->training.bound;
      out["communication_seconds_per_training_step"] = o.throughput->comm.training.seconds;
    }
  }
  return out;
}

json LayerKinds(const model::ModelShape& s) {
  json kinds = {{"full_attention", 0}, {"sliding_attention", 0}, {"mla", 0}, {"ssm", 0}, {"moe", 0}};
  for (const auto& l : s.layers) {
    // Every kind counts, including one not listed above (a layer that keeps no cache).
    const std::string name = model::MixerKindName(l.mixer);
    kinds[name] = kinds.value(name, 0) + 1;
    if (l.experts > 0) kinds["moe"] = kinds["moe"].get<int>() + 1;
  }
  return kinds;
}

json TotalsJson(const model::TensorTotals& t) {
  json by_dtype = json::object();
  for (const auto& [dtype, v] : t.by_dtype) by_dtype[dtype] = {{"elements", v.first}, {"bytes", v.second}};
  return {{"tensors", t.tensors}, {"elements", t.elements}, {"bytes", t.bytes}, {"by_dtype", by_dtype}};
}

json CheckpointJson(const checkpoint::CheckpointSummary& c) {
  json out = {{"format", c.format}, {"files", c.files}, {"stored", TotalsJson(c.stored)},
              {"serving", TotalsJson(c.serving)}, {"buffers_left_out", c.buffers},
              {"mtp_elements", c.mtp_elements}, {"quantized", c.quantized}};
  out["matches_recipe"] = c.matches_recipe ? json(*c.matches_recipe) : json(nullptr);
  return out;
}

const char* DifferenceKindName(model::CatalogDifference::Kind kind) {
  using Kind = model::CatalogDifference::Kind;
  switch (kind) {
    case Kind::kQuant: return "quantisation";
    case Kind::kTuning: return "tuning";
    case Kind::kDate: return "date";
    case Kind::kReupload: return "reupload";
    case Kind::kRenamedOrg: return "renamed_organisation";
    case Kind::kNaming: return "naming";
  }
  return "";
}

}  // namespace

std::string NoteText(const report::Texts& texts, const model::ShapeNote& note) {
  return Tr(texts, "plan.note." + note.id, fmt::arg("detail", note.detail));
}

json PlanToJson(const PlanReport& r, const report::Texts& texts) {
  json doc = report::MakeDocument("plan");
  const auto& p = r.memory.params;
  const auto& s = r.shape;
  json model;
  model["source"] = r.model_label;
  model["found_in"] = r.found_in;
  if (!r.catalog_source.empty()) model["catalog_source"] = r.catalog_source;
  if (r.catalog_match) {
    const model::CatalogMatch& m = *r.catalog_match;
    json differences = json::array();
    for (const auto& d : m.details) differences.push_back({{"kind", DifferenceKindName(d.kind)}, {"here", d.here}, {"entry", d.entry}});
    model["catalog_match"] = {{"requested", m.requested},
                              {"entry", m.entry->id},
                              {"kind", m.kind == model::CatalogMatchKind::kExactId ? "id"
                                       : m.kind == model::CatalogMatchKind::kName  ? "name"
                                                                                   : "variant"},
                              {"explain", m.Explain()},
                              {"quantised", m.quantised},
                              {"differences", differences}};
  }
  if (r.hub) {
    model["hub"] = {{"repo_id", r.hub->repo_id}, {"commit", r.hub->commit}, {"snapshot_dir", r.hub->snapshot_dir},
                    {"requests", r.hub->requests}, {"bytes_received", r.hub->bytes_received}, {"seconds", r.hub->seconds}};
  }
  model["architecture"] = s.architecture;
  model["family"] = s.family;
  model["model_type"] = s.model_type;
  model["torch_dtype"] = s.torch_dtype;
  model["params_total"] = p.total;
  model["params_active"] = p.active;
  model["params_active_excluding_embedding"] = p.active - p.embedding;
  model["params_mtp"] = p.mtp;
  model["params_checkpoint_total"] = p.checkpoint_total;
  // One rule with the text view: app::BasisOfParams.
  const app::ParamsBasis basis = app::BasisOfParams(r);
  model["params_exact"] = basis == app::ParamsBasis::kExact || basis == app::ParamsBasis::kHeaders;
  model["params_basis"] = basis == app::ParamsBasis::kGiven     ? "given"
                          : basis == app::ParamsBasis::kHeaders ? "headers"
                          : basis == app::ParamsBasis::kExact   ? "config"
                                                                : "approximate";
  model["params_shown"] = app::ShownParams(r);
  model["params_breakdown"] = {{"embedding", p.embedding}, {"attention", p.attention}, {"mlp", p.mlp},
                               {"experts", p.experts}, {"router", p.router}, {"norms", p.norms},
                               {"lm_head", p.lm_head}, {"pooler", p.pooler}, {"vision", p.vision}};
  model["shape"] = {{"layers", s.num_layers}, {"hidden_size", s.hidden_size}, {"heads", s.num_heads},
                    {"kv_heads", s.num_kv_heads}, {"head_dim", s.head_dim}, {"intermediate_size", s.intermediate_size},
                    {"vocab_size", s.vocab_size}, {"tied_embeddings", s.tied_embeddings}, {"experts", s.num_experts},
                    {"experts_per_token", s.experts_per_token}, {"shared_experts", s.num_shared_experts},
                    {"sliding_window", s.sliding_window},
                    {"mla_latent_dim", s.layers.empty() ? 0 : s.layers.front().latent_dim}};
  model["layer_kinds"] = LayerKinds(s);
  if (s.quant) {
    model["quantization"] = {{"method", s.quant->method}, {"bits", s.quant->bits}, {"group_size", s.quant->group_size},
                             {"bytes_per_weight", s.quant->BytesPerWeight()}, {"detail", s.quant->detail}};
  }
  if (!s.assumed_reference.empty()) {
    model["assumed"] = AssumedShapeText(texts, s);
    model["assumed_reference"] = s.assumed_reference;
  }
  model["assumed_fields"] = s.assumed_fields;
  model["notes"] = json::array();
  for (const auto& note : s.notes) {
    model["notes"].push_back({{"id", note.id}, {"detail", note.detail}, {"text", NoteText(texts, note)}});
  }
  doc["model"] = model;
  if (r.checkpoint) doc["checkpoint"] = CheckpointJson(*r.checkpoint);

  const auto& j = r.job;
  doc["job"] = {{"mode", model::JobModeName(j.mode)}, {"weight_dtype", model::DTypeName(j.weight_dtype)},
                {"weight_storage", WeightStorage(j)},
                {"kv_dtype", model::DTypeName(j.kv_dtype)}, {"batch", j.batch}, {"seq", j.seq},
                {"optimizer", model::OptimizerName(j.optimizer)}, {"lora_rank", j.lora_rank},
                {"lora_targets", j.lora_all_linears ? "all" : "attention"}, {"tensor_parallel", j.tensor_parallel},
                {"pipeline_parallel", j.pipeline_parallel}, {"expert_parallel", j.expert_parallel},
                {"gpus", model::GpusOfSplit(j)}, {"shared_prefix", j.shared_prefix},
                {"activation_checkpointing", j.activation_checkpointing}, {"headroom", j.headroom},
                {"dtype_fp16_for_gpu", r.dtype_fp16_for_gpu}};

  json memory;
  memory["kv_cache_bytes_per_token"] = r.memory.kv_bytes_per_token;
  memory["kv_cache_bytes_per_sequence"] = r.memory.kv_bytes_per_sequence;
  memory["components"] = json::array();
  for (const auto& c : r.memory.components) {
    memory["components"].push_back({{"id", c.id}, {"name", texts.Get(c.name_key)}, {"bytes", c.bytes},
                                    {"formula", Say(texts, c.formula)}, {"source", Say(texts, c.source)}});
  }
  memory["total_bytes"] = r.memory.total_bytes;
  memory["per_gpu"] = true;
  memory["summed"] = Say(texts, r.memory.summed);
  memory["weight_bytes_total"] = r.memory.weight_bytes_total;
  memory["overhead_range_bytes"] = {r.memory.overhead_low_bytes, r.memory.overhead_high_bytes};
  memory["lora_params"] = r.memory.lora_params;
  doc["memory"] = memory;

  doc["fits"] = json::array();
  for (const auto& f : r.fits) {
    doc["fits"].push_back({{"gpu", f.gpu->name}, {"fits", f.fit.fits}, {"gpus_needed", f.fit.gpus_needed},
                           {"usable_bytes", f.fit.usable_bytes}, {"usable_estimated", f.usable_estimated},
                           {"free_after_bytes", f.fit.free_after_bytes}});
  }
  doc["units"] = {{"memory", "bytes; text output in binary units (KiB, MiB, GiB)"},
                  {"rates", "bytes/s and FLOP/s; text output in SI units (GB/s, TFLOP/s)"}};
  if (r.gpu != nullptr) {
    doc["gpu"] = r.gpu->name;
    doc["gpu_choice"] = GpuChoiceJson(r.gpu_query, r.gpu->name, r.gpu_other_variants);
    doc["fits_on_gpu"] = r.fits_on_gpu;
    doc["gpu_spec"] = GpuFiguresJson(*r.gpu, texts);
    doc["healthy"] = HealthyFiguresJson(*r.gpu);  // the same figures gpus show --json gives
    doc["price"] = PriceJson(r.gpu_price);
  }
  if (r.from_log) doc["from_log"] = FromLogJson(r, texts);
  if (r.engine) {
    doc["engine"] = EngineJson(r, texts);
    doc["fits_on_gpu"] = r.fits_on_gpu;
  }
  if (r.capacity) {
    doc["capacity"] = {{"max_batch_at_seq", r.capacity->max_batch_at_seq}, {"seq", j.seq},
                       {"max_seq_at_batch", r.capacity->max_seq_at_batch}, {"batch", j.batch}};
  }
  if (r.serving) {
    const auto& v = *r.serving;
    doc["serving"] = {{"kv_budget_bytes", v.kv_budget_bytes}, {"kv_bytes_per_sequence", v.kv_bytes_per_sequence},
                      {"seq", j.seq}, {"block_tokens", v.block_tokens}, {"max_sequences", v.max_sequences},
                      {"concurrency", v.concurrency}, {"shared_prefix", j.shared_prefix},
                      {"max_sequences_shared_prefix", v.max_sequences_shared_prefix}};
  }
  if (r.throughput) {
    const auto& tp = *r.throughput;
    json th;
    th["compute_dtype"] = tp.compute_dtype;
    th["peak_flops"] = tp.peak_flops;
    th["bandwidth_bytes_per_s"] = tp.bandwidth_bytes_per_s;
    th["decode_tokens_per_s_bound"] = tp.decode_aggregate.bound;
    th["decode_tokens_per_s_per_stream_bound"] = tp.decode_per_stream.bound;
    th["decode"] = RateJson(tp.decode_aggregate, texts);
    th["decode_per_stream"] = RateJson(tp.decode_per_stream, texts);
    th["prefill_tokens_per_s_bound"] = tp.prefill.bound;
    th["prefill"] = RateJson(tp.prefill, texts);
    th["decode_step"] = StepJson(tp.decode_step);
    th["prefill_pass"] = StepJson(tp.prefill_pass);
    if (tp.has_training) {
      th["training_tokens_per_s_bound"] = tp.training.bound;
      th["training"] = RateJson(tp.training, texts);
      th["training_step"] = StepJson(tp.training_step);
    }
    th["communication"] = CommJson(tp.comm, *r.gpu, texts);
    th["communication_over_pcie"] = tp.comm_over_pcie ? CommJson(*tp.comm_over_pcie, *r.gpu, texts) : json(nullptr);
    doc["throughput"] = th;
  }
  if (r.gpu != nullptr && !r.fits_on_gpu) {
    doc["options"] = json::array();
    for (const auto& o : r.options) doc["options"].push_back(OptionJson(o, texts));
  }
  if (r.traffic) {
    const auto& tr = *r.traffic;
    json traffic = {{"requests_per_second", tr.traffic.requests_per_second > 0 ? json(tr.traffic.requests_per_second) : json(nullptr)},
                    {"users", tr.traffic.users > 0 ? json(tr.traffic.users) : json(nullptr)},
                    {"think_seconds", tr.traffic.think_seconds}, {"prompt_tokens", tr.traffic.prompt_tokens},
                    {"output_tokens", tr.traffic.output_tokens}, {"seq", tr.seq},
                    {"low", LoadJson(tr.low)}, {"high", LoadJson(tr.high)},
                    {"gpus_needed", tr.low.feasible ? json(tr.low.gpus) : json(nullptr)}};
    if (r.gpu_price != nullptr) {
      for (const char* which : {"low", "high"}) {
        const auto& load = std::string(which) == "low" ? tr.low : tr.high;
        traffic[which]["usd_per_million_output_tokens"] =
            load.feasible ? json(model::UsdPerMillionTokens(r.gpu_price->usd_per_hour, load.gpus, load.output_tokens_per_s))
                          : json(nullptr);
      }
    }
    if (r.rental) traffic["rental"] = RentalJson(*r.rental);
    doc["traffic"] = traffic;
  }
  if (r.rental_sweep) doc["rental"] = RentalSweepJson(*r.rental_sweep);
  if (r.cost) {
    const auto& c = *r.cost;
    json cost = {{"gpus", c.gpus}, {"usd_per_gpu_hour", c.price->usd_per_hour}, {"price", PriceJson(c.price)},
                 {"tokens_per_s_bound", c.tokens_per_s_bound}, {"tokens_per_s_low", c.tokens_per_s_low},
                 {"usd_per_million_tokens_bound", c.usd_per_million_bound},
                 {"usd_per_million_tokens_low", c.usd_per_million_low},
                 {"tokens", r.job.mode == model::JobMode::kInfer ? "output" : "training"}};
    if (r.job.mode == model::JobMode::kInfer) cost["sequences"] = c.sequences;
    if (c.train_tokens > 0) {
      cost["train_tokens"] = c.train_tokens;
      cost["run_usd_bound"] = c.train_tokens / c.tokens_per_s_bound / 3600 * c.gpus * c.price->usd_per_hour;
      cost["run_usd_low"] = c.train_tokens / c.tokens_per_s_low / 3600 * c.gpus * c.price->usd_per_hour;
      cost["run_seconds_bound"] = c.train_tokens / c.tokens_per_s_bound;
      cost["run_seconds_low"] = c.train_tokens / c.tokens_per_s_low;
    }
    doc["cost"] = cost;
  }
  return doc;
}

}  // namespace gpuprobe::cli
