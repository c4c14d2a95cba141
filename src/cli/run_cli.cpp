#include <algorithm>
#include <vector>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "core/spelling.h"
#include "core/version.h"

namespace gpuprobe::cli {
namespace {

constexpr const char* kMainFooter = R"(Examples:
  gpuprobe                          what is this machine and is it OK? identity, state, a side-by-side bench, a verdict
  gpuprobe gpus                     every GPU in the spec database, one line each
  gpuprobe gpus show h200           one GPU's figures, each explained and checked
  gpuprobe gpus compare a100-80gb h100 h200
  gpuprobe plan --params 8B --gpu h200
  gpuprobe plan --model config.json --mode qlora --seq 2048 --json
  gpuprobe bench                    measure memory, compute, caches, matmul on this machine
  gpuprobe advise --profile matmul --size 2048
  gpuprobe inspect                  every GPU now: each number's meaning, then what looks wrong
  gpuprobe doctor                   driver, devices, containers, toolkits, frameworks: what is broken and the fix
  gpuprobe explain "CUDA error: an illegal memory access was encountered"
  gpuprobe report -o node17.html     the machine, charts and findings in one HTML file
  gpuprobe bench --save && gpuprobe history compare    what got faster or slower since last time
  gpuprobe serve                    /metrics for Prometheus on 127.0.0.1:9400

Exit status: 0 ok, 1 problems found, 2 bad usage or input, 3 not on this machine.
Every verb takes --json (machine-readable, SI units, a versioned "schema") and --lang en|zh.)";

void PrintError(std::ostream& err, const core::Status& status) {
  err << "gpuprobe: error: " << status.message() << "\n";
  if (!status.hint().empty()) err << "  hint: " << status.hint() << "\n";
}

// The first argument that is neither an option nor an option's value.
const char* FirstWord(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--lang") {
      ++i;
      continue;
    }
    if (!arg.empty() && arg[0] == '-') continue;
    return argv[i];
  }
  return nullptr;
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

int RunCli(int argc, char** argv, std::ostream& out, std::ostream& err) {
  GlobalOptions options;
  CLI::App app{"gpuprobe: predict, measure, compare and explain GPU performance, in a backend engineer's terms.",
               "gpuprobe"};
  app.footer(kMainFooter);
  app.set_version_flag("--version", std::string("gpuprobe ") + core::kVersion);
  app.add_flag("--json", options.json, "print one JSON document (SI units, versioned \"schema\") instead of text");
  app.add_option("--lang", options.lang, "language of the text output: en or zh (default: from LANG/LC_ALL)")
      ->check(CLI::IsMember({"en", "zh"}));
  app.require_subcommand(0, 1);
  app.fallthrough(true);

  std::vector<std::pair<CLI::App*, VerbRunner>> runners;
  std::vector<std::string> verb_names;
  for (const auto& verb : Verbs()) {
    CLI::App* command = app.add_subcommand(verb.name, verb.summary);
    command->fallthrough(true);
    runners.emplace_back(command, verb.setup(command));
    verb_names.push_back(verb.name);
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

  // An unknown verb gets "did you mean" before CLI11 reports a generic extra argument.
  if (const char* word = FirstWord(argc, argv)) {
    if (std::find(verb_names.begin(), verb_names.end(), word) == verb_names.end()) {
      auto near = core::ClosestMatches(word, verb_names);
      std::string hint = "run 'gpuprobe --help' for the list of verbs";
      std::string message = std::string("unknown verb '") + word + "'";
      if (!near.empty()) message += "; did you mean '" + near.front() + "'?";
      PrintError(err, core::Status::InvalidArgument(message, hint));
      return static_cast<int>(core::ExitCode::kBadInput);
    }
  }

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
    PrintError(err, core::Status::InvalidArgument(e.what(), "run '" + where + " --help' for usage and examples"));
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
        PrintError(err, core::Status::InvalidArgument(option->get_name() + " needs a value, got an empty one",
                                                      "run 'gpuprobe " + command->get_name() + " --help' for usage"));
        return static_cast<int>(core::ExitCode::kBadInput);
      }
    }
  }

  report::Language language = report::LanguageFromEnvironment();
  if (!options.lang.empty()) language = *report::ParseLanguage(options.lang);
  auto texts = report::Texts::Load(language);
  if (!texts.ok()) {
    PrintError(err, texts.status());
    return static_cast<int>(core::ExitCode::kBadInput);
  }
  VerbContext context{options, *texts, out, err};

  VerbRunner runner = runners.front().second;  // no verb: the tour
  for (auto& [command, verb_runner] : runners) {
    if (command->parsed()) runner = verb_runner;
  }
  core::Result<core::ExitCode> result = core::Status::Internal("verb did not run");
  try {
    result = runner(context);
  } catch (const std::exception& e) {
    // Library code returns Status; reaching this is a bug, reported rather than a crash.
    result = core::Status::Internal(std::string("unexpected error: ") + e.what());
  }
  out.flush();
  if (!result.ok()) {
    PrintError(err, result.status());
    return static_cast<int>(ExitCodeFor(result.status()));
  }
  return static_cast<int>(*result);
}

}  // namespace gpuprobe::cli
