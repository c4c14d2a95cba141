// A CUDA release (a toolkit's or a framework's build) checked against the driver in effect,
// as a status, a sentence and a fix: shared by the toolkit and the framework checks so both
// say the same thing for the same versions.
//
// Thread safety: pure.
#pragma once

#include <string>

#include "doctor/check.h"

namespace gpuprobe::doctor {

enum class CompatSubject { kToolkit, kFramework };

struct CompatOutcome {
  CheckStatus status = CheckStatus::kInfo;
  Message sentence;                                  ///< the driver side of the evidence
  Message fix;                                       ///< empty when nothing is to be done
  nlohmann::json values = nlohmann::json::object();  ///< level, needed, floor, driver
};

/// ok (driver meets the minimum), warn (minor-version compatibility only), fail (too old),
/// info (no driver to check against, or a release the table does not list). `install_url`
/// is where a framework's builds are listed (kFramework only).
CompatOutcome DescribeCompat(const CheckContext& ctx, const std::string& cuda,
                             CompatSubject subject, const std::string& install_url = {});

}  // namespace gpuprobe::doctor
