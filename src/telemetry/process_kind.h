// What a GPU process is, from nvidia-smi's Type column: "C" a compute context (CUDA, OpenCL),
// "G" a graphics context (a display server, a desktop shell, a browser's GPU process), "M" an
// MPS server or client, and combinations joined by '+' ("C+G": both, which every windowed
// application on a Windows desktop shows). Only processes with a compute or MPS context and
// no graphics context are counted as jobs by the findings; "C+G" is a desktop application
// that also uses compute (a browser, a video player), not a job a server runs.
//
// Thread safety: pure functions.
#pragma once

#include <string_view>
#include <vector>

#include "telemetry/snapshot.h"

namespace gpuprobe::telemetry {

enum class ProcessKind {
  kCompute,          ///< C, M, M+C: a compute job
  kGraphics,         ///< G
  kComputeGraphics,  ///< C+G (and M+C+G): a desktop application with both contexts
  kUnknown,          ///< empty or unrecognised type
};

/// Classifies nvidia-smi's type text by its '+'-separated tokens (spaces ignored).
ProcessKind ClassifyProcess(std::string_view type);

/// The processes of `gpu` that are compute jobs.
std::vector<const ProcessInfo*> ComputeJobs(const Snapshot& gpu);

}  // namespace gpuprobe::telemetry
