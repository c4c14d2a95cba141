// The `inspect` verb: its flags, examples and runner (cmd_inspect.cpp).
#pragma once

#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "core/status.h"
#include "report/i18n.h"

namespace CLI {
class App;
}

namespace gpuprobe::cli {

/// Adds the verb's flags and examples to `command`; returns the runner to call after parsing.
VerbRunner SetupInspectVerb(CLI::App* command);

/// gpuprobe.inspect.v1 of the live GPUs, as `inspect --json` prints it; an error without a
/// driver. The tour and `report` pass it to the live run.
core::Result<nlohmann::json> LiveInspectDocument(const report::Texts& texts);

}  // namespace gpuprobe::cli
