// The `inspect` verb: its flags, examples and runner (cmd_inspect.cpp).
#pragma once

#include "cli/command.h"

namespace CLI {
class App;
}

namespace gpuprobe::cli {

/// Adds the verb's flags and examples to `command`; returns the runner to call after parsing.
VerbRunner SetupInspectVerb(CLI::App* command);

}  // namespace gpuprobe::cli
