// What python3 reports of the GPU frameworks it can import: PyTorch, TensorFlow, JAX, CuPy,
// each with its version, the CUDA it was built for and (PyTorch, TensorFlow) the GPU
// architectures compiled in. All of it comes from the build, so no GPU is needed to read it.
//
// Thread safety: pure functions, except ProbeFrameworks (runs python3).
#pragma once

#include <string>
#include <vector>

#include "doctor/environment.h"

namespace gpuprobe::doctor {

/// How long python3 may take to import every framework (TensorFlow alone can take seconds).
inline constexpr double kFrameworkProbeSeconds = 60;

struct FrameworkInfo {
  std::string id;       ///< the check id: "pytorch", "tensorflow", "jax", "cupy"
  std::string name;     ///< the product name: "PyTorch"
  std::string module;   ///< what python imports: "torch"
  std::string error;    ///< the import's error text, quoted from Python; empty when it imported
  std::string version;  ///< "2.8.0+cu128"
  /// The CUDA release it was built for: "12.8", or "12" when only the major is known (a wheel
  /// named for CUDA 12); empty for a CPU-only build or when it could not be read.
  std::string cuda;
  bool cpu_only = false;  ///< the framework says it was built without CUDA
  std::string archs;      ///< the compiled architectures as the framework lists them; empty when it
                          ///< does not say
  std::string install_url;  ///< where its CUDA builds are listed
};

struct FrameworkReport {
  enum class Outcome { kNoPython, kTimedOut, kUnreadable, kRan };
  Outcome outcome = Outcome::kNoPython;
  std::vector<FrameworkInfo> found;  ///< in the order pytorch, tensorflow, jax, cupy
};

/// The Python program doctor runs (prints one JSON object).
const char* FrameworkProbeScript();

/// Parses the probe's output; Outcome kUnreadable when it is not a JSON object.
FrameworkReport ParseFrameworkReport(const std::string& json_text);

/// Runs python3 from the environment's PATH with the probe script.
FrameworkReport ProbeFrameworks(const Environment& env);

}  // namespace gpuprobe::doctor
