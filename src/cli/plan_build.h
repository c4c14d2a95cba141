// Assembles a PlanReport from `plan`'s flags: resolves the model, builds and checks the job
// (every number through model/quantity.h), plans memory, the fit table, and with --gpu the
// capacity, speed and cost (when it fits) or the ways to make it fit (when it does not), and
// with --rps/--users the GPUs the traffic needs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/plan_view.h"
#include "core/status.h"

namespace gpuprobe::cli {

struct PlanOptions {
  std::string model_path, params, gpu;
  std::optional<std::int64_t> layers, hidden, heads, kv_heads, vocab, intermediate;
  std::string mode = "infer", dtype, kv_dtype, optimizer = "adamw", lora_targets = "all";
  std::int64_t batch = 1, seq = 4096;
  int lora_rank = 16, tp = 1, pp = 1, ep = 0;
  std::int64_t shared_prefix = 0;
  bool checkpointing = false, no_checkpointing = false;
  double headroom = 0.9;
  // Traffic, prices, a training run.
  std::optional<double> rps, users;
  std::optional<double> think_time;
  std::optional<double> tpot_ms;
  std::optional<double> prompt_tokens, output_tokens;  ///< checked as whole token counts
  std::vector<std::string> prices;
  std::string train_tokens;
  bool seq_given = false;  ///< --seq was on the command line (else traffic sets it to P + O)
};

/// The whole report; InvalidArgument (exit 2) naming the flag for bad input.
core::Result<PlanReport> BuildPlanReport(const PlanOptions& options);

}  // namespace gpuprobe::cli
