// doctor's checks: each looks at one thing that must be right for CUDA programs to run and
// says ok / info / warn / fail / skip, with its evidence and the fix, as text keys with
// arguments (check.h) that the view renders in the reader's language. They read the machine
// only through an Environment and an NvmlView, so tests run them on recorded /proc, /sys and
// /dev trees with fake nvcc and python3 scripts, and a fake KernelRunner for the smoke test.
//
// Thread safety: RunChecks runs python3 and nvcc as subprocesses; call it from one thread.
#pragma once

#include <string>
#include <vector>

#include "doctor/check.h"
#include "doctor/environment.h"

namespace gpuprobe::doctor {

/// The checks in the order they run and print: one explicit table, no self-registration.
const std::vector<CheckEntry>& AllChecks();

struct DoctorReport {
  std::vector<CheckResult> checks;
  bool gpu_present = false;    ///< an NVIDIA device is on the PCI bus or listed by NVML
  std::string driver_version;  ///< the kernel module's version; empty when none is loaded
};

/// Runs every check of AllChecks(). `kernels` runs the smoke test; null when it was not
/// asked for (the smoke_test result then says so).
DoctorReport RunChecks(const Environment& env, const NvmlView& nvml,
                       const KernelRunner* kernels = nullptr);

/// Runs the one check `id` of the table (tests); NotFound for an id not in the table.
core::Result<std::vector<CheckResult>> RunCheck(const std::string& id, const Environment& env,
                                                const NvmlView& nvml,
                                                const KernelRunner* kernels = nullptr);

/// Worst status (kOk when empty; kInfo and kSkip count as ok).
CheckStatus WorstStatus(const std::vector<CheckResult>& checks);

}  // namespace gpuprobe::doctor
