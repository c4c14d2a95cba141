// What every verb shares: global options, texts, output streams, and the shape of a verb
// (its setup and runner). Types only: cli_app.h lists the verbs and maps a Status to an exit
// status; each cmd_<verb>.h declares its verb's setup.
//
// Thread safety: single-threaded (main's thread).
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "core/exit_code.h"
#include "core/status.h"
#include "report/i18n.h"
#include "report/phrase_text.h"

namespace CLI {
class App;
}

namespace gpuprobe::cli {

struct GlobalOptions {
  bool json = false;        ///< --json: one JSON document on stdout
  std::string lang;         ///< --lang en|zh; empty = from the locale
};

struct VerbContext {
  const GlobalOptions& options;
  const report::Texts& texts;
  std::ostream& out;
  std::ostream& err;
};

/// What a verb does once its flags are parsed: an exit code, or a Status that main turns
/// into a message and an exit code.
using VerbRunner = std::function<core::Result<core::ExitCode>(VerbContext&)>;

struct VerbDefinition {
  const char* name;      ///< "gpus"
  const char* summary;   ///< given to CLI11; `--help` shows texts "help.<name>.summary" (cli/help_formatter.h)
  /// Adds the verb's flags and examples to `command`; returns the runner to call after parsing.
  VerbRunner (*setup)(CLI::App* command);
};

/// Formats text `key` with named fmt arguments (report/i18n.h).
using report::Tr;
/// Words a model Phrase, its arguments and counts (report/phrase_text.h).
using report::FormatArg;
using report::FormatParams;
using report::GpuNameText;
using report::Say;

}  // namespace gpuprobe::cli
