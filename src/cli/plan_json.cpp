// The JSON view of a plan (gpuprobe.plan.v1; docs/plan.md, 'JSON'). New keys are added beside
// the old ones; none is renamed or removed.
#include <fmt/format.h>

#include "cli/command.h"
#include "cli/plan_view.h"
#include "report/json_document.h"

namespace gpuprobe::cli {
namespace {

using nlohmann::json;

json RateJson(const model::RateEstimate& r) {
  return {{"bound", r.bound}, {"estimate_low", r.low}, {"estimate_high", r.high},
          {"efficiency_low", r.efficiency_low}, {"efficiency_high", r.efficiency_high},
          {"limited_by", r.limited_by}, {"basis", r.basis}, {"assumes", r.assumes}};
}

json LayerKinds(const model::ModelShape& s) {
  json kinds = {{"full_attention", 0}, {"sliding_attention", 0}, {"mla", 0}, {"ssm", 0}, {"moe", 0}};
  for (const auto& l : s.layers) {
    kinds[model::MixerKindName(l.mixer)] = kinds[model::MixerKindName(l.mixer)].get<int>() + 1;
    if (l.experts > 0) kinds["moe"] = kinds["moe"].get<int>() + 1;
  }
  return kinds;
}

json TotalsJson(const model::TensorTotals& t) {
  json by_dtype = json::object();
  for (const auto& [dtype, v] : t.by_dtype) by_dtype[dtype] = {{"elements", v.first}, {"bytes", v.second}};
  return {{"tensors", t.tensors}, {"elements", t.elements}, {"bytes", t.bytes}, {"by_dtype", by_dtype}};
}

json CheckpointJson(const CheckpointSummary& c) {
  json out = {{"format", c.format}, {"files", c.files}, {"stored", TotalsJson(c.stored)},
              {"serving", TotalsJson(c.serving)}, {"buffers_left_out", c.buffers},
              {"mtp_elements", c.mtp_elements}, {"quantized", c.quantized}};
  out["matches_recipe"] = c.matches_recipe ? json(*c.matches_recipe) : json(nullptr);
  return out;
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
  model["architecture"] = s.architecture;
  model["family"] = s.family;
  model["model_type"] = s.model_type;
  model["torch_dtype"] = s.torch_dtype;
  model["params_total"] = p.total;
  model["params_active"] = p.active;
  model["params_active_excluding_embedding"] = p.active - p.embedding;
  model["params_mtp"] = p.mtp;
  model["params_checkpoint_total"] = p.checkpoint_total;
  model["params_exact"] = s.params_override <= 0;
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
  if (!s.assumed_note.empty()) model["assumed"] = s.assumed_note;
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
                {"activation_checkpointing", j.activation_checkpointing}, {"headroom", j.headroom}};

  json memory;
  memory["kv_cache_bytes_per_token"] = r.memory.kv_bytes_per_token;
  memory["kv_cache_bytes_per_sequence"] = r.memory.kv_bytes_per_sequence;
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

}  // namespace gpuprobe::cli
