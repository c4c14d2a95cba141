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

/// Builds the app; `texts` (which must outlive the app) supplies every help text.
std::unique_ptr<CliApp> BuildCliApp(const report::Texts& texts);

/// The language of the output, known before parsing: --lang en|zh (or --lang=..) anywhere on
/// the command line, else the locale (LC_ALL, LC_MESSAGES, LANG). A --lang value other than
/// en or zh is left for the parser to refuse, in the locale's language.
report::Language LanguageBeforeParsing(int argc, char** argv);

}  // namespace gpuprobe::cli
