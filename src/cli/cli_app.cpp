#include "cli/cli_app.h"

#include <algorithm>
#include <iostream>
#include <cctype>
#include <memory>
#include <set>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

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
#include "core/terminal_text.h"
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

namespace {

// Options whose value may be 0 with a meaning of its own; every other numeric option given
// as 0 is refused (one rule for every verb: an explicit 0 never quietly means the default).
// Numeric: CLI11 typed it as a number, or it is a quantity written with a unit (256MiB, 7B).
bool ZeroIsMeaningless(const CLI::Option& option) {
  static const std::set<std::string> kZeroMeans = {
      "--think-time",          // plan: users send the next request at once
      "--shared-prefix",       // plan: no prefix shared
      "--parallel-fraction",   // advise: all serial
      "--transfer-bytes",      // advise: the data stays on the GPU
      "--flops", "--bytes",    // advise: a pure copy or pure arithmetic workload
      "--fail-on-regression",  // history: any slowdown fails
  };
  static const std::set<std::string> kQuantitiesWithUnits = {"--size", "--params", "--train-tokens", "--seq", "--seconds"};
  const std::string name = option.get_name();
  if (kZeroMeans.count(name) != 0) return false;
  const std::string type = option.get_type_name();
  bool numeric = type == "INT" || type == "UINT" || type == "FLOAT" || type == "NUMBER" || kQuantitiesWithUnits.count(name) != 0;
  return numeric && option.get_type_size() != 0;
}

/// "0", "0.0", "-0", "0e3", "0GiB", "0 B": a value that is zero whatever its unit.
bool IsZeroQuantity(const std::string& value) {
  size_t i = 0;
  if (i < value.size() && (value[i] == '+' || value[i] == '-')) ++i;
  bool digit = false;
  while (i < value.size() && (value[i] == '0' || value[i] == '.')) digit |= value[i++] == '0';
  if (!digit) return false;
  if (i < value.size() && (value[i] == 'e' || value[i] == 'E')) {
    size_t j = i + 1;
    if (j < value.size() && (value[j] == '+' || value[j] == '-')) ++j;
    if (j < value.size() && std::isdigit(static_cast<unsigned char>(value[j]))) {
      i = j;
      while (i < value.size() && std::isdigit(static_cast<unsigned char>(value[i]))) ++i;
    }
  }
  while (i < value.size() && value[i] == ' ') ++i;
  for (; i < value.size(); ++i) {  // a unit: letters and '/' only (0x10 is not zero)
    char c = value[i];
    if (!(std::isalpha(static_cast<unsigned char>(c)) || c == '/') || (c == 'x' && i == 1)) return false;
  }
  return true;
}

std::vector<const CLI::Option*> OptionsGiven(const std::vector<const CLI::App*>& chain) {
  std::vector<const CLI::Option*> given;
  for (const CLI::App* command : chain) {
    for (const CLI::Option* option : command->get_options()) {
      if (option->count() != 0 && !option->get_name().empty() && option->get_name()[0] == '-') given.push_back(option);
    }
  }
  return given;
}

int RunFiltered(int argc, char** argv, std::ostream& out, std::ostream& err) {
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
    // A global option's error (--lang fr) points to the top-level help, whatever verb ran.
    const std::string what = e.what();
    for (const CLI::Option* option : app.get_options()) {
      const std::string name = option->get_name();
      if (!name.empty() && what.rfind(name + ":", 0) == 0) where = "gpuprobe";
    }
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
        // A positional (explain's text) is not an option the user named: say what is empty.
        const bool positional = option->get_name().rfind("-", 0) != 0;
        PrintError(err,
                   core::Status::InvalidArgument(option->get_name() + " needs a value, got an empty one",
                                                 "run '" + where + " --help' for usage and examples")
                       .WithKeys(positional ? "error.cli.empty_positional" : "error.cli.needs_value",
                                 {{"option", option->get_name()}, {"command", where}}, "error.cli.hint"),
                   *texts);
        return static_cast<int>(core::ExitCode::kBadInput);
      }
    }
  }

  // An explicit 0 is never "the default": a quantity where 0 has no meaning is refused.
  for (const CLI::Option* option : OptionsGiven(chain)) {
    if (!ZeroIsMeaningless(*option)) continue;
    for (const auto& value : option->results()) {
      if (!IsZeroQuantity(value)) continue;
      const std::string where = "gpuprobe " + chain.back()->get_name();
      PrintError(err,
                 core::Status::InvalidArgument(fmt::format("{} must be above 0, got '{}'", option->get_name(), value),
                                               "leave it out for the default; run '" + where + " --help'")
                     .WithKeys("error.cli.zero", {{"option", option->get_name()}, {"value", value}, {"command", where}},
                               "error.cli.zero_hint"),
                 *texts);
      return static_cast<int>(core::ExitCode::kBadInput);
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

}  // namespace

int RunCli(int argc, char** argv, std::ostream& out, std::ostream& err) {
  // Every byte a verb writes passes the terminal filter (core/terminal_text.h): names, fields
  // and log lines quoted from inputs cannot move the cursor, retitle the window or hide text.
  core::TerminalSafeBuf safe_out(out.rdbuf());
  core::TerminalSafeBuf safe_err(err.rdbuf());
  std::ostream filtered_out(&safe_out);
  std::ostream filtered_err(&safe_err);
  int code = RunFiltered(argc, argv, filtered_out, filtered_err);
  filtered_out.flush();
  filtered_err.flush();
  return code;
}

}  // namespace gpuprobe::cli
