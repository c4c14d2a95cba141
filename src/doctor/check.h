// What one doctor check returns, and what it is given. A check never words a sentence: it
// returns a status, text keys of data/texts/<lang>/doctor.json with named arguments (raw
// values: versions, paths, device names, counts, commands, text quoted from a tool), and
// machine-readable values; the view renders the keys in the reader's language.
//
// Thread safety: plain values; a CheckContext is read-only while checks run.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "doctor/environment.h"
#include "telemetry/snapshot.h"

namespace gpuprobe::doctor {

enum class CheckStatus { kOk, kInfo, kWarn, kFail, kSkip };
/// "ok", "info", "warn", "fail", "skip" (stable: `doctor --json`).
std::string CheckStatusName(CheckStatus status);

/// One sentence: a text key ("doctor.check.nouveau.owns") and its named arguments.
using Message = core::TextRef;

/// Shorthand: Msg("doctor.check.x.y", {{"version", v}}).
Message Msg(std::string key, std::vector<std::pair<std::string, std::string>> args = {});

struct CheckResult {
  std::string id;  ///< stable: kernel_module, nouveau, pytorch, ... (docs/doctor.md)
  CheckStatus status = CheckStatus::kOk;
  std::vector<Message> evidence;  ///< what was seen, one or more sentences
  Message fix;                    ///< what to do, or how to get what is missing; empty when nothing
  nlohmann::json values =
      nlohmann::json::object();  ///< raw facts for scripts: versions, paths, counts
};

/// Shorthand for a result without values.
CheckResult MakeResult(std::string id, CheckStatus status, std::vector<Message> evidence,
                       Message fix = {});

/// What NVML said, read by the caller (app/doctor_run.cpp) so checks stay testable.
struct NvmlView {
  enum class Failure {
    kNone,         ///< loaded and read
    kNotLoadable,  ///< libnvidia-ml.so.1 could not be opened (no driver libraries)
    kInitFailed,   ///< nvmlInit returned `init_code`
    kReadFailed,   ///< initialised, but the GPUs could not be listed
  };
  bool loaded = false;
  Failure failure = Failure::kNotLoadable;
  int init_code = 0;           ///< NVML's return code of nvmlInit when kInitFailed
  std::string nvml_text;       ///< NVML's own text for init_code (nvmlErrorString)
  std::string detail;          ///< the loader's or reader's message, for `--json` values only
  std::string driver_version;  ///< the user-space driver's version
  std::string cuda_ceiling;    ///< "13.0": the newest CUDA the driver runs, as NVML reports it
  std::vector<telemetry::Snapshot> gpus;
};

/// Runs a small verified kernel on a GPU: the seam between doctor and the CUDA build, so the
/// smoke test is a check like the others and tests can fake it.
class KernelRunner {
 public:
  struct Outcome {
    std::uint64_t elements = 0;
    bool verified = false;
    std::uint64_t mismatches = 0;
  };
  virtual ~KernelRunner() = default;
  /// Whether this gpuprobe can run kernels at all (it was built with CUDA).
  virtual bool Built() const = 0;
  /// Allocates, runs, copies back and verifies on CUDA device `index`; a Status whose message
  /// quotes the CUDA error when a call fails.
  virtual core::Result<Outcome> Run(int index) const = 0;
};

struct MachineFacts;
class CudaCompat;

/// Everything a check may look at.
struct CheckContext {
  const Environment& env;
  const NvmlView& nvml;
  const MachineFacts& facts;
  const CudaCompat& compat;
  const KernelRunner* kernels = nullptr;  ///< null: the smoke test was not asked for
};

using CheckFunction = std::vector<CheckResult> (*)(const CheckContext&);

/// One row of doctor's table: a check's id and its function. A function returns at least one
/// result; results carry the check's id, or a finer one (per framework, per GPU setting).
struct CheckEntry {
  const char* id;
  CheckFunction run;
};

}  // namespace gpuprobe::doctor
