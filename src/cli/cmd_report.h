// The `report` verb: its flags, examples and runner (cmd_report.cpp).
#pragma once

#include "cli/command.h"

namespace CLI {
class App;
}

namespace gpuprobe::cli {

/// Adds the verb's flags and examples to `command`; returns the runner to call after parsing.
VerbRunner SetupReportVerb(CLI::App* command);

}  // namespace gpuprobe::cli
