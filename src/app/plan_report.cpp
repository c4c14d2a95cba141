#include "app/plan_report.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/units.h"
#include "knowledge/embedded_knowledge.h"
#include "model/hf_config.h"
#include "model/quantity.h"
#include "model/spec_derivation.h"

namespace gpuprobe::app {
namespace {

core::Result<model::DType> DefaultDType(const model::ModelShape& shape) {
  // The checkpoint's own dtype when the config says and it is a 16/32-bit float.
  if (!shape.torch_dtype.empty()) {
    auto parsed = model::ParseDType(shape.torch_dtype);
    if (parsed.ok() && model::IsFloat16Or32(*parsed)) return *parsed;
  }
  return model::DType::kBf16;
}

core::Status ResolveShape(const PlanOptions& o, PlanReport* report) {
  if (o.model_path.empty() == o.params.empty()) {
    return core::Status::InvalidArgument(
        "give the model as --model PATH (a config.json) or --params COUNT (e.g. 7B), not both or neither",
        "gpuprobe plan --params 8B, or gpuprobe plan --model ./config.json")
            .WithKeys("error.plan.model_or_params", {}, "error.plan.model_or_params.hint");
  }
  if (o.model_path.empty()) {
    auto count = core::ParseCount(o.params);
    if (!count.ok()) return count.status().WithContext("--params");
    model::ShapeFlags flags{o.layers, o.hidden, o.heads, o.kv_heads, o.vocab, o.intermediate};
    auto shape = model::ShapeFromParameterCount(*count, flags);
    if (!shape.ok()) return shape.status();
    report->shape = std::move(shape.value());
    report->model_label = "--params " + o.params;
    return core::Status::Ok();
  }
  auto found = FindModel(o.model_path);
  if (!found.ok()) return found.status();
  checkpoint::ModelSource& source = found->source;
  report->shape = std::move(source.shape);
  report->model_label = source.label;
  report->found_in = source.found_in;
  report->catalog_source = source.catalog_source;
  report->catalog_match = std::move(source.catalog_match);
  report->hub = std::move(found->hub);
  report->checkpoint = std::move(source.checkpoint);
  // Shape flags override the config (e.g. to try a different vocabulary).
  model::ModelShape& s = report->shape;
  if (o.layers) s.num_layers = *o.layers;
  if (o.hidden) s.hidden_size = *o.hidden;
  if (o.heads) s.num_heads = *o.heads;
  if (o.kv_heads) s.num_kv_heads = *o.kv_heads;
  if (o.vocab) s.vocab_size = *o.vocab;
  if (o.intermediate) s.intermediate_size = *o.intermediate;
  if (o.layers || o.hidden || o.heads || o.kv_heads || o.vocab || o.intermediate) {
    if (o.hidden || o.heads) s.head_dim = s.hidden_size / std::max<std::int64_t>(1, s.num_heads);
    // The overridden shape is re-derived as a uniform decoder; the checkpoint's bytes no longer apply.
    GPUPROBE_RETURN_IF_ERROR(model::ValidateShape(s, "shape flags"));
    s.layers.clear();
    model::BuildUniformLayers(s);
    s.notes.push_back({"shape_flags", ""});
    report->checkpoint.reset();
  }
  return core::Status::Ok();
}

core::Status BuildJob(const PlanOptions& o, PlanReport* report) {
  model::Job& job = report->job;
  GPUPROBE_ASSIGN_OR_RETURN(job.mode, model::ParseJobMode(o.mode));
  if (o.dtype.empty()) {
    GPUPROBE_ASSIGN_OR_RETURN(job.weight_dtype, DefaultDType(report->shape));
  } else {
    GPUPROBE_ASSIGN_OR_RETURN(job.weight_dtype, model::ParseDType(o.dtype));
  }
  if (o.kv_dtype.empty()) {
    job.kv_dtype = model::IsFloat16Or32(job.weight_dtype) && job.weight_dtype != model::DType::kFp32 ? job.weight_dtype
                                                                                                     : model::DType::kBf16;
  } else {
    GPUPROBE_ASSIGN_OR_RETURN(job.kv_dtype, model::ParseDType(o.kv_dtype));
    if (job.kv_dtype == model::DType::kInt4 || job.kv_dtype == model::DType::kNf4) {
      return core::Status::InvalidArgument("--kv-dtype must be fp32, fp16, bf16, fp8 or int8")
          .WithKeys("error.plan.kv_dtype", {});
    }
  }
  GPUPROBE_ASSIGN_OR_RETURN(job.optimizer, model::ParseOptimizer(o.optimizer));
  if (o.lora_targets != "all" && o.lora_targets != "attention") {
    return core::Status::InvalidArgument("--lora-targets must be all or attention, got '" + o.lora_targets + "'")
        .WithKeys("error.plan.lora_targets", {{"value", o.lora_targets}});
  }
  job.lora_all_linears = o.lora_targets == "all";
  job.batch = o.batch;
  job.seq = o.seq;
  if (report->traffic_requested && !o.seq_given) {
    job.seq = static_cast<std::int64_t>(*o.prompt_tokens) + static_cast<std::int64_t>(*o.output_tokens);
  }
  job.lora_rank = o.lora_rank;
  job.tensor_parallel = o.tp;
  job.pipeline_parallel = o.pp;
  job.expert_parallel = o.ep;
  job.shared_prefix = o.shared_prefix;
  if (o.dtype.empty() && job.mode != model::JobMode::kFull) {
    // The checkpoint's own storage: its headers' bytes when read, else its quantisation.
    // (Full fine-tuning trains 16/32-bit weights, so it plans with the dtype instead.)
    job.weight_quant = report->shape.quant;
    if (report->checkpoint && report->checkpoint->serving.tensors > 0) {
      job.checkpoint_weight_bytes = report->checkpoint->serving.bytes;
      job.checkpoint_weight_note = model::Say("plan.checkpoint_note")
                                       .Int("files", static_cast<double>(report->checkpoint->files.size()))
                                       .Text("format", report->checkpoint->format)
                                       .Int("tensors", static_cast<double>(report->checkpoint->serving.tensors));
    }
  }
  job.headroom = o.headroom;
  if (o.engine.gpu_memory_utilization && (o.engine.engine.empty() || o.engine.engine.rfind("vllm", 0) == 0)) {
    job.headroom = *o.engine.gpu_memory_utilization;  // vLLM's name for the same share
  }
  // QLoRA recipes turn checkpointing on; others leave it off unless asked.
  job.activation_checkpointing = (job.mode == model::JobMode::kQlora || o.checkpointing) && !o.no_checkpointing;
  return core::Status::Ok();
}

// Every number of the command line through the one validator of its quantity.
core::Status CheckFlags(const PlanOptions& o) {
  using model::Quantity;
  GPUPROBE_RETURN_IF_ERROR(model::CheckQuantity(Quantity::kBatch, static_cast<double>(o.batch), "--batch"));
  GPUPROBE_RETURN_IF_ERROR(model::CheckQuantity(Quantity::kTokens, static_cast<double>(o.seq), "--seq"));
  GPUPROBE_RETURN_IF_ERROR(model::CheckQuantity(Quantity::kGpuCount, o.tp, "--tp"));
  GPUPROBE_RETURN_IF_ERROR(model::CheckQuantity(Quantity::kGpuCount, o.pp, "--pp"));
  GPUPROBE_RETURN_IF_ERROR(model::CheckQuantity(Quantity::kGpuCount, o.ep, "--ep", /*allow_zero=*/true));
  GPUPROBE_RETURN_IF_ERROR(model::CheckQuantity(Quantity::kHeadroom, o.headroom, "--headroom"));
  if (o.engine.gpu_memory_utilization) {
    GPUPROBE_RETURN_IF_ERROR(
        model::CheckQuantity(Quantity::kHeadroom, *o.engine.gpu_memory_utilization, "--gpu-memory-utilization"));
  }
  GPUPROBE_RETURN_IF_ERROR(model::CheckQuantity(Quantity::kLoraRank, o.lora_rank, "--lora-rank"));
  GPUPROBE_RETURN_IF_ERROR(
      model::CheckQuantity(Quantity::kTokens, static_cast<double>(o.shared_prefix), "--shared-prefix", true));
  if (!o.gpu.empty()) GPUPROBE_RETURN_IF_ERROR(model::CheckGpuName(o.gpu, "--gpu"));
  if (o.prompt_tokens) GPUPROBE_RETURN_IF_ERROR(model::CheckQuantity(Quantity::kTokens, *o.prompt_tokens, "--prompt-tokens"));
  if (o.output_tokens) GPUPROBE_RETURN_IF_ERROR(model::CheckQuantity(Quantity::kTokens, *o.output_tokens, "--output-tokens"));
  // A given rate or user count is checked as what it is (--rps 0 is not "no --rps").
  if (o.rps) GPUPROBE_RETURN_IF_ERROR(model::CheckQuantity(Quantity::kRequestRate, *o.rps, "--rps"));
  if (o.users) GPUPROBE_RETURN_IF_ERROR(model::CheckQuantity(Quantity::kUsers, *o.users, "--users"));
  const bool traffic = o.rps || o.users;
  const bool tokens = o.prompt_tokens && o.output_tokens;
  if (traffic ? !tokens : (o.prompt_tokens || o.output_tokens)) {
    return core::Status::InvalidArgument("traffic needs --rps R (or --users N) with --prompt-tokens P and --output-tokens O",
                                         "gpuprobe plan --params 8B --gpu l4 --rps 5 --prompt-tokens 1000 --output-tokens 200")
                                             .WithKeys("error.plan.traffic_needs", {}, "error.plan.traffic_needs.hint");
  }
  if (o.think_time && !o.users) return core::Status::InvalidArgument("--think-time goes with --users (a closed loop of users)")
      .WithKeys("error.plan.think_time", {});
  if (o.tpot_ms) {
    if (!traffic) return core::Status::InvalidArgument("--tpot-ms is a latency target for --rps or --users")
        .WithKeys("error.plan.tpot_needs_traffic", {});
    if (*o.tpot_ms <= 0) return core::Status::InvalidArgument("--tpot-ms must be a positive number of milliseconds")
        .WithKeys("error.plan.tpot_positive", {});
  }
  if (o.p99_wait_ms) {
    if (!traffic || !o.gpu.empty()) {
      return core::Status::InvalidArgument("--p99-wait-ms sets the rental recommendation of --rps or --users without --gpu")
          .WithKeys("error.plan.p99_needs_sweep", {});
    }
    if (!(*o.p99_wait_ms > 0) || !std::isfinite(*o.p99_wait_ms)) {
      return core::Status::InvalidArgument("--p99-wait-ms must be a positive number of milliseconds")
          .WithKeys("error.plan.p99_positive", {});
    }
  }
  if (traffic && o.mode != "infer" && o.mode != "inference") {
    return core::Status::InvalidArgument("--rps and --users size a serving job; use them with --mode infer")
        .WithKeys("error.plan.traffic_infer", {});
  }
  return core::Status::Ok();
}

DtypeDefaults DefaultsOf(const PlanOptions& o) { return {o.dtype.empty(), o.kv_dtype.empty()}; }

model::Traffic TrafficOf(const PlanOptions& o) {
  model::Traffic t;
  t.requests_per_second = o.rps.value_or(0);
  t.users = o.users.value_or(0);
  t.think_seconds = o.think_time.value_or(0);
  t.prompt_tokens = static_cast<std::int64_t>(o.prompt_tokens.value_or(0));
  t.output_tokens = static_cast<std::int64_t>(o.output_tokens.value_or(0));
  t.max_tpot_seconds = o.tpot_ms.value_or(0) / 1000.0;
  return t;
}

// Dollars per million tokens at the bound and at the low end of the efficiency range.
void FillCost(const model::GpuPrice* price, int gpus, double bound, double low, PlanCost* cost) {
  cost->price = price;
  cost->gpus = gpus;
  cost->tokens_per_s_bound = bound;
  cost->tokens_per_s_low = low;
  cost->usd_per_million_bound = model::UsdPerMillionTokens(price->usd_per_hour, gpus, bound);
  cost->usd_per_million_low = model::UsdPerMillionTokens(price->usd_per_hour, gpus, low);
}

core::Status AddGpuSections(const PlanOptions& o, const model::SpecDatabase& db, const model::PriceBook& prices,
                            PlanReport* report) {
  const model::GpuSpec& gpu = *report->gpu;
  const model::Job& job = report->job;
  model::UsableMemory usable = model::DriverUsableMemory(gpu);
  report->gpu_price = prices.Find(gpu);
  report->fits_on_gpu = report->fits.front().fit.fits;
  if (!report->fits_on_gpu) {
    report->options = model::FindFitOptions(report->shape, job, gpu, db, &prices);
    if (report->engine) {
      // Each way to make it fit is held to the same engine's budget (one truth), on the memory
      // the engine section used where it is the same GPU.
      // The engine's verdict decides each option both ways: the memory model charges a whole
      // prefill's activations that the engine does not (it profiles max_num_batched_tokens),
      // so an option the model refuses can start (fp8 KV), and one it accepts can fail.
      // The engine's own log of this GPU corrects each option planned on the same kind of GPU
      // by what the rules missed (per GPU), so the options agree with the log's figures.
      std::optional<double> correction;
      if (report->from_log && report->engine->options.engine != model::Engine::kLlamaCpp) {
        correction = LogKvCorrection(report->from_log->facts, *report->engine);
      }
      for (model::FitOption& option : report->options) {
        EngineFlags flags = o.engine;
        if (option.id == "shorter_context") {
          // The engine's own longest context on this GPU (its KV cache), as its log will say;
          // with the engine's real log (--from-log), the longest it logged.
          std::int64_t longest = report->engine->budget.longest_that_fits;
          if (report->from_log) {
            const auto& f = report->from_log->facts;
            const std::int64_t block = f.block_size.value_or(16);
            std::int64_t logged = f.estimated_max_len.value_or(f.kv_tokens.value_or(0));
            logged = logged / block * block;
            if (logged > 0) longest = logged;
          }
          if (longest > 0 && option.gpu == report->gpu && longest < report->job.seq) {
            option.job.seq = longest;
            if (option.job.shared_prefix >= longest) option.job.shared_prefix = 0;
            option.value = longest;
            option.change = model::Say("plan.option.shorter_context_engine")
                                .Int("seq", static_cast<double>(longest))
                                .Text("flag", std::to_string(longest));
            auto replanned = model::PlanMemory(report->shape, option.job);
            if (replanned.ok()) option.plan = std::move(replanned.value());
          }
          flags.max_model_len = option.job.seq;
        }
        auto engine_options = EngineOptionsFrom(flags, option.job);
        if (!engine_options.ok()) continue;
        EngineGpu on = option.gpu == report->gpu ? report->engine->gpu : EngineGpuFromSpec(*option.gpu);
        auto p = PlanWithEngine(report->shape, option.job, option.plan, on, *engine_options, "MODEL");
        if (!p.ok()) continue;
        option.fit.fits = p->fits;
        option.engine_kv_left_bytes = p->budget.kv_cache_bytes;
        option.engine_kv_request_bytes = p->budget.kv_bytes_per_request;
        if (correction && option.gpu == report->gpu) {
          option.engine_kv_log_correction_bytes = *correction;
          option.engine_kv_left_bytes = std::max(0.0, p->budget.kv_cache_bytes - *correction);
          const double requests = static_cast<double>(std::max<std::int64_t>(1, option.job.batch));
          // The engine starts when one request of max_model_len fits its KV cache, and serves
          // the batch when all fit at once.
          option.fit.fits = option.engine_kv_left_bytes > 0 && option.engine_kv_left_bytes + 1.0 >= p->budget.kv_bytes_per_request * requests;
        }
        if (!option.fit.fits) {
          option.throughput.reset();
        } else if (!option.throughput) {
          auto speed = model::PredictThroughput(report->shape, option.plan, option.job, *option.gpu);
          if (speed.ok()) option.throughput = std::move(speed.value());
        }
      }
      // Those that start first, cheapest change first, as FindFitOptions orders them.
      std::stable_sort(report->options.begin(), report->options.end(), [](const model::FitOption& a, const model::FitOption& b) {
        if (a.fit.fits != b.fit.fits) return a.fit.fits;
        return a.cost_rank < b.cost_rank;
      });
    }
  } else {
    report->capacity = model::FindCapacity(report->shape, job, usable.bytes);
    if (job.mode == model::JobMode::kInfer) {
      report->serving = model::PlanServing(report->shape, job, report->memory, usable.bytes);
    }
    auto throughput = model::PredictThroughput(report->shape, report->memory, job, gpu);
    if (throughput.ok()) report->throughput = std::move(throughput.value());
  }
  // Inference with an engine: capacity and concurrency are the engine's (one truth with its section).
  if (report->engine && report->engine->budget.starts && job.mode == model::JobMode::kInfer) {
    const model::EngineBudget& b = report->engine->budget;
    const auto at_once = static_cast<std::int64_t>(std::floor(b.max_concurrency + 1e-9));
    if (report->capacity) {
      report->capacity->max_batch_at_seq = at_once;
      report->capacity->max_seq_at_batch = b.kv_tokens / std::max<std::int64_t>(1, job.batch);
    }
    if (report->serving) {
      report->serving->kv_budget_bytes = b.kv_cache_bytes;
      report->serving->kv_bytes_per_sequence = b.kv_bytes_per_request;
      report->serving->max_sequences = at_once;
      report->serving->concurrency = b.max_concurrency;
      if (job.shared_prefix > 0) {
        // The prefix's full blocks are kept once and shared (vLLM's prefix caching).
        const double block = static_cast<double>(std::max<std::int64_t>(1, b.block_size));
        const double prefix = std::floor(static_cast<double>(job.shared_prefix) / block) * block * report->engine->kv_bytes_per_token;
        const double own = b.kv_bytes_per_request - prefix;
        report->serving->max_sequences_shared_prefix =
            own > 0 && b.kv_cache_bytes > prefix ? static_cast<std::int64_t>(std::floor((b.kv_cache_bytes - prefix) / own)) : at_once;
      }
    }
  }
  if (report->traffic_requested) {
    auto traffic = model::SizeForTraffic(report->shape, job, gpu, TrafficOf(o));
    if (!traffic.ok()) return traffic.status();
    report->traffic = std::move(traffic.value());
    report->rental = RentalFiguresFor(gpu, report->gpu_price, *report->traffic, model::DTypeName(job.weight_dtype));
    report->rental->fp16_for_gpu = report->dtype_fp16_for_gpu;
  }
  // Cost at the job's own figures: inference at the KV-limited full concurrency, training as planned.
  if (report->gpu_price != nullptr && report->throughput) {
    PlanCost cost;
    const int gpus = model::GpusOfSplit(job);
    if (job.mode == model::JobMode::kInfer && report->serving && report->serving->max_sequences > 0) {
      model::Job full = job;
      full.batch = report->serving->max_sequences;
      auto at_full = model::PredictThroughput(report->shape, report->memory, full, gpu);
      if (at_full.ok()) {
        FillCost(report->gpu_price, gpus, at_full->decode_aggregate.bound, at_full->decode_aggregate.low, &cost);
        cost.sequences = full.batch;
        report->cost = cost;
      }
    } else if (report->throughput->has_training) {
      FillCost(report->gpu_price, gpus, report->throughput->training.bound, report->throughput->training.low, &cost);
      cost.train_tokens = report->train_tokens;
      report->cost = cost;
    }
  }
  return core::Status::Ok();
}

// The name the engine's command line starts: the Hub id or path given, a placeholder for --params.
std::string EngineModelName(const PlanOptions& o, const PlanReport& report) {
  const std::string& m = o.model_path;
  const bool json_file = m.size() >= 5 && m.compare(m.size() - 5, 5, ".json") == 0;
  if (m.empty() || m == "-" || json_file) return "MODEL";  // --params, or a config without its weights
  return report.model_label.empty() ? m : report.model_label;
}

// The engine's verdict on one GPU of the fit table (inference): whether it starts and holds the
// batch, the memory it may use and what its KV cache keeps free after the batch. Not fitting
// on one, the fewest GPUs of a tensor-parallel split (2, 4, 8 dividing the KV heads) that do.
void EngineFit(const PlanReport& report, const model::EngineOptions& options, const EngineGpu& gpu, PlanFit* row) {
  auto at = [&](int tp) -> std::optional<PlanEngine> {
    model::Job job = report.job;
    job.tensor_parallel = tp;
    auto memory = tp == report.job.tensor_parallel ? core::Result<model::MemoryPlan>(report.memory)
                                                    : model::PlanMemory(report.shape, job);
    if (!memory.ok()) return std::nullopt;
    auto p = PlanWithEngine(report.shape, job, *memory, gpu, options, "MODEL");
    if (!p.ok()) return std::nullopt;
    return std::move(p.value());
  };
  auto here = at(report.job.tensor_parallel);
  if (!here) return;
  const model::EngineBudget& b = here->budget;
  row->fit.fits = here->fits;
  row->fit.usable_bytes = b.requested_bytes;
  row->fit.free_after_bytes = b.kv_cache_bytes - static_cast<double>(report.job.batch) * b.kv_bytes_per_request;
  const int split = model::GpusOfSplit(report.job);
  if (here->fits) {
    row->fit.gpus_needed = split;
    return;
  }
  row->fit.gpus_needed = 0;
  if (split > 1) return;
  const std::int64_t heads = std::max<std::int64_t>(1, report.shape.num_kv_heads);
  for (int tp : {2, 4, 8}) {
    if (heads % tp != 0 && tp % heads != 0) continue;
    auto split_plan = at(tp);
    if (split_plan && split_plan->fits) {
      row->fit.gpus_needed = tp;
      return;
    }
  }
}

}  // namespace

core::Result<PlanReport> BuildPlanReport(const PlanOptions& given) {
  PlanReport report;
  PlanOptions o = given;
  if (!o.from_log.empty()) {
    auto log = ReadLogComparison(o.from_log);
    if (!log.ok()) return log.status();
    report.from_log = std::move(log.value());
    if (o.model_path.empty() && o.params.empty()) {
      // Without the model the log is read back alone: its budget, its checks, the flags to change.
      report.log_only = true;
      report.from_log->advice = AdviseFromLog(report.from_log->facts, nullptr, o.engine.max_model_len.value_or(0));
      return report;
    }
    // The same engine, flags and GPU as the log, where the command line does not say otherwise.
    FlagsFromLog(report.from_log->facts, &o.engine, &o.seq, o.seq_given, &o.tp);
  }
  // --max-model-len is the context the engine must serve: the memory table, the fit verdict
  // and the ways to make it fit plan that context too (--seq, when given, is the user's word).
  if (o.engine.max_model_len && *o.engine.max_model_len > 0 && !o.seq_given) o.seq = *o.engine.max_model_len;
  GPUPROBE_RETURN_IF_ERROR(CheckFlags(o));
  report.traffic_requested = o.rps || o.users;
  if (report.traffic_requested) {
    GPUPROBE_RETURN_IF_ERROR(model::ValidateTraffic(TrafficOf(o)));
  }
  GPUPROBE_RETURN_IF_ERROR(ResolveShape(o, &report));
  GPUPROBE_RETURN_IF_ERROR(BuildJob(o, &report));
  if (!o.train_tokens.empty() && report.job.mode == model::JobMode::kInfer) {
    return core::Status::InvalidArgument("--train-tokens prices a training run; use it with --mode lora, qlora or full")
        .WithKeys("error.plan.train_tokens_mode", {});
  }
  if (!o.train_tokens.empty()) {
    auto tokens = core::ParseCount(o.train_tokens);
    if (!tokens.ok()) return tokens.status().WithContext("--train-tokens");
    GPUPROBE_RETURN_IF_ERROR(model::CheckQuantity(model::Quantity::kTrainTokens, std::floor(*tokens), "--train-tokens"));
    report.train_tokens = std::floor(*tokens);
  }

  auto db_result = knowledge::Specs();
  if (!db_result.ok()) return db_result.status();
  const model::SpecDatabase& db = **db_result;
  auto prices = knowledge::PricesWithOverrides(o.prices);
  if (!prices.ok()) return prices.status();
  report.prices = std::make_shared<model::PriceBook>(std::move(prices.value()));

  // The serving engine (inference only; training modes ignore the engine's flags), and the GPU
  // as its driver reports it (--gpu-from), which names the GPU when --gpu does not.
  std::optional<model::EngineOptions> engine_options;
  std::optional<EngineGpu> engine_gpu;
  if (report.job.mode == model::JobMode::kInfer) {
    auto options = EngineOptionsFrom(o.engine, report.job);
    if (!options.ok()) return options.status();
    engine_options = std::move(options.value());
    if (!o.engine.gpu_from.empty()) {
      auto gpu = ReadEngineGpu(o.engine.gpu_from);
      if (!gpu.ok()) return gpu.status();
      engine_gpu = std::move(gpu.value());
    } else if (report.from_log) {
      engine_gpu = GpuFromLog(report.from_log->facts, o.from_log);
      if (engine_gpu && !o.gpu.empty()) {
        auto spec = db.Find(o.gpu);
        if (spec.ok()) {
          engine_gpu->spec = *spec;
          engine_gpu->name = (*spec)->name;
        }
      }
    }
  } else if (!o.engine.gpu_from.empty()) {
    return core::Status::InvalidArgument("--gpu-from plans a serving engine on that GPU; use it with --mode infer")
        .WithKeys("error.plan.gpu_from_infer", {});
  }
  std::vector<const model::GpuSpec*> candidates;
  if (o.gpu.empty() && engine_gpu) {
    report.gpu = engine_gpu->spec;
    if (report.gpu != nullptr) candidates.push_back(report.gpu);
  } else if (!o.gpu.empty()) {
    auto found = db.Find(o.gpu);
    if (!found.ok()) return found.status().WithContext("--gpu");
    report.gpu = *found;
    report.gpu_query = o.gpu;
    for (const model::GpuSpec* other : db.OtherVariants(o.gpu, **found)) report.gpu_other_variants.push_back(other->name);
    candidates.push_back(*found);
  } else if (!engine_gpu) {
    for (const auto& g : db.gpus()) {
      if (g.memory_size_gb_vendor.known()) candidates.push_back(&g);
    }
  }
  if (report.gpu != nullptr) {
    // The job as this GPU runs it (a bf16 default is fp16 where the GPU has no bf16).
    report.dtype_fp16_for_gpu = Bf16DefaultBecameFp16(report.job, *report.gpu, DefaultsOf(o));
    report.job = PlanJobForGpu(report.job, *report.gpu, DefaultsOf(o));
  }
  auto memory = model::PlanMemory(report.shape, report.job);
  if (!memory.ok()) return memory.status();
  report.memory = std::move(memory.value());
  for (const auto* g : candidates) {
    model::UsableMemory usable = model::DriverUsableMemory(*g);
    report.fits.push_back({g, model::CheckFit(report.memory, report.job, usable.bytes, static_cast<int>(report.shape.num_heads)), usable.estimated});
  }
  // Inference: the serving engine's budget is the verdict, on every GPU of the table (one truth
  // with the engine section below).
  if (engine_options) {
    report.fit_engine = EngineDisplayName(*engine_options);
    for (PlanFit& row : report.fits) {
      const bool captured = engine_gpu.has_value();  // then the table holds that one GPU
      EngineFit(report, *engine_options, captured ? *engine_gpu : EngineGpuFromSpec(*row.gpu), &row);
      if (captured) row.usable_estimated = false;
    }
    std::optional<EngineGpu> gpu = engine_gpu;
    if (!gpu && report.gpu != nullptr) gpu = EngineGpuFromSpec(*report.gpu);
    if (gpu) {
      auto planned = PlanWithEngine(report.shape, report.job, report.memory, *gpu, *engine_options, EngineModelName(o, report));
      if (!planned.ok()) return planned.status();
      report.engine = std::move(planned.value());
      report.fits_on_gpu = report.engine->fits;
    }
  }
  // Fits first (smallest card that fits first: the cheapest adequate choice), then fewest GPUs.
  std::stable_sort(report.fits.begin(), report.fits.end(), [](const PlanFit& a, const PlanFit& b) {
    if (a.fit.fits != b.fit.fits) return a.fit.fits;
    if (a.fit.fits) return a.fit.usable_bytes < b.fit.usable_bytes;
    int an = a.fit.gpus_needed == 0 ? 1 << 30 : a.fit.gpus_needed;
    int bn = b.fit.gpus_needed == 0 ? 1 << 30 : b.fit.gpus_needed;
    if (an != bn) return an < bn;
    return a.fit.usable_bytes > b.fit.usable_bytes;
  });
  if (report.from_log) {
    std::int64_t wanted = given.engine.max_model_len.value_or(0);
    report.from_log->advice = AdviseFromLog(report.from_log->facts, report.engine ? &*report.engine : nullptr, wanted);
  }
  if (report.gpu != nullptr) {
    GPUPROBE_RETURN_IF_ERROR(AddGpuSections(o, db, *report.prices, &report));
    if (report.engine) report.fits_on_gpu = report.engine->fits;
  }
  if (report.gpu == nullptr && report.traffic_requested) {
    // The rental answer: every GPU with a price, each planned as `plan --gpu` would plan it.
    auto sweep = SweepRentals(report.shape, report.job, DefaultsOf(o), *report.prices, TrafficOf(o),
                              o.p99_wait_ms.value_or(kRecommendP99WaitMs) / 1000.0);
    if (!sweep.ok()) return sweep.status();
    report.rental_sweep = std::move(sweep.value());
    report.fits_on_gpu = !report.rental_sweep->rows.empty();
  }
  // --max-model-len -1: the engine chose the longest context that fits. The memory table, the
  // capacity and the serving sections then plan that length, as --max-model-len N would (one
  // length on the screen, not the chosen one above and --seq's default below).
  const std::int64_t chosen = report.engine ? report.engine->budget.max_model_len : 0;
  if (given.engine.max_model_len && *given.engine.max_model_len == -1 && !given.seq_given && chosen > 0) {
    if (chosen == report.job.seq) {
      report.max_len_chosen = chosen;
      return report;
    }
    PlanOptions again = given;
    again.engine.max_model_len = chosen;
    auto second = BuildPlanReport(again);
    if (second.ok()) {
      second->max_len_chosen = chosen;
      return second;
    }
  }
  return report;
}

ParamsBasis BasisOfParams(const PlanReport& r) {
  const model::ModelShape& s = r.shape;
  for (const auto& note : s.notes) {
    if (note.id == "config_unreadable") return ParamsBasis::kHeaders;
  }
  if (s.params_override > 0) return ParamsBasis::kGiven;
  if (r.checkpoint && r.checkpoint->matches_recipe && !*r.checkpoint->matches_recipe) return ParamsBasis::kHeaders;
  if (r.checkpoint && r.checkpoint->matches_recipe && *r.checkpoint->matches_recipe) return ParamsBasis::kExact;
  if (!s.assumed_reference.empty()) return ParamsBasis::kApproximate;
  for (const auto& note : s.notes) {
    if (note.id == "structure_approximate" || note.id == "structure_unexercised" || note.id == "generic_decoder" ||
        note.id == "vision_not_counted") {
      return ParamsBasis::kApproximate;
    }
  }
  return ParamsBasis::kExact;
}

std::int64_t ShownParams(const PlanReport& r) {
  if (BasisOfParams(r) == ParamsBasis::kHeaders && r.checkpoint) {
    return static_cast<std::int64_t>(r.checkpoint->serving.elements);
  }
  return r.memory.params.total;
}

}  // namespace gpuprobe::app
