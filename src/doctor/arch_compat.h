// Which compiled GPU code a program can use on a GPU of a given compute capability: machine
// code (SASS, sm_XY) runs on the same major with an equal or higher minor; PTX (compute_XY)
// is JIT-compiled by the driver for any capability >= XY; arch-specific variants (sm_90a)
// run only on exactly that capability, family variants (sm_100f) on the same major with an
// equal or higher minor. Source: NVIDIA CUDA C++ Programming Guide, "Binary Compatibility"
// and "PTX Compatibility"; NVIDIA's "Family-Specific Architecture Features" (CUDA 12.9). Pure.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpuprobe::doctor {

struct CompiledArch {
  int major = 0, minor = 0;
  bool ptx = false;          ///< compute_XY (PTX) rather than sm_XY (machine code)
  char variant = 0;          ///< 0, 'a' (arch-specific) or 'f' (family-specific)
  std::string Name() const;  ///< "sm_86", "compute_90a"
};

/// The architectures embedded in a build, from a framework's list ("sm_80 sm_86 compute_90",
/// TensorFlow's "sm_60 sm_70 compute_80") or nvcc flags ("-gencode arch=compute_80,code=sm_80":
/// only the code= targets are embedded). Unknown tokens are ignored; duplicates dropped.
std::vector<CompiledArch> ParseArchList(std::string_view text);

enum class ArchMatch {
  kMachineCode,  ///< machine code that runs on the GPU as is
  kPtxJit,       ///< only PTX: the driver compiles it at start-up
  kNone,         ///< nothing usable: "no kernel image is available for execution on the device"
};

struct ArchVerdict {
  ArchMatch match = ArchMatch::kNone;
  std::string used;  ///< the architecture that would run ("sm_86", "compute_80"); empty for kNone
};

/// What a GPU of capability `cc_major`.`cc_minor` would run from `archs`: the newest fitting
/// machine code first, else the newest usable PTX.
ArchVerdict MatchArch(const std::vector<CompiledArch>& archs, int cc_major, int cc_minor);

/// "8.6" -> {8, 6}; false when the text is not a capability.
bool ParseComputeCapability(const std::string& text, int* major, int* minor);

}  // namespace gpuprobe::doctor
