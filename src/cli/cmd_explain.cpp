// `gpuprobe explain "TEXT"` / `explain -` (a paste on standard input) / `explain --from LOGFILE`
// / `explain --list`: what an error means, its likely causes, the commands that tell them
// apart, and the fixes.
#include "cli/cmd_explain.h"

#include <CLI/CLI.hpp>
#include <re2/re2.h>

#include "knowledge/embedded_knowledge.h"
#include "cli/command.h"
#include "cli/explain_answer.h"
#include "cli/explain_name_view.h"
#include "cli/explain_term_view.h"
#include "cli/explain_view.h"
#include "core/file_io.h"
#include "core/strings.h"
#include "doctor/capability.h"
#include "doctor/cuda_compat.h"
#include "doctor/error_analysis.h"
#include "doctor/oom_details.h"
#include "doctor/text_profile.h"
#include "doctor/version_story.h"
#include "report/json_document.h"

namespace gpuprobe::cli {
namespace {

constexpr std::uint64_t kMaxLogBytes = 256ull << 20;

struct ExplainOptions {
  std::vector<std::string> words;
  std::string from;
  std::string gpu;
  bool list = false;
  std::string term;         // --term NAME: the glossary only
  bool error_only = false;  // --error: the error matcher only, even for a term's name
  bool list_terms = false;
  // The global flags, accepted after the verb as well: a pasted text may start with dashes,
  // so the verb reads its own arguments instead of passing unknown ones to the main program.
  bool json = false;
  std::string lang;
  CLI::App* command = nullptr;
};

// The text as the user gave it. A paste that starts with dashes ("--> 633 raise ...", "---
// Logging error ---") is not an option: CLI11 leaves it among the extra arguments, which come
// first (a paste split by the shell begins with them); "--" and "-" are taken as written.
core::Result<std::string> PastedText(const ExplainOptions& o, const report::Texts& t) {
  std::vector<std::string> parts;
  for (const auto& extra : o.command->remaining()) {
    if (extra != "--") parts.push_back(extra);
  }
  // One lone word shaped like an option ("--fromm") is a mistyped flag, not an error text.
  static const RE2 kLoneFlag(R"(--?[A-Za-z][A-Za-z0-9-]*(?:=\S*)?)");
  if (parts.size() == 1 && o.words.empty() && RE2::FullMatch(parts.front(), kLoneFlag)) {
    return core::Status::InvalidArgument(Tr(t, "explain.error.unknown_option", fmt::arg("option", parts.front())),
                                         "gpuprobe explain -- \"" + parts.front() + " ...\"");
  }
  parts.insert(parts.end(), o.words.begin(), o.words.end());
  if (parts.size() == 1 && parts.front() == "-") {
    // `explain -`: the paste on standard input, read whole (a traceback keeps its lines).
    auto in = core::ReadTextFile("-", kMaxLogBytes);
    if (!in.ok()) return in.status();
    return std::move(in.value());
  }
  std::string text;
  for (const auto& p : parts) text += (text.empty() ? "" : " ") + p;
  return text;
}

// --term NAME that the glossary does not have: InvalidArgument naming the flag, with the
// nearest names.
// A question in words: it starts with a question word or ends with a question mark (en, zh).
// "why are host to GPU copies slow" is asked about a term, not pasted from a failure.
bool IsQuestion(std::string_view text) {
  std::string lower = core::Lower(text);
  while (!lower.empty() && (lower.back() == ' ' || lower.back() == '\n' || lower.back() == '\r')) lower.pop_back();
  size_t start = lower.find_first_not_of(" \t\"'");
  if (start == std::string::npos) return false;
  lower.erase(0, start);
  if (lower.find('\n') != std::string::npos) return false;  // a question is one line
  if (core::EndsWith(lower, "?") || core::EndsWith(lower, "\xEF\xBC\x9F") || core::EndsWith(lower, "\xE5\x90\x97")) return true;
  for (const char* word : {"why ", "what ", "how ", "when ", "which ", "is ", "are ", "does ", "do ", "can ", "should "}) {
    if (lower.rfind(word, 0) == 0) return true;
  }
  for (const char* word : {"\xE4\xB8\xBA\xE4\xBB\x80\xE4\xB9\x88", "\xE6\x80\x8E\xE4\xB9\x88", "\xE5\xA6\x82\xE4\xBD\x95",
                           "\xE4\xBB\x80\xE4\xB9\x88"}) {  // 为什么, 怎么, 如何, 什么
    if (lower.rfind(word, 0) == 0) return true;
  }
  return false;
}

core::Status UnknownTerm(const std::string& name, const model::Glossary& g, const report::Texts& t) {
  std::vector<std::string> near;
  const bool zh = t.language() == report::Language::kZh;
  for (const auto& id : g.Closest(name)) near.push_back(TermName(*g.ById(id), zh));
  std::string message = Tr(t, "explain.error.unknown_term", fmt::arg("term", name));
  if (!near.empty()) message += Tr(t, "explain.error.unknown_term_near", fmt::arg("names", core::Join(near, t.Get("explain.list_separator"))));
  return core::Status::InvalidArgument(message, "gpuprobe explain --list-terms");
}

core::Result<core::ExitCode> RunExplain(VerbContext& ctx, const ExplainOptions& o) {
  const bool json = ctx.options.json || o.json;
  auto matcher_result = doctor::ErrorMatcher::Embedded();
  if (!matcher_result.ok()) return matcher_result.status();
  const doctor::ErrorMatcher& matcher = **matcher_result;
  if (o.list) {
    if (json) {
      ctx.out << report::RenderJson(ExplainListToJson(matcher, ctx.texts));
    } else {
      ctx.out << RenderExplainList(matcher, ctx.texts);
    }
    return core::ExitCode::kOk;
  }
  auto glossary = knowledge::Glossary();
  if (!glossary.ok()) return glossary.status();
  if (o.list_terms) {
    ctx.out << (json ? report::RenderJson(TermListToJson(**glossary, ctx.texts)) : RenderTermList(**glossary, ctx.texts));
    return core::ExitCode::kOk;
  }
  if (!o.term.empty()) {
    // --term NAME: the glossary only; a name it does not have is bad input, with the nearest.
    if (!o.from.empty() || !o.words.empty() || !o.command->remaining().empty()) {
      return core::Status::InvalidArgument(ctx.texts.Get("explain.error.term_and_text"));
    }
    TermAnswer answer{o.term, (*glossary)->Find(o.term), {}, {}};
    if (answer.term == nullptr) return UnknownTerm(o.term, **glossary, ctx.texts);
    ctx.out << (json ? report::RenderJson(TermToJson(answer, **glossary, ctx.texts)) : RenderTerm(answer, **glossary, ctx.texts));
    return core::ExitCode::kOk;
  }
  auto specs = knowledge::Specs();
  if (!specs.ok()) return specs.status();
  const model::GpuSpec* user_gpu = nullptr;
  if (!o.gpu.empty()) {
    auto found = (*specs)->Find(o.gpu);
    if (!found.ok()) return found.status();
    user_gpu = *found;
  }
  ExplainResult result;
  std::string text;
  if (!o.from.empty()) {
    if (!o.words.empty() || !o.command->remaining().empty()) {
      return core::Status::InvalidArgument(ctx.texts.Get("explain.error.text_and_from"));
    }
    auto file = core::ReadTextFile(o.from, kMaxLogBytes);
    if (!file.ok()) return file.status();
    text = std::move(file.value());
    result.source = o.from == "-" ? ctx.texts.Get("explain.standard_input") : o.from;
    result.log = true;
  } else {
    auto pasted = PastedText(o, ctx.texts);
    if (!pasted.ok()) return pasted.status();
    text = std::move(pasted.value());
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
      return core::Status::InvalidArgument(ctx.texts.Get("explain.error.nothing"), "gpuprobe explain \"CUDA out of memory\"");
    }
    result.query = text;
  }
  auto emitters = doctor::EmitterTable::Embedded();
  if (!emitters.ok()) return emitters.status();
  result.analysis = doctor::Analyze(matcher, *emitters, text, result.log ? doctor::AnalysisMode::kLog : doctor::AnalysisMode::kPaste);
  // A text that is, as a whole, one of the glossary's names is that term (docs/explain.md,
  // "Terms and error texts"): the error reading the same words may have is named beside it,
  // and --error asks for that reading instead.
  if (!result.log && !o.error_only) {
    if (const model::GlossaryTerm* term = (*glossary)->Find(text)) {
      TermAnswer answer{text, term, {}, {}};
      // An entry the words match is named; a number inside a name ("NVLink 4") is not read
      // as a status here.
      if (!result.analysis.hits.empty()) {
        const doctor::Finding& hit = result.analysis.hits.front().finding;
        answer.also_error_key = hit.key;
        answer.also_error_title = ReadingTitle(hit, matcher, ctx.texts);
      }
      ctx.out << (json ? report::RenderJson(TermToJson(answer, **glossary, ctx.texts)) : RenderTerm(answer, **glossary, ctx.texts));
      return core::ExitCode::kOk;
    }
  }
  // Context from the text: a paste is read whole; in a log, the first record of the error.
  for (const auto& hit : result.analysis.hits) {
    if (!result.oom && hit.finding.entry != nullptr && hit.finding.entry->id == "cuda_out_of_memory") {
      result.oom = doctor::ParseOutOfMemory(result.log ? std::string_view(hit.record) : std::string_view(text));
    }
  }
  // A log's context is in the records of its errors, not in the megabytes around them.
  std::string records;
  if (result.log) {
    for (const auto& hit : result.analysis.hits) records += hit.record + "\n";
  }
  std::string_view context = result.log ? std::string_view(records) : std::string_view(text);
  if (!result.analysis.hits.empty()) {
    auto compat = doctor::CudaCompat::Embedded();
    if (compat.ok()) result.versions = doctor::ReadVersionStories(context, **compat);
  }
  auto features = doctor::FeatureTable::Embedded();
  if (!features.ok()) return features.status();
  if (!result.log || !result.analysis.hits.empty()) {
    result.capability = doctor::AnswerCapability(context, **features, **specs, user_gpu);
  }
  bool explained = !result.analysis.hits.empty() || !result.analysis.readings.empty();
  // A short phrase that is no error but holds a term's name ("100% GPU util") is that term.
  if (!explained && !result.log && !o.error_only) {
    // A finding's title as inspect prints it ("GPU waiting on the host"), in either language:
    // the whole text is the title, so it comes before a term whose name is only inside it
    // ("显存修复等待重置后生效" names 显存).
    if (auto finding = FindingTitled(text)) {
      ctx.out << (json ? report::RenderJson(FindingNameToJson(text, *finding, ctx.texts)) : RenderFindingName(text, *finding, ctx.texts));
      return core::ExitCode::kOk;
    }
    const model::GlossaryTerm* term = (*glossary)->NamedIn(text);
    // A question in words about a term is answered with that term, in every language.
    if (term == nullptr && IsQuestion(text)) {
      auto about = (*glossary)->About(text, 1);
      if (!about.empty()) term = (*glossary)->ById(about.front());
    }
    if (term != nullptr) {
      TermAnswer answer{text, term, {}, {}};
      ctx.out << (json ? report::RenderJson(TermToJson(answer, **glossary, ctx.texts)) : RenderTerm(answer, **glossary, ctx.texts));
      return core::ExitCode::kOk;
    }
    // A GPU's name ("H100", "GH200"): what the spec database says and where the rest is. Only a
    // short text that is a name, not a sentence that mentions one.
    if (core::Trim(text).size() <= 40 && !IsQuestion(text)) {
      GpuNameAnswer gpu;
      gpu.query = core::Trim(text);
      auto one = (*specs)->Find(gpu.query);
      if (one.ok()) {
        gpu.gpus.push_back(*one);
        gpu.variants = (*specs)->OtherVariants(gpu.query, **one);
      } else {
        gpu.gpus = (*specs)->Candidates(gpu.query);
        if (gpu.gpus.size() > 8) gpu.gpus.clear();
      }
      if (!gpu.gpus.empty()) {
        ctx.out << (json ? report::RenderJson(GpuNameToJson(gpu, ctx.texts)) : RenderGpuName(gpu, ctx.texts));
        return core::ExitCode::kOk;
      }
    }
  }
  if (!explained && !result.log) {
    // Never silent: what the text is made of, and the nearest entries with how they differ.
    result.profile = doctor::ProfileText(text, result.analysis.emitters, matcher, **specs);
  }
  if (!explained) result.closest = matcher.kb().Closest(text);
  if (!explained && !result.log) {
    // A short text that is no error may be a mistyped term ("warpp").
    const bool zh = ctx.texts.language() == report::Language::kZh;
    for (const auto& id : (*glossary)->Closest(text)) result.near_terms.push_back(TermName(*(*glossary)->ById(id), zh));
    // A question in words ("why are host to GPU copies slow") names no term: the terms it is about.
    if (result.near_terms.empty()) {
      for (const auto& id : (*glossary)->About(text)) result.about_terms.push_back(TermName(*(*glossary)->ById(id), zh));
    }
  }

  if (json) {
    ctx.out << report::RenderJson(ExplainToJson(result, matcher, ctx.texts));
  } else {
    ctx.out << RenderExplain(result, matcher, ctx.texts);
  }
  return explained ? core::ExitCode::kOk : core::ExitCode::kProblemsFound;
}

}  // namespace

VerbRunner SetupExplainVerb(CLI::App* command) {
  auto o = std::make_shared<ExplainOptions>();
  o->command = command;
  command->add_option("text", o->words, "the error message (quote it; '-' reads it from standard input), a status name or number, or \"Xid N\"");
  command->add_option("--from", o->from, "a log file to scan ('-' = standard input)");
  command->add_option("--gpu", o->gpu, "the GPU the error happened on (a name from 'gpuprobe gpus'), for what it lacks");
  command->add_flag("--list", o->list, "every error the knowledge base knows");
  command->add_option("--term", o->term, "a word from gpuprobe's screens to explain from the glossary (SM, KV cache, Xid, ...)");
  command->add_flag("--error", o->error_only, "read the text as an error text even when it is a glossary term's name");
  command->add_flag("--list-terms", o->list_terms, "the glossary's terms, by group");
  command->add_flag("--json", o->json, "print one JSON document (as before the verb)");
  command->add_option("--lang", o->lang, "language of the text output: en or zh (as before the verb)")->check(CLI::IsMember({"en", "zh"}));
  // A paste may start with dashes: arguments that are no flag of this verb are text, and are
  // not passed on to the main program.
  command->fallthrough(false);
  command->allow_extras(true);
  return [o](VerbContext& ctx) { return RunExplain(ctx, *o); };
}

}  // namespace gpuprobe::cli
