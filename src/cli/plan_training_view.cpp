// The speed of a training plan (--mode lora, qlora, full) in training's own words: the step
// (batch x seq tokens), the tokens trained per second, and the time of a --train-tokens run.
// Decode, prefill and the KV cache belong to serving and are not shown here.
#include <cmath>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/plan_view.h"
#include "core/units.h"
#include "report/count_text.h"
#include "report/phrase_text.h"

namespace gpuprobe::cli {
namespace {

std::string Time(const report::Texts& t, double seconds) { return report::FormatSecondsFor(t.language(), seconds); }

std::string Rate(const report::Texts& t, double per_second) {
  return FormatArg(t, model::PhraseArg{"", model::ArgKind::kTokensPerSecond, per_second, {}, nullptr});
}

}  // namespace

std::string RenderTrainingSpeed(const PlanReport& r, const report::Texts& t) {
  const model::ThroughputPlan& tp = *r.throughput;
  const model::Job& j = r.job;
  std::string out;
  out += "\n" + Tr(t, "plan.training.title", fmt::arg("gpu", GpuNameText(r.gpu->name, t)), fmt::arg("gpus", model::GpusOfSplit(j))) + "\n";
  const double tokens = static_cast<double>(j.batch) * static_cast<double>(j.seq);
  out += "  " + Tr(t, "plan.training.step", fmt::arg("tokens", core::FormatInteger(static_cast<std::uint64_t>(tokens))),
                   fmt::arg("batch", j.batch), fmt::arg("seq", j.seq), fmt::arg("bound", Time(t, tp.training_step.At(1.0))),
                   fmt::arg("low", Time(t, tp.training_step.At(model::kMfuLow))),
                   fmt::arg("high", Time(t, tp.training_step.At(model::kMfuHigh))),
                   fmt::arg("elow", static_cast<int>(model::kMfuLow * 100)),
                   fmt::arg("ehigh", static_cast<int>(model::kMfuHigh * 100))) + "\n";
  out += "  " + Tr(t, "plan.training.rate", fmt::arg("bound", Rate(t, tp.training.bound)), fmt::arg("low", Rate(t, tp.training.low)),
                   fmt::arg("high", Rate(t, tp.training.high))) + "\n";
  out += "      " + Say(t, tp.training.basis) + "\n";
  out += "      " + Say(t, tp.training.assumes) + "\n";
  // The run's time, at the bound and at the low MFU as the cost section counts it; when priced,
  // the cost section says it with its dollars.
  if (r.train_tokens > 0 && !r.cost) {
    out += "  " + Tr(t, "plan.training.run", fmt::arg("tokens", FormatParams(t, r.train_tokens)),
                     fmt::arg("best", Time(t, r.train_tokens / tp.training.bound)),
                     fmt::arg("low", Time(t, r.train_tokens / tp.training.low)),
                     fmt::arg("steps", core::FormatInteger(static_cast<std::uint64_t>(std::ceil(r.train_tokens / tokens))))) + "\n";
  }
  return out;
}

}  // namespace gpuprobe::cli
