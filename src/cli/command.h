// The verb table and what every verb shares: global options, texts, output streams, and
// the one mapping from Status to exit status (core/exit_code.h).
//
// Thread safety: single-threaded (main's thread).
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/exit_code.h"
#include "core/status.h"
#include "report/i18n.h"

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

/// Every verb, in the order --help lists them. Registered explicitly (explicit lists: no static self-registration).
const std::vector<VerbDefinition>& Verbs();

VerbRunner SetupTourVerb(CLI::App* command);
VerbRunner SetupGpusVerb(CLI::App* command);
VerbRunner SetupPlanVerb(CLI::App* command);
VerbRunner SetupBenchVerb(CLI::App* command);
VerbRunner SetupAdviseVerb(CLI::App* command);
VerbRunner SetupInspectVerb(CLI::App* command);
VerbRunner SetupExplainVerb(CLI::App* command);
VerbRunner SetupDoctorVerb(CLI::App* command);
VerbRunner SetupHistoryVerb(CLI::App* command);
VerbRunner SetupServeVerb(CLI::App* command);
VerbRunner SetupReportVerb(CLI::App* command);

/// gpuprobe.inspect.v1 of the live GPUs, as `inspect --json` prints it (cmd_inspect.cpp); an
/// error without a driver. The tour and `report` pass it to the live run.
core::Result<nlohmann::json> LiveInspectDocument(const report::Texts& texts);

/// 2 for bad input or usage, 3 for what is not on this machine, 2 otherwise
/// (an I/O or internal error is reported, never hidden behind 0 or 1).
core::ExitCode ExitCodeFor(const core::Status& status);

/// Formats text `key` with named fmt arguments (report/i18n.h).
using report::Tr;

/// Runs the CLI on argv; returns the process exit status. main() is only this call.
int RunCli(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace gpuprobe::cli
