// Internal to the matcher's two source files: the definitions of ErrorMatcher's rule and
// number-position records. Not for use outside src/doctor.
#pragma once

#include <memory>
#include <string>

#include <re2/re2.h>

#include "doctor/error_matcher.h"

namespace gpuprobe::doctor {

struct ErrorMatcher::Rule {
  enum class Kind { kPattern, kName, kXid, kMessage, kNumber, kLibrary, kCudaErrorText };
  Kind kind;
  size_t entry = 0;    // kPattern: entry index
  size_t pattern = 0;  // kPattern: pattern index in the entry; kNumber: position index; kLibrary: library index
};

struct ErrorMatcher::NumberPosition {
  std::unique_ptr<RE2> re;  // one capture: the number
  std::string api;          // "cuda" (runtime, driver or legacy numbering), "cuda_driver", "cublas", "nccl"
  bool old_era = false;     // a format only printed before CUDA 10.1 renumbered the runtime
};

}  // namespace gpuprobe::doctor
