// The exit-status contract of every gpuprobe verb (documented in docs/cli.md).
#pragma once

namespace gpuprobe::core {

enum class ExitCode : int {
  kOk = 0,             ///< done, nothing wrong found
  kProblemsFound = 1,  ///< the verb ran and found warnings or failures
  kBadInput = 2,       ///< bad usage or bad input: unknown verb or flag, malformed file
  kNotHere = 3,        ///< what was asked for is not on this machine (a GPU, a driver)
};

}  // namespace gpuprobe::core
