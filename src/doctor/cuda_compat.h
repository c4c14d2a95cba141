// The driver <-> CUDA rules (data/cuda_compat.json): each toolkit's minimum driver, the
// minor-version compatibility floors, and the driver's CUDA ceiling. Pure.
//
// Thread safety: immutable after Load.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace gpuprobe::doctor {

/// "580.95.05" < "590.44.01", compared number by number.
int CompareVersions(const std::string& a, const std::string& b);

struct CompatVerdict {
  std::string level;   ///< "ok", "minor_compat" (works with limits), "too_old"
  std::string detail;  ///< one sentence with the versions
};

class CudaCompat {
 public:
  static core::Result<CudaCompat> Parse(const std::string& json_text);
  static core::Result<const CudaCompat*> Embedded();
  /// Minimum driver of a toolkit version ("12.4"); empty when unknown.
  std::string MinDriver(const std::string& cuda) const;
  /// The newest CUDA version whose minimum driver is <= `driver` (the driver's ceiling).
  std::string CeilingOf(const std::string& driver) const;
  /// Can a program built with CUDA `cuda` run on `driver`?
  CompatVerdict Check(const std::string& cuda, const std::string& driver) const;

 private:
  struct Row {
    std::string cuda, min_driver;
  };
  std::vector<Row> rows_;                 // newest first
  std::vector<std::pair<int, std::string>> minor_;  // major -> floor
};

}  // namespace gpuprobe::doctor
