// The command line as CLI11 sees it: the main program, its global flags and every verb with
// its flags, help rendered from the text catalogue (cli/help_formatter.h). RunCli parses with
// it; tests walk it to check that every verb and option has its help text in every language.
//
// Thread safety: single-threaded (main's thread).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "report/i18n.h"

namespace gpuprobe::cli {

struct CliApp {
  CLI::App app;
  GlobalOptions options;  ///< bound to --json and --lang
  std::vector<std::pair<CLI::App*, VerbRunner>> runners;  ///< one per verb, in Verbs() order
  std::vector<std::string> verb_names;
};

/// Every verb, in the order --help lists them. Registered explicitly (explicit lists: no static self-registration).
const std::vector<VerbDefinition>& Verbs();

/// Builds the app; `texts` (which must outlive the app) supplies every help text.
std::unique_ptr<CliApp> BuildCliApp(const report::Texts& texts);

/// The language of the output, known before parsing: --lang en|zh (or --lang=..) anywhere on
/// the command line, else the locale (LC_ALL, LC_MESSAGES, LANG). A --lang value other than
/// en or zh is left for the parser to refuse, in the locale's language.
report::Language LanguageBeforeParsing(int argc, char** argv);

/// 2 for bad input or usage, 3 for what is not on this machine, 2 otherwise
/// (an I/O or internal error is reported, never hidden behind 0 or 1).
core::ExitCode ExitCodeFor(const core::Status& status);

/// Runs the CLI on argv; returns the process exit status. main() is only this call.
int RunCli(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace gpuprobe::cli
