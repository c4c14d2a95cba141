#include "model/gpu_selection.h"

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "core/spelling.h"
#include "model/gpu_link.h"
#include "model/hf_config.h"
#include "model/spec_derivation.h"

namespace gpuprobe::model {
namespace {

bool IsPcieCard(const GpuSpec& g) { return g.form_factor.find("PCIe") != std::string::npos; }

bool Eligible(const GpuSpec& g, const TaskRule& rule) {
  if (!g.memory_size_gb_vendor.known() || IsIntegrated(g)) return false;  // integrated parts are not rented or racked
  if (rule.nvidia_only && g.vendor != "NVIDIA") return false;
  if (rule.pcie_card_only && !IsPcieCard(g)) return false;
  if (rule.max_tdp_watts > 0 && g.tdp_watts.ValueOr(1e9) > rule.max_tdp_watts) return false;
  return true;
}

Phrase LinkReason(const GpuSpec& g, const Job& job) {
  int gpus = GpusOfSplit(job);
  GpuLink peer = PeerLink(g);
  GpuLink pcie = PcieLink(g);
  Phrase out;
  if (peer.kind != LinkKind::kPcie && peer.kind != LinkKind::kNone && peer.bytes_per_s > 0) {
    out = pcie.bytes_per_s > 0 ? Say("gpus.reason.link").Sub("link", LinkName(g, peer)).Rate("bandwidth", peer.bytes_per_s)
                                     .Rate("pcie", pcie.bytes_per_s)
                               : Say("gpus.reason.link_no_pcie").Sub("link", LinkName(g, peer)).Rate("bandwidth", peer.bytes_per_s);
  } else if (pcie.bytes_per_s > 0) {
    out = Say("gpus.reason.pcie_only").Rate("pcie", pcie.bytes_per_s);
  }
  if (gpus > 1) {
    GroupLink group = LinkForGroup(g, gpus);
    if (group.fell_back_to_pcie) out = Say("gpus.reason.link_fallback").Sub("link", out).Int("gpus", gpus);
  }
  return out;
}

void Evaluate(const ModelShape& shape, const TaskRule& rule, const PriceBook* prices, TaskCandidate* c) {
  const GpuSpec& g = *c->gpu;
  c->eligible = Eligible(g, rule);
  double usable = DriverUsableMemory(g).bytes;
  // The split: the rule's, or the fewest GPUs (a power of two up to 8) where the job fits.
  std::vector<int> splits = {rule.tensor_parallel};
  if (rule.smallest_tensor_parallel) splits = {1, 2, 4, 8};
  for (int tp : splits) {
    if (tp > 1 && shape.num_heads % tp != 0) continue;
    Job job = TaskJob(rule, tp);
    auto plan = PlanMemory(shape, job);
    if (!plan.ok()) continue;
    FitResult fit = CheckFit(*plan, job, usable);
    c->job = job;
    c->total_bytes = plan->total_bytes;
    c->usable_bytes = fit.usable_bytes;
    if (!fit.fits) continue;
    c->fits = true;
    c->gpus = GpusOfSplit(job);
    auto speed = PredictThroughput(shape, *plan, job, g);
    if (speed.ok()) {
      if (job.mode == JobMode::kInfer) {
        c->decode_per_stream = speed->decode_per_stream.bound;
        ServingCapacity serving = PlanServing(shape, job, *plan, usable);
        c->max_sequences = serving.max_sequences;
        if (serving.max_sequences > 0) {
          Job full = job;
          full.batch = serving.max_sequences;
          auto at_full = PredictThroughput(shape, *plan, full, g);
          if (at_full.ok()) c->serving_tokens_per_s = at_full->decode_aggregate.bound;
        }
        c->comm_seconds = speed->comm.decode.seconds;
      } else {
        c->training_tokens_per_s = speed->training.bound;
        c->comm_seconds = speed->comm.training.seconds;
      }
    }
    break;
  }
  if (!c->fits) return;
  const double gpus = static_cast<double>(c->gpus);
  switch (rule.rank_by) {
    case RankBy::kTrainingPerWatt:
      c->score = g.tdp_watts.known() && *g.tdp_watts.value > 0 ? c->training_tokens_per_s / gpus / *g.tdp_watts.value : 0;
      break;
    case RankBy::kDecodePerStream: c->score = c->decode_per_stream; break;
    case RankBy::kTrainingPerGpu: c->score = c->training_tokens_per_s / gpus; break;
    case RankBy::kServingPerGpu: c->score = c->serving_tokens_per_s / gpus; break;
  }
  const double tokens_per_s = rule.mode == JobMode::kInfer ? c->serving_tokens_per_s : c->training_tokens_per_s;
  if (prices != nullptr) c->price = prices->Find(g);
  if (c->price != nullptr && tokens_per_s > 0) {
    c->usd_per_million_tokens = UsdPerMillionTokens(c->price->usd_per_hour, gpus, tokens_per_s);
  }

  // Reasons, each with its figures.
  c->reasons.push_back(Say("gpus.reason.fits").Bytes("total", c->total_bytes).Bytes("usable", c->usable_bytes)
                           .Int("gpus", gpus));
  const double bandwidth = MemoryBandwidthBytesPerSecond(g).value_or(0);
  const double bf16 = PeakFlops(g, "bf16").value_or(0);
  switch (rule.rank_by) {
    case RankBy::kTrainingPerWatt:
      c->reasons.push_back(Say("gpus.reason.per_watt").Tokens("rate", c->training_tokens_per_s / gpus)
                               .Num("per_watt", c->score).Num("tdp", g.tdp_watts.ValueOr(0)).Flops("peak", bf16));
      break;
    case RankBy::kDecodePerStream:
      c->reasons.push_back(Say("gpus.reason.decode").Tokens("rate", c->decode_per_stream).Rate("bandwidth", bandwidth));
      break;
    case RankBy::kTrainingPerGpu:
      c->reasons.push_back(Say("gpus.reason.training").Tokens("rate", c->training_tokens_per_s / gpus).Flops("peak", bf16)
                               .Seconds("comm", c->comm_seconds).Int("gpus", gpus));
      break;
    case RankBy::kServingPerGpu:
      c->reasons.push_back(Say("gpus.reason.serving").Tokens("rate", c->serving_tokens_per_s / gpus)
                               .Int("sequences", static_cast<double>(c->max_sequences)).Rate("bandwidth", bandwidth)
                               .Int("gpus", gpus));
      break;
  }
  Phrase link = LinkReason(g, c->job);
  if (!link.empty()) c->reasons.push_back(link);
  if (c->price != nullptr) {
    Phrase price = c->price->user_given ? Say("gpus.reason.price_given") : Say("gpus.reason.price");
    price.Dollars("usd", c->price->usd_per_hour).Text("provider", c->price->provider).Text("date", c->price->date)
        .Dollars("cost", c->usd_per_million_tokens)
        .Key("tokens", rule.mode == JobMode::kInfer ? "gpus.tokens.output" : "gpus.tokens.training");
    c->reasons.push_back(price);
  }
}

}  // namespace

std::string RankByName(RankBy rank_by) {
  switch (rank_by) {
    case RankBy::kTrainingPerWatt: return "training_tokens_per_s_per_watt";
    case RankBy::kDecodePerStream: return "decode_tokens_per_s_per_stream";
    case RankBy::kTrainingPerGpu: return "training_tokens_per_s_per_gpu";
    case RankBy::kServingPerGpu: return "serving_tokens_per_s_per_gpu";
  }
  return "?";
}

const std::vector<TaskRule>& TaskRules() {
  static const std::vector<TaskRule> kRules = [] {
    std::vector<TaskRule> rules;
    TaskRule prototype;  // QLoRA of an 8B model on one workstation card
    prototype.id = "prototype";
    prototype.params = 8e9;
    prototype.mode = JobMode::kQlora;
    prototype.seq = 2048;
    prototype.checkpointing = true;
    prototype.pcie_card_only = true;
    prototype.max_tdp_watts = 450;
    prototype.rank_by = RankBy::kTrainingPerWatt;
    rules.push_back(prototype);

    TaskRule inference;  // the largest of the range, 13B in 16-bit, on one card
    inference.id = "inference-7b-13b";
    inference.params = 13e9;
    inference.seq = 4096;
    inference.pcie_card_only = true;
    inference.rank_by = RankBy::kDecodePerStream;
    rules.push_back(inference);

    TaskRule fine_tune;  // LoRA of a 13B model on one card
    fine_tune.id = "fine-tune";
    fine_tune.params = 13e9;
    fine_tune.mode = JobMode::kLora;
    fine_tune.seq = 4096;
    fine_tune.rank_by = RankBy::kTrainingPerGpu;
    rules.push_back(fine_tune);

    TaskRule training;  // full training of a 13B model, tensor parallel over 8 GPUs
    training.id = "large-training";
    training.params = 13e9;
    training.mode = JobMode::kFull;
    training.seq = 4096;
    training.checkpointing = true;
    training.tensor_parallel = 8;
    training.rank_by = RankBy::kTrainingPerGpu;
    rules.push_back(training);

    TaskRule serving;  // a 70B model in 16-bit at 8k context, on the fewest GPUs where it fits
    serving.id = "llm-serving";
    serving.params = 70e9;
    serving.seq = 8192;
    serving.smallest_tensor_parallel = true;
    serving.nvidia_only = false;
    serving.rank_by = RankBy::kServingPerGpu;
    rules.push_back(serving);
    return rules;
  }();
  return kRules;
}

core::Result<TaskRule> FindTaskRule(const std::string& task_id) {
  std::vector<std::string> ids;
  for (const auto& rule : TaskRules()) {
    if (rule.id == task_id) return rule;
    ids.push_back(rule.id);
  }
  std::string all;
  for (const auto& id : ids) all += (all.empty() ? "" : ", ") + id;
  auto near = core::ClosestMatches(task_id, ids);
  std::string suggestion = near.empty() ? "" : fmt::format(" Did you mean '{}'?", near.front());
  core::Status status = core::Status::InvalidArgument(fmt::format("unknown task '{}'.{} Tasks: {}", task_id, suggestion, all));
  return near.empty() ? status.WithKeys("error.unknown.task", {{"name", task_id}, {"tasks", all}})
                      : status.WithKeys("error.unknown.task.near", {{"name", task_id}, {"near", near.front()}, {"tasks", all}});
}

Job TaskJob(const TaskRule& rule, int tensor_parallel) {
  Job job;
  job.mode = rule.mode;
  job.weight_dtype = rule.dtype;
  job.kv_dtype = rule.dtype;
  job.seq = rule.seq;
  job.batch = rule.batch;
  job.activation_checkpointing = rule.checkpointing;
  job.tensor_parallel = tensor_parallel;
  return job;
}

core::Result<TaskResult> SelectGpus(const SpecDatabase& db, const TaskRule& rule, const PriceBook* prices) {
  TaskResult out;
  out.rule = rule;
  auto shape = ShapeFromParameterCount(rule.params, ShapeFlags{});
  if (!shape.ok()) return shape.status();
  out.shape = std::move(shape.value());
  out.evaluated.reserve(db.gpus().size());
  for (const auto& g : db.gpus()) {
    TaskCandidate c;
    c.gpu = &g;
    Evaluate(out.shape, rule, prices, &c);
    out.evaluated.push_back(std::move(c));
  }
  for (size_t i = 0; i < out.evaluated.size(); ++i) {
    const TaskCandidate& c = out.evaluated[i];
    if (c.eligible && c.fits && c.score > 0) out.picks.push_back(i);
    if (c.eligible && c.fits && c.usd_per_million_tokens > 0) out.by_cost.push_back(i);
  }
  const auto& ev = out.evaluated;
  std::stable_sort(out.picks.begin(), out.picks.end(), [&](size_t a, size_t b) { return ev[a].score > ev[b].score; });
  std::stable_sort(out.by_cost.begin(), out.by_cost.end(), [&](size_t a, size_t b) {
    return ev[a].usd_per_million_tokens < ev[b].usd_per_million_tokens;
  });
  if (out.picks.size() > rule.picks) out.picks.resize(rule.picks);
  if (out.by_cost.size() > rule.picks) out.by_cost.resize(rule.picks);
  return out;
}

}  // namespace gpuprobe::model
