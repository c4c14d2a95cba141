// `gpuprobe explain "TEXT"` / `explain --from LOGFILE` / `explain --list`: what an error means,
// its likely causes, the commands that tell them apart, and the fixes.
#include "cli/cmd_explain.h"

#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/explain_view.h"
#include "core/file_io.h"
#include "doctor/cuda_compat.h"
#include "doctor/error_analysis.h"
#include "doctor/oom_details.h"
#include "doctor/version_story.h"
#include "report/json_document.h"

namespace gpuprobe::cli {
namespace {


constexpr std::uint64_t kMaxLogBytes = 256ull << 20;

struct ExplainOptions {
  std::vector<std::string> words;
  std::string from;
  bool list = false;
};

core::Result<core::ExitCode> RunExplain(VerbContext& ctx, const ExplainOptions& o) {
  auto matcher_result = doctor::ErrorMatcher::Embedded();
  if (!matcher_result.ok()) return matcher_result.status();
  const doctor::ErrorMatcher& matcher = **matcher_result;
  if (o.list) {
    if (ctx.options.json) {
      ctx.out << report::RenderJson(ExplainListToJson(matcher, ctx.texts));
    } else {
      ctx.out << RenderExplainList(matcher, ctx.texts);
    }
    return core::ExitCode::kOk;
  }
  ExplainResult result;
  std::string text;
  if (!o.from.empty()) {
    if (!o.words.empty()) return core::Status::InvalidArgument(ctx.texts.Get("explain.error.text_and_from"));
    auto file = core::ReadTextFile(o.from, kMaxLogBytes);
    if (!file.ok()) return file.status();
    text = std::move(file.value());
    result.source = o.from == "-" ? ctx.texts.Get("explain.standard_input") : o.from;
    result.log = true;
  } else {
    for (const auto& w : o.words) text += (text.empty() ? "" : " ") + w;
    if (text.empty()) {
      return core::Status::InvalidArgument(ctx.texts.Get("explain.error.nothing"), "gpuprobe explain \"CUDA out of memory\"");
    }
    result.query = text;
  }
  result.analysis = doctor::Analyze(matcher, text, result.log ? doctor::AnalysisMode::kLog : doctor::AnalysisMode::kPaste);
  // Context from the text: a paste is read whole; in a log, the first record of the error.
  for (const auto& hit : result.analysis.hits) {
    if (!result.oom && hit.finding.entry != nullptr && hit.finding.entry->id == "cuda_out_of_memory") {
      result.oom = doctor::ParseOutOfMemory(result.log ? std::string_view(hit.record) : std::string_view(text));
    }
  }
  if (!result.analysis.hits.empty()) {
    // A log's versions are in the records of its errors, not in the megabytes around them.
    std::string records;
    if (result.log) {
      for (const auto& hit : result.analysis.hits) records += hit.record + "\n";
    }
    auto compat = doctor::CudaCompat::Embedded();
    if (compat.ok()) result.versions = doctor::ReadVersionStories(result.log ? records : text, **compat);
  }
  if (result.analysis.hits.empty() && result.analysis.readings.empty()) result.closest = matcher.kb().Closest(text);

  bool explained = !result.analysis.hits.empty() || !result.analysis.readings.empty();
  if (ctx.options.json) {
    ctx.out << report::RenderJson(ExplainToJson(result, matcher, ctx.texts));
  } else {
    ctx.out << RenderExplain(result, matcher, ctx.texts);
  }
  return explained ? core::ExitCode::kOk : core::ExitCode::kProblemsFound;
}

}  // namespace

VerbRunner SetupExplainVerb(CLI::App* command) {
  auto o = std::make_shared<ExplainOptions>();
  command->add_option("text", o->words, "the error message (quote it), a status name or number, or \"Xid N\"");
  command->add_option("--from", o->from, "a log file to scan ('-' = standard input)");
  command->add_flag("--list", o->list, "every error the knowledge base knows");
  return [o](VerbContext& ctx) { return RunExplain(ctx, *o); };
}

}  // namespace gpuprobe::cli
