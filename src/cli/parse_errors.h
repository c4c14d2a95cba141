// CLI11's parse errors as a translatable core::Status. CLI11 reports a bad command line with
// an exception whose class says what went wrong and whose English text names the option and
// the value; this file turns each class into a text key with those names as arguments, so the
// error reads in the user's language. The English text stays the Status's message.
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "core/status.h"

namespace gpuprobe::cli {

/// InvalidArgument with message e.what() and a key "error.cli.<kind>" for each CLI11 error
/// class a user can cause (an unknown flag, a value that does not convert, a value outside the
/// allowed set, a flag without its value, a required option missing, two options that exclude
/// each other); "error.cli.other" for any other class. The hint points at the help of
/// `command` ("gpuprobe bench"), keyed "error.cli.hint".
core::Status StatusFromParseError(const CLI::ParseError& error, const std::string& command);

}  // namespace gpuprobe::cli
