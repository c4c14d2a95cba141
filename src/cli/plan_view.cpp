#include "cli/plan_view.h"

#include <algorithm>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/gpu_choice_note.h"
#include "cli/gpus_view.h"
#include "report/phrase_text.h"
#include "core/units.h"
#include "report/table.h"

namespace gpuprobe::cli {

std::string WeightStorage(const model::Job& j) {
  if (j.mode == model::JobMode::kQlora) return "nf4";
  if (j.checkpoint_weight_bytes > 0) return "checkpoint";
  if (j.weight_quant) return j.weight_quant->method;
  return model::DTypeName(j.weight_dtype);
}

std::string AssumedShapeText(const report::Texts& t, const model::ModelShape& s) {
  if (s.assumed_reference.empty()) return {};
  return Tr(t, "plan.assumed_shape", fmt::arg("reference", s.assumed_reference), fmt::arg("layers", s.num_layers),
            fmt::arg("hidden", s.hidden_size), fmt::arg("heads", s.num_heads), fmt::arg("kv", s.num_kv_heads),
            fmt::arg("vocab", s.vocab_size));
}

namespace {

// Notes that say how the count was made rather than what may be wrong with it.
bool IsInformationNote(const model::ShapeNote& note) {
  return note.id == "structure_exact" || note.id == "model_type_alias" || note.id == "class_defaults" ||
         note.id == "vision_counted";
}

std::string DifferenceText(const model::CatalogDifference& d, const report::Texts& t) {
  using Kind = model::CatalogDifference::Kind;
  const std::string none = t.Get("plan.catalog.none");
  auto side = [&](const std::string& v) { return v.empty() ? none : v; };
  switch (d.kind) {
    case Kind::kQuant: return Tr(t, "plan.catalog.diff.quant", fmt::arg("here", side(d.here)), fmt::arg("entry", side(d.entry)));
    case Kind::kTuning: return Tr(t, "plan.catalog.diff.tuning", fmt::arg("here", side(d.here)), fmt::arg("entry", side(d.entry)));
    case Kind::kDate: return Tr(t, "plan.catalog.diff.date", fmt::arg("here", side(d.here)), fmt::arg("entry", side(d.entry)));
    case Kind::kReupload: return Tr(t, "plan.catalog.diff.reupload", fmt::arg("here", d.here), fmt::arg("entry", d.entry));
    case Kind::kRenamedOrg:
      return Tr(t, "plan.catalog.diff.renamed_org", fmt::arg("here", d.here), fmt::arg("entry", d.entry));
    case Kind::kNaming: return t.Get("plan.catalog.diff.naming");
  }
  return {};
}

// A name resolved to another catalogue entry: which, how it differs, and what that leaves open.
std::string CatalogMatchText(const PlanReport& r, const report::Texts& t) {
  if (!r.catalog_match || r.catalog_match->kind != model::CatalogMatchKind::kVariant) return {};
  const model::CatalogMatch& m = *r.catalog_match;
  std::string differences;
  for (const auto& d : m.details) differences += (differences.empty() ? "" : "; ") + DifferenceText(d, t);
  std::string out = "  " + report::Labelled(t, t.Get("common.note")) +
                    Tr(t, "plan.catalog.variant", fmt::arg("requested", m.requested), fmt::arg("entry", m.entry->id),
                       fmt::arg("differences", differences)) + "\n";
  if (m.quantised) {
    out += "  " + report::Labelled(t, t.Get("plan.warning")) + Tr(t, "plan.catalog.warn.quant", fmt::arg("requested", m.requested)) + "\n";
  }
  const bool dated = std::any_of(m.details.begin(), m.details.end(),
                                 [](const auto& d) { return d.kind == model::CatalogDifference::Kind::kDate; });
  if (dated) out += "  " + report::Labelled(t, t.Get("plan.warning")) + Tr(t, "plan.catalog.warn.date", fmt::arg("requested", m.requested)) + "\n";
  return out;
}

// What the Hub step read: over the network (requests, bytes) or from the cache alone.
std::string HubText(const PlanReport& r, const report::Texts& t) {
  if (!r.hub) return {};
  const app::HubLookup& h = *r.hub;
  if (h.requests == 0) return "  " + Tr(t, "plan.source.hub_cached", fmt::arg("dir", h.snapshot_dir)) + "\n";
  return "  " + Tr(t, "plan.source.hub", fmt::arg("requests", h.requests),
                   fmt::arg("bytes", core::FormatBytesBinary(static_cast<double>(h.bytes_received))),
                   fmt::arg("dir", h.snapshot_dir)) + "\n";
}

std::string RenderModel(const PlanReport& r, const report::Texts& t) {
  std::string out;
  const auto& p = r.memory.params;
  const auto& s = r.shape;
  std::string what = s.architecture.empty() ? s.family : fmt::format("{}, {}", s.architecture, s.family);
  out += Tr(t, "plan.model", fmt::arg("source", r.model_label), fmt::arg("what", what)) + "\n";
  out += CatalogMatchText(r, t);
  out += HubText(r, t);
  const app::ParamsBasis basis = app::BasisOfParams(r);
  const double shown = static_cast<double>(app::ShownParams(r));
  std::string params =
      basis == app::ParamsBasis::kGiven
          ? Tr(t, "plan.params_given", fmt::arg("count", FormatParams(t, shown)))
          : Tr(t, basis == app::ParamsBasis::kHeaders       ? "plan.params_headers"
                  : basis == app::ParamsBasis::kApproximate ? "plan.params_approximate"
                                                            : "plan.params_exact",
               fmt::arg("count", core::FormatInteger(static_cast<std::uint64_t>(shown))), fmt::arg("short", FormatParams(t, shown)));
  out += "  " + params + "\n";
  if (s.num_experts > 0) {
    out += "  " + Tr(t, "plan.params_active", fmt::arg("count", core::FormatInteger(static_cast<std::uint64_t>(p.active))),
                     fmt::arg("k", s.experts_per_token), fmt::arg("e", s.num_experts)) + "\n";
  }
  out += "  " + Tr(t, "plan.shape", fmt::arg("layers", s.num_layers), fmt::arg("hidden", s.hidden_size),
                   fmt::arg("heads", s.num_heads), fmt::arg("kv", s.num_kv_heads), fmt::arg("d", s.head_dim),
                   fmt::arg("vocab", s.vocab_size)) + "\n";
  if (!s.assumed_reference.empty()) out += "  " + report::Labelled(t, t.Get("common.note")) + AssumedShapeText(t, s) + "\n";
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
    out += "  " + report::Labelled(t, t.Get(IsInformationNote(note) ? "common.note" : "plan.warning")) + NoteText(t, note) + "\n";
  }
  if (r.checkpoint) {
    const auto& c = *r.checkpoint;
    out += "  " + Tr(t, "plan.checkpoint", fmt::arg("format", c.format), fmt::arg("files", c.files.size()),
                     fmt::arg("tensors", c.stored.tensors),
                     fmt::arg("elements", core::FormatInteger(static_cast<std::uint64_t>(c.serving.elements))),
                     fmt::arg("bytes", core::FormatBytesBinary(c.serving.bytes))) + "\n";
    if (c.matches_recipe && !*c.matches_recipe) {
      const auto stored = static_cast<std::int64_t>(c.serving.elements);
      out += "    " + Tr(t, "plan.checkpoint.differs_by", fmt::arg("stored", core::FormatInteger(static_cast<std::uint64_t>(stored))),
                       fmt::arg("recipe", core::FormatInteger(static_cast<std::uint64_t>(p.total))),
                       fmt::arg("diff", stored - p.total)) + "\n";
    } else if (c.matches_recipe) {
      out += "    " + t.Get("plan.checkpoint.matches") + "\n";
    } else if (c.quantized) {
      out += "    " + t.Get("plan.checkpoint.quantized") + "\n";
    }
  }
  return out;
}

std::string RenderMemory(const PlanReport& r, const report::Texts& t) {
  std::string out;
  const auto& j = r.job;
  std::string mode = t.Get("plan.mode." + model::JobModeName(j.mode));
  if (j.pipeline_parallel > 1 || j.expert_parallel > 0) {
    out += "\n" + Tr(t, "plan.split", fmt::arg("tp", j.tensor_parallel), fmt::arg("pp", j.pipeline_parallel),
                     fmt::arg("ep", j.expert_parallel > 0 ? j.expert_parallel : j.tensor_parallel),
                     fmt::arg("gpus", model::GpusOfSplit(j)));
  }
  out += "\n" + Tr(t, j.mode == model::JobMode::kInfer ? "plan.job" : "plan.job_training", fmt::arg("mode", mode),
                   fmt::arg("dtype", WeightStorage(j) == "checkpoint" ? t.Get("plan.weights_as_stored") : WeightStorage(j)),
                   fmt::arg("kv", model::DTypeName(j.kv_dtype)), fmt::arg("batch", j.batch), fmt::arg("seq", j.seq),
                   fmt::arg("tp", j.tensor_parallel)) + "\n";
  if (r.dtype_fp16_for_gpu) {
    out += "  " + report::Labelled(t, t.Get("common.note")) + Tr(t, "plan.dtype_fp16_for_gpu", fmt::arg("gpu", GpuNameText(r.gpu->name, t)),
                                                   fmt::arg("cc", r.gpu->compute_capability)) + "\n";
  }

  out += "\n" + Tr(t, "plan.memory", fmt::arg("per", j.tensor_parallel > 1 ? t.Get("plan.per_gpu") : "")) + "\n";
  out += "  " + t.Get("plan.units") + "\n";
  report::TextTable table;
  table.SetAlign(1, report::Align::kRight);
  for (const auto& c : r.memory.components) {
    table.AddRow({t.Get(c.name_key), core::FormatBytesBinary(c.bytes), Say(t, c.formula)});
  }
  table.AddRow({t.Get("plan.total"), core::FormatBytesBinary(r.memory.total_bytes), ""});
  out += table.Render(2);
  if (j.mode == model::JobMode::kInfer) {  // training keeps no KV cache between steps
    out += "  " + Tr(t, "plan.kv_per_token", fmt::arg("bytes", core::FormatBytesBinary(r.memory.kv_bytes_per_token)),
                     fmt::arg("dtype", model::DTypeName(j.kv_dtype))) + "\n";
  }
  out += "  " + Say(t, r.memory.summed) + "\n";
  // vLLM's own activation figure (the engine section) is its profiling run's, not this table's
  // one-layer transient: two numbers for two things, said so.
  if (r.engine && r.engine->options.engine == model::Engine::kVllm && r.engine->budget.activation_peak_bytes > 0) {
    out += "  " + Tr(t, "plan.memory.activation_vs_engine",
                     fmt::arg("tokens", core::FormatInteger(static_cast<std::uint64_t>(std::max<std::int64_t>(0, j.batch * j.seq)))),
                     fmt::arg("batched", core::FormatInteger(static_cast<std::uint64_t>(std::max<std::int64_t>(0, r.engine->budget.max_num_batched_tokens)))),
                     fmt::arg("peak", core::FormatBytesBinary(r.engine->budget.activation_peak_bytes))) + "\n";
  }
  return out;
}

std::string RenderFits(const PlanReport& r, const report::Texts& t) {
  std::string out;
  out += "\n" + (r.fit_engine.empty()
                     ? Tr(t, "plan.fits", fmt::arg("headroom", static_cast<int>(r.job.headroom * 100)))
                     : Tr(t, "plan.fits.engine", fmt::arg("engine", r.fit_engine), fmt::arg("headroom", static_cast<int>(r.job.headroom * 100)))) + "\n";
  // Split over GPUs (--tp/--pp/--ep), the plan is one GPU's share: say so in the header.
  const bool split = model::GpusOfSplit(r.job) > 1;
  report::TextTable fits({t.Get("plan.fits.gpu"), t.Get("plan.fits.usable"), t.Get(split ? "plan.fits.fits_share" : "plan.fits.fits"),
                          t.Get("plan.fits.needed"), t.Get("plan.fits.free")});
  fits.SetAlign(1, report::Align::kRight);
  fits.SetAlign(3, report::Align::kRight);
  fits.SetAlign(4, report::Align::kRight);
  for (const auto& f : r.fits) {
    std::string usable = core::FormatBytesBinary(f.fit.usable_bytes) + (f.usable_estimated ? "*" : "");
    std::string needed = f.fit.gpus_needed > 0 ? std::to_string(f.fit.gpus_needed) : t.Get("plan.fits.never");
    fits.AddRow({GpuNameText(f.gpu->name, t), usable, f.fit.fits ? t.Get("common.yes") : t.Get("common.no"), needed,
                 f.fit.fits ? core::FormatBytesBinary(f.fit.free_after_bytes) : "-"});
  }
  out += fits.Render(2);
  bool any_estimated = false;
  for (const auto& f : r.fits) any_estimated = any_estimated || f.usable_estimated;
  if (any_estimated) out += "  " + t.Get("plan.fits.footer") + "\n";
  // With an engine, "free after" is its KV cache left after this job, not usable minus the
  // component table's total (the engine reserves its own activation and workspace amounts).
  if (!r.fit_engine.empty()) out += "  " + t.Get("plan.fits.free_engine") + "\n";
  out += "  " + t.Get("plan.fits.split") + "\n";
  return out;
}

}  // namespace

std::string RenderPlan(const PlanReport& r, const report::Texts& t) {
  // The rental sweep's table answers "on which GPU" in place of the fit table.
  std::string out = RenderModel(r, t) + RenderMemory(r, t);
  if (r.gpu != nullptr && !r.gpu_other_variants.empty()) {
    out += GpuChoiceNote(r.gpu_query, r.gpu->name, r.gpu_other_variants, t) + "\n";
  }
  out += (r.rental_sweep ? RenderRental(r, t) : RenderFits(r, t)) + RenderEngine(r, t) + RenderFromLog(r, t);
  if (r.gpu != nullptr) out += r.fits_on_gpu ? RenderSpeed(r, t) + RenderCost(r, t) : RenderOptions(r, t);
  if (r.traffic) out += RenderTraffic(r, t);
  // What the card should measure, so a slow deployment can be told from a slow card.
  if (r.gpu != nullptr) out += RenderHealthyBrief(*r.gpu, t);
  return out;
}

}  // namespace gpuprobe::cli
