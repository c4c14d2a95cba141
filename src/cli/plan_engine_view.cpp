// The serving-engine section of a plan (app/plan_engine.h): the engine's budget line by line,
// the KV cache in blocks and tokens, the maximum concurrency, the verdict, the command line and
// the lines the engine will log; text and JSON. The engine's own command and log lines are
// printed as they are (quoted), in every language.
#include <cctype>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/plan_view.h"
#include "core/strings.h"
#include "core/units.h"
#include "report/phrase_text.h"
#include "report/table.h"

namespace gpuprobe::cli {
namespace {

using model::Engine;

std::string Int(std::int64_t n) { return core::FormatInteger(static_cast<std::uint64_t>(std::max<std::int64_t>(n, 0))); }

// The fraction the engine's "requested" row applies.
double Fraction(const app::PlanEngine& p) {
  const auto& o = p.options;
  switch (o.engine) {
    case Engine::kVllm: return o.gpu_memory_utilization.value_or(0.9);
    case Engine::kSglang:
      return p.budget.total_bytes > 0 ? p.budget.requested_bytes / p.budget.total_bytes : 0;
    case Engine::kTrtllm: return o.kv_cache_free_fraction.value_or(0.9);
    default: return 0.9;
  }
}

std::string FailureText(const app::PlanEngine& p, const report::Texts& t) {
  const auto& b = p.budget;
  return Tr(t, "plan.engine.failure." + b.failure, fmt::arg("len", Int(b.max_model_len)),
            fmt::arg("need", core::FormatBytesBinary(b.kv_bytes_per_request)),
            fmt::arg("kv", core::FormatBytesBinary(std::max(0.0, b.kv_cache_bytes))), fmt::arg("longest", Int(b.longest_that_fits)),
            fmt::arg("free", core::FormatBytesBinary(p.gpu.free_bytes.value_or(0))),
            fmt::arg("requested", core::FormatBytesBinary(b.requested_bytes)),
            fmt::arg("used", core::FormatBytesBinary(p.gpu.other_processes_bytes)));
}

}  // namespace

std::string RenderEngine(const PlanReport& r, const report::Texts& t) {
  if (!r.engine) return {};
  const app::PlanEngine& p = *r.engine;
  const model::EngineBudget& b = p.budget;
  const app::EngineGpu& g = p.gpu;
  std::string out = "\n";
  std::string source = g.from_driver ? Tr(t, "plan.engine.source.driver", fmt::arg("source", g.source)) : t.Get("plan.engine.source.spec");
  out += Tr(t, "plan.engine.title", fmt::arg("engine", app::EngineDisplayName(p.options)), fmt::arg("gpu", GpuNameText(g.name, t)),
            fmt::arg("source", source)) + "\n";
  out += "  " + Tr(t, "plan.engine.gpu", fmt::arg("total", core::FormatBytesBinary(g.total_bytes)),
                   fmt::arg("reported", core::FormatBytesBinary(g.reported_total_bytes)),
                   fmt::arg("reserved", core::FormatBytesBinary(g.reserved_bytes)), fmt::arg("count", g.count)) + "\n";
  if (g.free_bytes) {
    out += "  " + Tr(t, "plan.engine.gpu.free", fmt::arg("free", core::FormatBytesBinary(*g.free_bytes)),
                     fmt::arg("used", core::FormatBytesBinary(g.other_processes_bytes)), fmt::arg("processes", g.processes)) + "\n";
  }
  if (g.ecc_enabled) out += "  " + t.Get(*g.ecc_enabled ? "plan.engine.ecc_on" : "plan.engine.ecc_off") + "\n";
  if (r.max_len_chosen > 0) {
    // Which bound chose it: the model's own limit (memory would hold more) or the KV cache.
    const bool by_config = b.longest_that_fits > r.max_len_chosen;
    std::string bound = by_config ? Tr(t, "plan.engine.len_bound.config", fmt::arg("longest", Int(b.longest_that_fits)))
                                  : t.Get("plan.engine.len_bound.memory");
    out += "  " + Tr(t, "plan.engine.len_chosen", fmt::arg("len", Int(r.max_len_chosen)), fmt::arg("bound", bound)) + "\n";
  }
  if (g.mig_slices > 0) {
    out += "  " + Tr(t, "plan.engine.mig", fmt::arg("slices", g.mig_slices), fmt::arg("bytes", core::FormatBytesBinary(g.mig_slice_bytes))) + "\n";
  }
  // The budget, line by line, as the engine computes it.
  report::TextTable table;
  table.SetAlign(1, report::Align::kRight);
  table.AddRow({Tr(t, "plan.engine.row.requested." + std::string(model::EngineName(p.options.engine)),
                   fmt::arg("total", core::FormatBytesBinary(b.total_bytes)), fmt::arg("fraction", fmt::format("{:.3g}", Fraction(p)))),
                // llama.cpp: the memory it has (what it allocates is the rows below).
                core::FormatBytesBinary(p.options.engine == Engine::kLlamaCpp ? b.total_bytes : b.requested_bytes)});
  table.AddRow({t.Get("plan.engine.row.weights"), core::FormatBytesBinary(b.weights_bytes)});
  if (b.activation_peak_bytes > 0) {
    table.AddRow({Tr(t, "plan.engine.row.activation", fmt::arg("tokens", Int(b.max_num_batched_tokens > 0 ? b.max_num_batched_tokens : 512))),
                  core::FormatBytesBinary(b.activation_peak_bytes)});
  }
  if (b.non_torch_bytes > 0) table.AddRow({t.Get("plan.engine.row.non_torch"), core::FormatBytesBinary(b.non_torch_bytes)});
  if (b.cuda_graph_bytes > 0) table.AddRow({t.Get("plan.engine.row.cuda_graphs"), core::FormatBytesBinary(b.cuda_graph_bytes)});
  table.AddRow({t.Get("plan.engine.row.kv"), b.kv_cache_bytes > 0 ? core::FormatBytesBinary(b.kv_cache_bytes)
                                                                   : "-" + core::FormatBytesBinary(-b.kv_cache_bytes)});
  if (b.host_bytes > 0) table.AddRow({t.Get("plan.engine.row.host"), core::FormatBytesBinary(b.host_bytes)});
  out += table.Render(2);
  if (b.kv_tokens > 0) {
    out += "  " + Tr(t, "plan.engine.kv", fmt::arg("bytes", core::FormatBytesBinary(b.kv_cache_bytes)),
                     fmt::arg("blocks", Int(b.num_blocks > 0 ? b.num_blocks : b.kv_tokens / std::max<std::int64_t>(1, b.block_size))),
                     fmt::arg("block", b.block_size), fmt::arg("tokens", Int(b.kv_tokens)),
                     fmt::arg("per_token", core::FormatBytesBinary(p.kv_bytes_per_token))) + "\n";
  }
  if (b.max_concurrency > 0) {
    out += "  " + Tr(t, "plan.engine.concurrency", fmt::arg("len", Int(b.max_model_len)), fmt::arg("x", fmt::format("{:.2f}", b.max_concurrency))) + "\n";
  }
  if (!b.starts) {
    out += "  " + Tr(t, "plan.engine.verdict.fail", fmt::arg("reason", FailureText(p, t))) + "\n";
    if (b.longest_that_fits > 0 && b.failure == "max_len_exceeds_kv") {
      // With the engine's own log the fix is the logged figure (its section below); this one
      // is the prediction, said so.
      std::string logged;
      if (r.from_log) {
        for (const auto& a : r.from_log->advice) {
          if (a.flag == "--max-model-len" && logged.empty()) logged = a.value;
        }
      }
      if (!logged.empty()) {
        out += "  " + Tr(t, "plan.engine.fix.len_logged", fmt::arg("logged", logged), fmt::arg("longest", b.longest_that_fits)) + "\n";
      } else {
        out += "  " + Tr(t, r.from_log ? "plan.engine.fix.len_predicted" : "plan.engine.fix.len", fmt::arg("longest", b.longest_that_fits)) +
               "\n";
      }
    }
  } else {
    const double at_once = p.options.engine == Engine::kLlamaCpp ? static_cast<double>(p.options.n_parallel) : b.max_concurrency;
    // Whole requests, then the engine's own fractional figure as it logs it ("7.59x").
    out += "  " + Tr(t, p.fits ? "plan.engine.verdict.fits" : "plan.engine.verdict.queues", fmt::arg("batch", p.batch),
                     fmt::arg("len", Int(b.max_model_len)), fmt::arg("x", fmt::format("{:.2f}", at_once)),
                     fmt::arg("whole", Int(static_cast<std::int64_t>(std::floor(at_once))))) + "\n";
  }
  // The command is the one asked for; when it will not start, the label says so (the fix is above).
  out += "  " + report::Heading(t, t.Get(p.budget.starts ? "plan.engine.command" : "plan.engine.command_fails")) + "\n    $ " +
         p.command_line + "\n";
  // A context that does not fit: the same command with the length that does (the engine's log's
  // figure when there is one, else the prediction), ready to paste.
  if (!b.starts && b.failure == "max_len_exceeds_kv") {
    std::int64_t len = b.longest_that_fits;
    bool logged = false;
    if (r.from_log) {
      for (const auto& a : r.from_log->advice) {
        if (a.flag == "--max-model-len" && !a.value.empty() && a.reason == "len") {
          len = std::atoll(a.value.c_str());
          logged = true;
        }
      }
    }
    const std::string flag = "--max-model-len " + std::to_string(b.max_model_len);
    const size_t at = p.command_line.find(flag);
    if (len > 0 && at != std::string::npos) {
      std::string fixed = p.command_line;
      fixed.replace(at, flag.size(), "--max-model-len " + std::to_string(len));
      out += "  " + report::Heading(t, t.Get(logged ? "plan.engine.command_fixed_log" : "plan.engine.command_fixed")) + "\n    $ " +
             fixed + "\n";
    }
  }
  if (!p.log_lines.empty()) {
    out += "  " + t.Get("plan.engine.logs") + "\n";
    for (const auto& line : p.log_lines) out += "    \"" + line + "\"\n";
  }
  if (!b.assumptions.empty()) {
    out += "  " + report::Heading(t, t.Get("plan.engine.assumptions")) + "\n";
    for (const auto& a : b.assumptions) out += "    - " + Say(t, a) + "\n";
  }
  return out;
}

nlohmann::json EngineJson(const PlanReport& r, const report::Texts& t) {
  if (!r.engine) return nullptr;
  const app::PlanEngine& p = *r.engine;
  const model::EngineBudget& b = p.budget;
  const app::EngineGpu& g = p.gpu;
  nlohmann::json assumptions = nlohmann::json::array();
  for (const auto& a : b.assumptions) assumptions.push_back(Say(t, a));
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  return {
      {"engine", model::EngineName(p.options.engine)},
      {"generation", p.options.engine == Engine::kVllm ? nlohmann::json(p.options.vllm_v0 ? "v0" : "v1") : nlohmann::json(nullptr)},
      {"gpu", {{"name", g.name}, {"memory_from", g.from_driver ? "driver" : "spec_sheet"}, {"source", g.source},
               {"total_bytes", g.total_bytes}, {"reported_total_bytes", g.reported_total_bytes}, {"reserved_bytes", g.reserved_bytes},
               {"free_bytes", opt(g.free_bytes)}, {"used_bytes", g.other_processes_bytes}, {"processes", g.processes},
               {"count", g.count}, {"ecc_enabled", g.ecc_enabled ? nlohmann::json(*g.ecc_enabled) : nlohmann::json(nullptr)},
               {"mig_instances", g.mig_slices}}},
      {"tensor_parallel", p.tensor_parallel},
      {"pipeline_parallel", p.pipeline_parallel},
      {"kv_bytes_per_token_per_gpu", p.kv_bytes_per_token},
      {"budget", {{"total_bytes", b.total_bytes}, {"requested_bytes", b.requested_bytes}, {"weights_bytes", b.weights_bytes},
                  {"activation_peak_bytes", b.activation_peak_bytes}, {"non_torch_bytes", b.non_torch_bytes},
                  {"cuda_graph_bytes", b.cuda_graph_bytes}, {"kv_cache_bytes", b.kv_cache_bytes}, {"host_bytes", b.host_bytes},
                  {"max_num_batched_tokens", b.max_num_batched_tokens}, {"max_num_seqs", b.max_num_seqs},
                  {"block_size", b.block_size}, {"num_blocks", b.num_blocks}, {"kv_tokens", b.kv_tokens},
                  {"max_model_len", b.max_model_len}, {"kv_bytes_per_request", b.kv_bytes_per_request},
                  {"max_concurrency", b.max_concurrency}, {"longest_that_fits", b.longest_that_fits},
                  {"gpu_layers", b.gpu_layers}}},
      {"max_model_len_chosen", r.max_len_chosen > 0 ? nlohmann::json(r.max_len_chosen) : nlohmann::json(nullptr)},
      {"starts", b.starts},
      {"failure", b.failure.empty() ? nlohmann::json(nullptr) : nlohmann::json(b.failure)},
      {"batch", p.batch},
      {"fits", p.fits},
      {"command_line", p.command_line},
      {"log_lines", p.log_lines},
      {"assumptions", assumptions},
  };
}

}  // namespace gpuprobe::cli

namespace gpuprobe::cli {
namespace {

std::string GiB(std::optional<double> bytes) { return bytes ? core::FormatBytesBinary(*bytes) : "-"; }
std::string Count(std::optional<std::int64_t> n) { return n ? Int(*n) : "-"; }
// A checked figure: bytes (the engines' sizes) in binary units, counts and ratios as numbers.
std::string Figure(double v) { return v >= 1024.0 * 1024.0 ? core::FormatBytesBinary(v) : fmt::format("{:.4g}", v); }

}  // namespace

std::string RenderFromLog(const PlanReport& r, const report::Texts& t) {
  if (!r.from_log) return {};
  const app::LogComparison& c = *r.from_log;
  const telemetry::EngineLogFacts& f = c.facts;
  const model::EngineBudget* b = r.engine ? &r.engine->budget : nullptr;
  std::string generation = f.generation;
  for (char& ch : generation) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  std::string engine = f.engine == "vllm" ? (generation.empty() ? "vLLM" : "vLLM " + generation) : f.engine;
  std::string out = "\n" + Tr(t, "plan.log.title", fmt::arg("file", c.file), fmt::arg("engine", engine)) + "\n";
  // The plan took V0's rules from the log's wording: said, since the user asked for none.
  if (f.engine == "vllm" && f.generation == "v0" && r.engine && r.engine->options.vllm_v0) out += "  " + t.Get("plan.log.generation_v0") + "\n";
  report::TextTable table({t.Get("plan.log.figure"), t.Get("plan.log.logged"), t.Get("plan.log.predicted")});
  table.SetAlign(1, report::Align::kRight);
  table.SetAlign(2, report::Align::kRight);
  auto bytes_row = [&](const char* key, std::optional<double> logged, std::optional<double> predicted) {
    if (!logged && !predicted) return;
    table.AddRow({t.Get(key), GiB(logged), GiB(predicted)});
  };
  auto opt = [&](double v) { return b ? std::optional<double>(v) : std::nullopt; };
  bytes_row("plan.log.row.total", f.total_bytes, opt(b ? b->total_bytes : 0));
  bytes_row("plan.log.row.requested", f.requested_bytes, opt(b ? b->requested_bytes : 0));
  bytes_row("plan.log.row.weights", f.weights_bytes, opt(b ? b->weights_bytes : 0));
  bytes_row("plan.log.row.non_torch", f.non_torch_bytes, opt(b ? b->non_torch_bytes : 0));
  bytes_row("plan.log.row.activation", f.activation_peak_bytes, opt(b ? b->activation_peak_bytes : 0));
  bytes_row("plan.log.row.kv", f.kv_cache_bytes, opt(b ? b->kv_cache_bytes : 0));
  if (f.kv_tokens || b) table.AddRow({t.Get("plan.log.row.tokens"), Count(f.kv_tokens), b ? Int(b->kv_tokens) : "-"});
  if (f.gpu_blocks || (b && b->num_blocks > 0)) {
    table.AddRow({t.Get("plan.log.row.blocks"), Count(f.gpu_blocks), b ? Int(b->num_blocks) : "-"});
  }
  if (f.max_concurrency || (b && b->max_concurrency > 0)) {
    table.AddRow({t.Get("plan.log.row.concurrency"), f.max_concurrency ? fmt::format("{:.2f}x", *f.max_concurrency) : "-",
                  b ? fmt::format("{:.2f}x", b->max_concurrency) : "-"});
  }
  out += table.Render(2);
  // A prediction far from what the engine logged is said, with which one to act on.
  if (r.engine) {
    if (auto gap = app::KvGapFromLog(f, *r.engine); gap && gap->Large()) {
      out += "  " + Tr(t, "plan.log.gap", fmt::arg("pct", fmt::format("{:.0f}", std::fabs(gap->share) * 100)),
                       fmt::arg("direction", t.Get(gap->share > 0 ? "plan.log.gap.more" : "plan.log.gap.less"))) + "\n";
    }
  }
  if (!c.checks.empty()) {
    out += "  " + t.Get("plan.log.checks") + "\n";
    for (const auto& check : c.checks) {
      out += "    " + Tr(t, check.holds ? "plan.log.check.holds" : "plan.log.check.differs",
                         fmt::arg("what", t.Get("plan.log.check." + check.id)), fmt::arg("logged", Figure(check.logged)),
                         fmt::arg("recomputed", Figure(check.recomputed))) + "\n";
    }
  }
  out += "  " + (f.failure.empty() ? t.Get("plan.log.started") : t.Get("plan.log.failure." + f.failure)) + "\n";
  if (!c.advice.empty()) {
    out += "  " + t.Get("plan.log.advice") + "\n";
    for (const auto& a : c.advice) {
      // A direction names the flag and the value to move away from; a value is the flag to type.
      const bool direction = core::EndsWith(a.reason, "_up") || core::EndsWith(a.reason, "_down");
      const std::string change = direction ? "`" + a.flag + "`" : "`" + a.flag + " " + a.value + "`";
      out += "    " + Tr(t, "plan.log.advice." + a.reason, fmt::arg("change", change), fmt::arg("value", a.value)) + "\n";
    }
  }
  return out;
}

nlohmann::json FromLogJson(const PlanReport& r, const report::Texts&) {
  if (!r.from_log) return nullptr;
  const app::LogComparison& c = *r.from_log;
  const telemetry::EngineLogFacts& f = c.facts;
  auto o = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& k : c.checks) checks.push_back({{"id", k.id}, {"logged", k.logged}, {"recomputed", k.recomputed}, {"holds", k.holds}});
  nlohmann::json advice = nlohmann::json::array();
  for (const auto& a : c.advice) advice.push_back({{"flag", a.flag}, {"value", a.value}, {"reason", a.reason}});
  return {{"file", c.file}, {"engine", f.engine}, {"generation", f.generation.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.generation)},
          {"logged", {{"total_bytes", o(f.total_bytes)}, {"free_bytes", o(f.free_bytes)},
                      {"gpu_memory_utilization", o(f.gpu_memory_utilization)}, {"requested_bytes", o(f.requested_bytes)},
                      {"weights_bytes", o(f.weights_bytes)}, {"non_torch_bytes", o(f.non_torch_bytes)},
                      {"activation_peak_bytes", o(f.activation_peak_bytes)}, {"kv_cache_bytes", o(f.kv_cache_bytes)},
                      {"gpu_blocks", o(f.gpu_blocks)}, {"kv_tokens", o(f.kv_tokens)}, {"max_model_len", o(f.max_model_len)},
                      {"max_concurrency", o(f.max_concurrency)}, {"estimated_max_len", o(f.estimated_max_len)}}},
          {"failure", f.failure.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.failure)},
          {"checks", checks}, {"advice", advice}, {"compared_with_plan", r.engine.has_value()}};
}

}  // namespace gpuprobe::cli
