// Running another program (nvidia-smi, nvcc, python3) with a timeout and no shell: the
// arguments go to execvp as they are, so no input can be interpreted as shell syntax.
//
// Thread safety: RunSubprocess may be called from several threads; each call owns its child.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace gpuprobe::core {

struct SubprocessResult {
  int exit_code = -1;        ///< the child's exit status; -1 when it was killed by a signal
  int signal_number = 0;     ///< the signal that ended it, 0 when it exited
  bool timed_out = false;    ///< true when it was killed because it ran past the timeout
  std::string stdout_text;   ///< captured standard output (truncated at max_output_bytes)
  std::string stderr_text;   ///< captured standard error (truncated at max_output_bytes)
};

struct SubprocessOptions {
  double timeout_seconds = 10.0;          ///< kill (SIGKILL) the child after this long
  std::size_t max_output_bytes = 16 << 20;  ///< per stream; the rest is read and dropped
  std::string stdin_text;                 ///< written to the child's standard input
};

/// Runs argv[0] (looked up on PATH) with argv[1..]. Returns the outcome, including a
/// non-zero exit or a timeout; Unavailable when the program does not exist or cannot be
/// started; InvalidArgument for an empty argv.
Result<SubprocessResult> RunSubprocess(const std::vector<std::string>& argv,
                                       const SubprocessOptions& options = {});

}  // namespace gpuprobe::core
