#include "cli/plan_view.h"

#include <fmt/format.h>

#include "cli/command.h"
#include "core/units.h"
#include "report/json_document.h"
#include "report/table.h"

namespace gpuprobe::cli {
namespace {

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

std::string WeightStorage(const model::Job& j) {
  if (j.mode == model::JobMode::kQlora) return "nf4";
  if (j.checkpoint_weight_bytes > 0) return "checkpoint";
  if (j.weight_quant) return j.weight_quant->method;
  return model::DTypeName(j.weight_dtype);
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
  if (p.mtp > 0) {
    out += "  " + Tr(t, "plan.params_mtp", fmt::arg("mtp", core::FormatInteger(static_cast<std::uint64_t>(p.mtp))),
                     fmt::arg("stored", core::FormatInteger(static_cast<std::uint64_t>(p.checkpoint_total)))) + "\n";
  }
  if (s.quant) {
    out += "  " + Tr(t, "plan.quantization", fmt::arg("method", s.quant->method), fmt::arg("detail", s.quant->detail),
                     fmt::arg("bytes", fmt::format("{:.4g}", s.quant->BytesPerWeight()))) + "\n";
  }
  for (const auto& note : s.notes) {
    if (note.id == "mtp_stored") continue;  // the MTP line above says it
    out += "  " + t.Get("plan.warning") + ": " + NoteText(t, note) + "\n";
  }
  if (r.checkpoint) {
    const auto& c = *r.checkpoint;
    out += "  " + Tr(t, "plan.checkpoint", fmt::arg("format", c.format), fmt::arg("files", c.files.size()),
                     fmt::arg("tensors", c.stored.tensors),
                     fmt::arg("elements", core::FormatInteger(static_cast<std::uint64_t>(c.serving.elements))),
                     fmt::arg("bytes", core::FormatBytesBinary(c.serving.bytes))) + "\n";
    if (c.matches_recipe) {
      out += "    " + t.Get(*c.matches_recipe ? "plan.checkpoint.matches" : "plan.checkpoint.differs") + "\n";
    } else if (c.quantized) {
      out += "    " + t.Get("plan.checkpoint.quantized") + "\n";
    }
  }

  const auto& j = r.job;
  std::string mode = t.Get("plan.mode." + model::JobModeName(j.mode));
  if (j.pipeline_parallel > 1 || j.expert_parallel > 0) {
    out += "\n" + Tr(t, "plan.split", fmt::arg("tp", j.tensor_parallel), fmt::arg("pp", j.pipeline_parallel),
                     fmt::arg("ep", j.expert_parallel > 0 ? j.expert_parallel : j.tensor_parallel),
                     fmt::arg("gpus", model::GpusOfSplit(j)));
  }
  out += "\n" + Tr(t, "plan.job", fmt::arg("mode", mode),
                   fmt::arg("dtype", WeightStorage(j) == "checkpoint" ? t.Get("plan.weights_as_stored") : WeightStorage(j)),
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
  if (r.serving) {
    const auto& v = *r.serving;
    out += "\n" + Tr(t, "plan.serving", fmt::arg("gpu", r.gpu->name)) + "\n";
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
