// The driver <-> CUDA rules (data/cuda_compat.json, with NVIDIA's sources): each toolkit's
// minimum driver, the minor-version compatibility floor of each CUDA major, and the driver's
// CUDA ceiling. Verdicts are structured (a level and the versions behind it) so that the
// views word them in the reader's language. Pure.
//
// Thread safety: immutable after Parse; Embedded() is safe to call from any thread.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace gpuprobe::doctor {

/// "580.95.05" < "590.44.01", compared number by number; a part that is not a number counts
/// as 0, a missing part as 0 ("570.26" == "570.26.0").
int CompareVersions(const std::string& a, const std::string& b);

enum class CompatLevel {
  kOk,           ///< the driver meets the minimum of this CUDA release
  kMinorCompat,  ///< below the minimum but at or above the major's floor: runs, limited features
  kTooOld,       ///< below the floor (or a different major): "CUDA driver version is insufficient"
  kUnknown,  ///< a CUDA release the table does not list, on a driver that meets its major's floor
};
/// "ok", "minor_compat", "too_old", "unknown" (stable: used in `doctor --json` values).
std::string CompatLevelName(CompatLevel level);

struct CompatVerdict {
  CompatLevel level = CompatLevel::kUnknown;
  std::string needed;  ///< the release's minimum driver; the major's floor when only the major is
                       ///< known; empty when unknown
  std::string floor;   ///< the major's minor-version compatibility floor; empty before CUDA 11
  int major = 0;       ///< the CUDA major of the release checked
};

class CudaCompat {
 public:
  /// ParseError naming the field when the table is malformed.
  static core::Result<CudaCompat> Parse(const std::string& json_text);
  /// The table embedded from data/cuda_compat.json (parsed once).
  static core::Result<const CudaCompat*> Embedded();

  /// Minimum driver of a CUDA release ("12.4", "12.4.1" -> the 12.4 row); empty when unknown.
  std::string MinDriver(const std::string& cuda) const;
  /// The minor-version compatibility floor of a CUDA major; empty when it has none (before 11).
  std::string MinorCompatFloor(int major) const;
  /// The newest CUDA release whose minimum driver is <= `driver`; empty when none is.
  std::string CeilingOf(const std::string& driver) const;
  /// The newest release in the table ("13.3"); empty for an empty table.
  std::string NewestCuda() const;
  /// Can a program built with CUDA `cuda` ("12.8", or just "12" when only the major is known)
  /// run on `driver` ("535.104.05")?
  CompatVerdict Check(const std::string& cuda, const std::string& driver) const;

 private:
  struct Row {
    std::string cuda, min_driver;
  };
  std::vector<Row> rows_;                           // newest first
  std::vector<std::pair<int, std::string>> minor_;  // major -> floor
};

}  // namespace gpuprobe::doctor
