// The corpus score of `plan --engine` (issue 25): every real start-up log of
// tests/fixtures/engine_logs whose model config is known (the model catalogue, or a config in
// tests/fixtures/configs) and whose GPU memory is known (the logged total, the index's
// gpu_total_gib, or the spec database) is predicted the way `plan --engine` predicts it
// (app::EngineOptionsFrom + app::PlanWithEngine, the logged flags given as plan's flags) and
// compared with what the engine logged: KV bytes per token per GPU (exact), weights (within
// 5%), KV budget (within 10%), maximum concurrency (within 10%) and whether it started.
// The table is printed (docs/plan.md, 'Serving engines', holds a copy); train and held-out
// logs are counted apart (index.json's `split`). The train set's counts are asserted; the
// held-out counts are asserted at the figures recorded in docs/plan.md, so a rule change that
// loses a held-out case fails here too.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "app/plan_engine.h"
#include "knowledge/embedded_knowledge.h"
#include "model/dtype.h"
#include "model/hf_config.h"
#include "model/model_catalog.h"

namespace gpuprobe::app {
namespace {

using nlohmann::json;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
const std::string kFx = std::string(GPUPROBE_FIXTURES_DIR) + "/";

json ReadJson(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str());
}

std::string Str(const json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

// The catalogue plus the configs of tests/fixtures/configs under their Hub ids.
std::vector<model::CatalogEntry> Configs() {
  std::vector<model::CatalogEntry> all = **knowledge::ModelCatalog();
  json index = ReadJson(kFx + "configs/index.json");
  for (const auto& f : index["files"]) {
    std::string hub = Str(f, "hub_url");
    const std::string prefix = "https://huggingface.co/";
    if (hub.rfind(prefix, 0) != 0 || Str(f, "file_kind") != "config.json") continue;
    std::ifstream in(kFx + "configs/" + f["file"].get<std::string>());
    std::stringstream ss;
    ss << in.rdbuf();
    all.push_back({hub.substr(prefix.size()), hub, "", "", ss.str()});
  }
  return all;
}

std::optional<double> Num(const json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}

struct Score {
  int cases = 0;
  int kv_bytes_total = 0, kv_bytes_exact = 0;
  int weights_total = 0, weights_ok = 0;
  int budget_total = 0, budget_ok = 0;
  int concurrency_total = 0, concurrency_ok = 0;
  int verdict_total = 0, verdict_ok = 0;
};

std::string Mark(bool ok) { return ok ? "ok" : "MISS"; }

std::string RowHead(const json& e) {
  return fmt::format("{:<44} {:<7} {:<9}", e["file"].get<std::string>().substr(5, 43), e["split"].get<std::string>(),
                     Str(e, "engine") + (Str(e, "vllm_generation").empty() ? "" : " " + Str(e, "vllm_generation")));
}

bool Skip(const json& e, const char* why, std::string* table) {
  *table += RowHead(e) + " | not predicted: " + why + "\n";
  return false;
}

// Predicts one log; adds its row to `table` and its counts to `score`. False when the log
// cannot be predicted (no config, no GPU memory, an engine outside plan's rules).
bool PredictLog(const json& e, const std::vector<model::CatalogEntry>& configs, std::string* table, Score* score) {
  if (e["model_hub_id"].is_null()) return Skip(e, "no model named", table);
  const std::string hub = e["model_hub_id"];
  auto match = model::MatchCatalogEntry(configs, hub);
  if (!match) return Skip(e, "model config not available", table);
  // The model as plan reads it: transformers' structure for its model_type where there is one.
  auto hf = knowledge::HfModels();
  auto shape = hf.ok() ? model::ParseHfConfig(match->entry->config_json, match->entry->id, **hf)
                       : model::ParseHfConfig(match->entry->config_json, match->entry->id);
  if (!shape.ok()) return Skip(e, "model config not read", table);
  // Per-GPU figures need the split: a log that does not say how many GPUs served it is left out.
  if (!e["gpu_count"].is_number()) return Skip(e, "GPU count not given", table);
  const json& flags = e["flags"];
  const json& logged = e["logged"];
  // The GPU's memory: as the engine logged it, as the index records it, else the spec sheet.
  EngineGpu gpu;
  auto total = Num(logged, "total_gpu_gib");
  if (!total) total = Num(e, "gpu_total_gib");
  if (total) {
    gpu.total_bytes = *total * kGiB;
    gpu.from_driver = true;
  } else if (e["gpu"].is_string()) {
    // The index writes the GPU as given, with where it was given in brackets ("RTX 3090 24GB
    // (issue title)"): the name is the part before them.
    std::string name = e["gpu"].get<std::string>();
    name = name.substr(0, name.find(" ("));
    auto spec = (*knowledge::Specs())->Find(name);
    if (!spec.ok()) return Skip(e, "GPU not in the spec database", table);
    gpu = EngineGpuFromSpec(**spec);
  } else {
    return Skip(e, "GPU memory not known", table);
  }
  // The logged flags, as plan's flags.
  EngineFlags f;
  f.engine = e["engine"];
  if (f.engine == "llama.cpp") return Skip(e, "llama.cpp (no config-backed model)", table);  // the corpus's llama.cpp logs name no model with a config
  if (Str(e, "vllm_generation") == "v0") f.vllm_v0 = true;
  // The release whose rules apply (index.json's rules_version), where the log's build is known.
  if (!Str(e, "rules_version").empty() && Str(e, "vllm_generation") != "v0") f.engine_version = Str(e, "rules_version");
  auto i64 = [&](const char* key) -> std::optional<std::int64_t> {
    auto v = Num(flags, key);
    return v ? std::optional<std::int64_t>(static_cast<std::int64_t>(*v)) : std::nullopt;
  };
  f.gpu_memory_utilization = Num(flags, "gpu_memory_utilization");
  if (!f.gpu_memory_utilization) f.gpu_memory_utilization = Num(logged, "gpu_memory_utilization");
  f.max_model_len = i64("max_model_len");
  if (!f.max_model_len) f.max_model_len = i64("max_seq_len");
  if (!f.max_model_len) f.max_model_len = i64("context_length");
  f.max_num_batched_tokens = i64("max_num_batched_tokens");
  f.max_num_seqs = i64("max_num_seqs");
  f.block_size = i64("block_size");
  f.mem_fraction_static = Num(flags, "mem_fraction_static");
  f.kv_cache_free_fraction = Num(flags, "kv_cache_free_gpu_mem_fraction");
  f.enforce_eager = flags.contains("enforce_eager") && flags["enforce_eager"] == true;
  model::Job job;
  job.tensor_parallel = static_cast<int>(i64("tensor_parallel_size").value_or(i64("tp").value_or(1)));
  job.pipeline_parallel = static_cast<int>(i64("pipeline_parallel_size").value_or(1));
  // The engine's default length is the config's own.
  job.seq = shape->max_position_embeddings > 0 ? shape->max_position_embeddings : 4096;
  // Weights as the engine loads them: the checkpoint's quantisation where the name says, else
  // the config's 16-bit dtype (vLLM casts fp32 checkpoints to 16 bits).
  job.weight_dtype = model::DType::kBf16;
  if (Str(flags, "dtype") == "float16") job.weight_dtype = model::DType::kFp16;
  for (const auto& d : match->differences) {
    if (d.find("FP8") != std::string::npos) job.weight_dtype = model::DType::kFp8;
    if (d.find("GPTQ") != std::string::npos || d.find("AWQ") != std::string::npos) job.weight_dtype = model::DType::kInt4;
  }
  if (shape->quant) job.weight_quant = shape->quant;
  job.kv_dtype = Str(flags, "kv_cache_dtype") == "fp8" ? model::DType::kFp8 : model::DType::kBf16;
  auto options = EngineOptionsFrom(f, job);
  if (!options.ok()) return Skip(e, "flags out of range", table);
  auto memory = model::PlanMemory(*shape, job);
  if (!memory.ok()) return Skip(e, "memory plan failed", table);
  auto p = PlanWithEngine(*shape, job, *memory, gpu, *options, hub);
  if (!p.ok()) return Skip(e, "engine plan failed", table);
  const model::EngineBudget& b = p->budget;
  ++score->cases;

  std::string row = RowHead(e);
  // KV bytes per token per GPU: the self-consistency check's figure (the model's geometry).
  model::KvFootprint kv = model::KvFootprintOf(*shape, options->kv_bytes_per_element, job.tensor_parallel, job.pipeline_parallel);
  const double ours_per_token = kv.full_bytes_per_token + kv.sliding_bytes_per_token;
  std::optional<double> logged_per_token;
  if (e.contains("self_consistency") && e["self_consistency"].contains("checks")) {
    for (const auto& c : e["self_consistency"]["checks"]) {
      if (c.contains("bytes_per_token") && c["bytes_per_token"].is_number()) logged_per_token = c["bytes_per_token"].get<double>();
    }
  }
  if (logged_per_token) {
    bool ok = std::fabs(ours_per_token - *logged_per_token) < 0.5;
    ++score->kv_bytes_total;
    score->kv_bytes_exact += ok;
    row += fmt::format(" | B/tok {:.0f}/{:.0f} {}", *logged_per_token, ours_per_token, Mark(ok));
  }
  if (auto w = Num(logged, "weights_gib")) {
    bool ok = std::fabs(b.weights_bytes / kGiB - *w) <= 0.05 * *w;
    ++score->weights_total;
    score->weights_ok += ok;
    row += fmt::format(" | weights {:.2f}/{:.2f} {}", *w, b.weights_bytes / kGiB, Mark(ok));
  }
  // The KV budget: the logged GiB, else the logged tokens at the model's bytes per token.
  std::optional<double> kv_gib = Num(logged, "kv_cache_gib");
  if (!kv_gib && logged_per_token) {
    if (auto tokens = Num(logged, "kv_tokens")) kv_gib = *tokens * *logged_per_token / kGiB;
  }
  if (kv_gib && e["outcome"] == "started") {
    bool ok = std::fabs(b.kv_cache_bytes / kGiB - *kv_gib) <= 0.10 * *kv_gib;
    ++score->budget_total;
    score->budget_ok += ok;
    row += fmt::format(" | KV GiB {:.2f}/{:.2f} {}", *kv_gib, b.kv_cache_bytes / kGiB, Mark(ok));
  }
  if (logged.contains("max_concurrency") && logged["max_concurrency"].is_object()) {
    double x = logged["max_concurrency"]["value"];
    bool ok = std::fabs(b.max_concurrency - x) <= 0.10 * x;
    ++score->concurrency_total;
    score->concurrency_ok += ok;
    row += fmt::format(" | conc {:.2f}/{:.2f} {}", x, b.max_concurrency, Mark(ok));
  }
  const std::string outcome = e["outcome"];
  if (outcome != "other_failure") {
    bool started = outcome == "started";
    bool ok = started == b.starts;
    ++score->verdict_total;
    score->verdict_ok += ok;
    row += fmt::format(" | {}/{} {}", started ? "starts" : "fails", b.starts ? "starts" : "fails", Mark(ok));
  }
  if (row == RowHead(e)) row += " | nothing logged to compare (" + outcome + ")";
  *table += row + "\n";
  return true;
}

std::string ScoreLine(const char* name, const Score& s) {
  return fmt::format("{}: {} logs; KV bytes/token exact {}/{}; weights within 5% {}/{}; KV budget within 10% {}/{}; "
                     "concurrency within 10% {}/{}; verdict same {}/{}",
                     name, s.cases, s.kv_bytes_exact, s.kv_bytes_total, s.weights_ok, s.weights_total, s.budget_ok,
                     s.budget_total, s.concurrency_ok, s.concurrency_total, s.verdict_ok, s.verdict_total);
}

TEST(EngineCorpus, PlanReproducesTheLoggedStartUps) {
  json index = ReadJson(kFx + "engine_logs/index.json");
  std::vector<model::CatalogEntry> configs = Configs();
  std::map<std::string, Score> scores;
  std::string table;
  table += "log (logged/predicted)\n";
  for (const auto& e : index["logs"]) {
    PredictLog(e, configs, &table, &scores[e["split"].get<std::string>()]);
  }
  std::printf("%s\n%s\n%s\n", table.c_str(), ScoreLine("train", scores["train"]).c_str(),
              ScoreLine("heldout", scores["heldout"]).c_str());
  // The train set: every figure that holds today; a rule change that loses one fails here.
  // The misses are discussed in docs/plan.md ('Corpus score').
  const Score& train = scores["train"];
  EXPECT_EQ(train.cases, 10);
  EXPECT_EQ(train.kv_bytes_total, 6);
  EXPECT_GE(train.kv_bytes_exact, 4);  // 058 and 059: an FP8 KV cache the index's flags do not give
  EXPECT_EQ(train.weights_ok, train.weights_total);
  EXPECT_EQ(train.weights_total, 2);
  EXPECT_GE(train.budget_ok, 3);
  EXPECT_GE(train.concurrency_ok, 1);
  EXPECT_GE(train.verdict_ok, 6);
  // The held-out set, never looked at while writing the rules: the score recorded in
  // docs/plan.md, before and after each change.
  const Score& held = scores["heldout"];
  EXPECT_EQ(held.cases, 9);
  EXPECT_EQ(held.kv_bytes_exact, held.kv_bytes_total);
  EXPECT_EQ(held.kv_bytes_total, 6);
  EXPECT_EQ(held.weights_ok, 2);
  EXPECT_GE(held.budget_ok, 1);
  EXPECT_GE(held.concurrency_ok, 2);
  EXPECT_GE(held.verdict_ok, 5);
}

}  // namespace
}  // namespace gpuprobe::app
