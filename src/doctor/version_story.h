// The versions a mismatch message names, compared against the driver/CUDA compatibility table
// (data/cuda_compat.json): PyTorch's "driver ... too old (found version 11040)", the
// container toolkit's "unsatisfied condition: cuda>=12.8", NVML's "client has the version X,
// but this kernel module has the version Y" and "NVML library version: X", an nvidia-smi
// header pasted beside the error, and a library older than the one a framework was built
// with (cuDNN, cuSOLVER).
//
// Thread safety: reentrant.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "doctor/cuda_compat.h"

namespace gpuprobe::doctor {

struct VersionStory {
  /// "driver_ceiling": the driver's newest CUDA is too old for the program
  ///   (args: ceiling, min_driver_for_ceiling, driver?);
  /// "container_requirement": the image needs a newer driver (args: cuda, min_driver, driver?);
  /// "module_mismatch": user-space libraries and kernel module differ (args: library, module);
  /// "library_version_only": only the user-space version is known (args: library);
  /// "library_older": a library older than the framework's build (args: library, loaded, built).
  std::string kind;
  std::map<std::string, std::string> args;
};

/// Every story the text tells, in this order: driver_ceiling, container_requirement,
/// module_mismatch or library_version_only, library_older.
std::vector<VersionStory> ReadVersionStories(std::string_view text, const CudaCompat& compat);

}  // namespace gpuprobe::doctor
