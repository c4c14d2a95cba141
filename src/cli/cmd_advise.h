// The `advise` verb: its flags, examples and runner (cmd_advise.cpp).
#pragma once

#include "cli/command.h"

namespace CLI {
class App;
}

namespace gpuprobe::cli {

/// Adds the verb's flags and examples to `command`; returns the runner to call after parsing.
VerbRunner SetupAdviseVerb(CLI::App* command);

}  // namespace gpuprobe::cli
