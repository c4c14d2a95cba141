#include "cli/cli_app.h"

#include <algorithm>
#include <iostream>
#include <memory>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/cmd_advise.h"
#include "cli/cmd_bench.h"
#include "cli/cmd_doctor.h"
#include "cli/cmd_explain.h"
#include "cli/cmd_gpus.h"
#include "cli/cmd_history.h"
#include "cli/cmd_inspect.h"
#include "cli/cmd_plan.h"
#include "cli/cmd_report.h"
#include "cli/cmd_serve.h"
#include "cli/cmd_tour.h"
#include "cli/command.h"
#include "cli/help_formatter.h"
#include "cli/parse_errors.h"
#include "core/spelling.h"
#include "core/version.h"
#include "report/status_text.h"

namespace gpuprobe::cli {
namespace {

// The English strings below are what CLI11 is given; what users read comes from the
// catalogue (data/texts/<lang>/help.json) through the HelpFormatter.
constexpr const char* kMainDescription =
    "gpuprobe: predict, measure, compare and explain GPU performance, in a backend engineer's terms.";

void PrintError(std::ostream& err, const core::Status& status, const report::Texts& texts) {
  err << texts.Get("error.prefix") << report::StatusMessage(status, texts) << "\n";
  std::string hint = report::StatusHint(status, texts);
  if (!hint.empty()) err << texts.Get("error.hint_prefix") << hint << "\n";
}

// Whether `arg` ("--gpu") is an option of the main program or of the tour (which runs when no
// verb is given) that takes a value in the next argument.
bool TakesValue(const CliApp& cli, const std::string& arg) {
  if (arg.find('=') != std::string::npos) return false;
  for (const CLI::App* scope : std::initializer_list<const CLI::App*>{&cli.app, cli.runners.front().first}) {
    const CLI::Option* option = scope->get_option_no_throw(arg);
    // A flag (--json) expects no item; an option (--lang en) expects one.
    if (option != nullptr) return option->get_items_expected_min() > 0;
  }
  return false;
}

// The first argument that is neither an option nor an option's value: the verb, or a typo.
const char* FirstWord(const CliApp& cli, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (!arg.empty() && arg[0] == '-') {
      if (TakesValue(cli, arg)) ++i;
      continue;
    }
    return argv[i];
  }
  return nullptr;
}

core::Status UnknownVerb(const std::string& word, const std::vector<std::string>& verbs) {
  auto near = core::ClosestMatches(word, verbs);
  std::string message = "unknown verb '" + word + "'";
  if (!near.empty()) message += "; did you mean '" + near.front() + "'?";
  core::Status status = core::Status::InvalidArgument(message, "run 'gpuprobe --help' for the list of verbs");
  return near.empty() ? status.WithKeys("error.unknown.verb", {{"name", word}}, "error.unknown.verb.hint")
                      : status.WithKeys("error.unknown.verb.near", {{"name", word}, {"near", near.front()}},
                                        "error.unknown.verb.hint");
}

}  // namespace

const std::vector<VerbDefinition>& Verbs() {
  static const std::vector<VerbDefinition> kVerbs = {
      {"tour", "what is this machine and is it OK? (the default when no verb is given)", &SetupTourVerb},
      {"inspect", "what do all these nvidia-smi numbers mean? GPU state, live or saved, with findings", &SetupInspectVerb},
      {"doctor", "why doesn't it work? driver, nouveau, devices, containers, toolkits, frameworks, a smoke test", &SetupDoctorVerb},
      {"explain", "what does this error mean? CUDA, driver, OOM, NCCL and Xid errors, with causes and fixes", &SetupExplainVerb},
      {"gpus", "the GPU spec database: list, show, compare, pick by task", &SetupGpusVerb},
      {"plan", "will my model fit, on which GPUs, and how fast will it serve or train?", &SetupPlanVerb},
      {"bench", "how fast is it really: against its spec, and against my CPU?", &SetupBenchVerb},
      {"advise", "is a GPU worth it for this workload, and which one?", &SetupAdviseVerb},
      {"report", "show my team: one self-contained HTML file with the machine, charts and findings", &SetupReportVerb},
      {"history", "what changed since last time? saved bench runs, compared result by result", &SetupHistoryVerb},
      {"serve", "is the fleet OK? GPU metrics and findings for Prometheus (dcgm-exporter names)", &SetupServeVerb},
  };
  return kVerbs;
}

core::ExitCode ExitCodeFor(const core::Status& status) {
  switch (status.code()) {
    case core::StatusCode::kOk: return core::ExitCode::kOk;
    case core::StatusCode::kNotFound:
    case core::StatusCode::kUnavailable: return core::ExitCode::kNotHere;
    default: return core::ExitCode::kBadInput;
  }
}

report::Language LanguageBeforeParsing(int argc, char** argv) {
  report::Language language = report::LanguageFromEnvironment();
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    if (arg == "--lang" && i + 1 < argc) {
      value = argv[i + 1];
    } else if (arg.rfind("--lang=", 0) == 0) {
      value = arg.substr(7);
    } else {
      continue;
    }
    auto parsed = report::ParseLanguage(value);
    if (parsed.ok()) language = *parsed;
  }
  return language;
}

std::unique_ptr<CliApp> BuildCliApp(const report::Texts& texts) {
  auto cli = std::make_unique<CliApp>();
  CLI::App& app = cli->app;
  app.name("gpuprobe");
  app.description(kMainDescription);
  app.set_version_flag("--version", std::string("gpuprobe ") + core::kVersion);
  app.add_flag("--json", cli->options.json, "print one JSON document (SI units, versioned \"schema\") instead of text");
  app.add_option("--lang", cli->options.lang, "language of the text output: en or zh (default: from LANG/LC_ALL)")
      ->check(CLI::IsMember({"en", "zh"}));
  app.require_subcommand(0, 1);
  app.fallthrough(true);
  for (const auto& verb : Verbs()) {
    CLI::App* command = app.add_subcommand(verb.name, verb.summary);
    command->fallthrough(true);
    cli->runners.emplace_back(command, verb.setup(command));
    cli->verb_names.push_back(verb.name);
  }
  InstallHelpFormatter(&app, texts);
  return cli;
}

int RunCli(int argc, char** argv, std::ostream& out, std::ostream& err) {
  // The language first: --help and the parser's own errors are already in it.
  auto texts = report::Texts::Load(LanguageBeforeParsing(argc, argv));
  if (!texts.ok()) {
    err << "gpuprobe: error: " << texts.status().message() << "\n";
    return static_cast<int>(core::ExitCode::kBadInput);
  }
  std::unique_ptr<CliApp> cli = BuildCliApp(*texts);
  CLI::App& app = cli->app;
  const std::vector<std::string>& verb_names = cli->verb_names;

  // An unknown verb gets "did you mean" before CLI11 reports a generic extra argument.
  if (const char* word = FirstWord(*cli, argc, argv)) {
    if (std::find(verb_names.begin(), verb_names.end(), word) == verb_names.end()) {
      PrintError(err, UnknownVerb(word, verb_names), *texts);
      return static_cast<int>(core::ExitCode::kBadInput);
    }
  }

  // No verb but options first ("gpuprobe --no-report"): the options are the tour's, so run
  // "gpuprobe tour ..." unless the user asked for help or the version.
  std::vector<char*> args(argv, argv + argc);
  if (argc > 1 && argv[1][0] == '-') {
    bool has_verb = false, wants_help = false;
    for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i];
      has_verb |= std::find(verb_names.begin(), verb_names.end(), arg) != verb_names.end();
      wants_help |= arg == "-h" || arg == "--help" || arg == "--version";
    }
    static char tour[] = "tour";
    if (!has_verb && !wants_help) args.insert(args.begin() + 1, tour);
  }
  argc = static_cast<int>(args.size());
  argv = args.data();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    std::string where = "gpuprobe";
    for (const auto* sub : app.get_subcommands()) where += std::string(" ") + sub->get_name();
    PrintError(err, StatusFromParseError(e, where), *texts);
    return static_cast<int>(core::ExitCode::kBadInput);
  }

  // An option given an empty value (--gpu "") is a mistake in every verb, never "not given".
  std::vector<const CLI::App*> chain = {&app};
  for (const auto* sub : app.get_subcommands()) chain.push_back(sub);
  for (const CLI::App* command : chain) {
    for (const CLI::Option* option : command->get_options()) {
      // Not given, a flag, or a value that may be left out (inspect --watch).
      if (option->count() == 0 || option->get_type_size() == 0 || option->get_expected_min() == 0) continue;
      for (const auto& value : option->results()) {
        if (!value.empty()) continue;
        const std::string where = command == &app ? "gpuprobe" : "gpuprobe " + command->get_name();
        PrintError(err,
                   core::Status::InvalidArgument(option->get_name() + " needs a value, got an empty one",
                                                 "run '" + where + " --help' for usage and examples")
                       .WithKeys("error.cli.needs_value", {{"option", option->get_name()}, {"command", where}},
                                 "error.cli.hint"),
                   *texts);
        return static_cast<int>(core::ExitCode::kBadInput);
      }
    }
  }

  VerbContext context{cli->options, *texts, out, err};
  VerbRunner runner = cli->runners.front().second;  // no verb: the tour
  for (auto& [command, verb_runner] : cli->runners) {
    if (command->parsed()) runner = verb_runner;
  }
  core::Result<core::ExitCode> result = core::Status::Internal("verb did not run");
  try {
    result = runner(context);
  } catch (const std::exception& e) {
    // Library code returns Status; reaching this is a bug, reported rather than a crash.
    result = core::Status::Internal(std::string("unexpected error: ") + e.what())
                 .WithKeys("error.internal.unexpected", {{"what", e.what()}});
  }
  out.flush();
  if (!result.ok()) {
    PrintError(err, result.status(), *texts);
    return static_cast<int>(ExitCodeFor(result.status()));
  }
  return static_cast<int>(*result);
}

}  // namespace gpuprobe::cli
