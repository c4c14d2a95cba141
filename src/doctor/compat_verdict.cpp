#include "doctor/compat_verdict.h"

#include <cstdlib>

#include "doctor/cuda_compat.h"
#include "doctor/machine_facts.h"

namespace gpuprobe::doctor {
namespace {

// cuda-compat-13-0 for CUDA 13.0; for a major alone, the newest release of it in the table
// (a newer compat package runs every older release of its major).
std::string CompatPackage(const CudaCompat& compat, const std::string& cuda, int major) {
  std::string release = cuda;
  if (cuda.find('.') == std::string::npos) {
    release.clear();
    for (int minor = 9; minor >= 0 && release.empty(); --minor) {
      std::string candidate = std::to_string(major) + "." + std::to_string(minor);
      if (!compat.MinDriver(candidate).empty()) release = candidate;
    }
    if (release.empty()) return {};
  }
  auto dot = release.find('.');
  auto second = release.find('.', dot + 1);
  return "cuda-compat-" + release.substr(0, dot) + "-" +
         release.substr(dot + 1,
                        second == std::string::npos ? std::string::npos : second - dot - 1);
}

}  // namespace

CompatOutcome DescribeCompat(const CheckContext& ctx, const std::string& cuda,
                             CompatSubject subject, const std::string& install_url) {
  CompatOutcome out;
  const std::string& driver = ctx.facts.driver_version;
  const CudaCompat& compat = ctx.compat;
  if (driver.empty()) {
    std::string needed = cuda.find('.') == std::string::npos
                             ? compat.MinorCompatFloor(std::atoi(cuda.c_str()))
                             : compat.MinDriver(cuda);
    out.status = CheckStatus::kInfo;
    out.sentence = needed.empty() ? Msg("doctor.check.compat.no_driver_unknown", {{"cuda", cuda}})
                                  : Msg("doctor.check.compat.no_driver", {{"needed", needed}});
    out.values = {{"level", "no_driver"}, {"needed", needed}};
    return out;
  }
  CompatVerdict v = compat.Check(cuda, driver);
  std::string ceiling = compat.CeilingOf(driver);
  bool framework = subject == CompatSubject::kFramework;
  out.values = {{"level", CompatLevelName(v.level)},
                {"needed", v.needed},
                {"floor", v.floor},
                {"driver", driver}};
  switch (v.level) {
    case CompatLevel::kOk:
      out.status = CheckStatus::kOk;
      out.sentence = Msg("doctor.check.compat.ok", {{"driver", driver}, {"needed", v.needed}});
      break;
    case CompatLevel::kMinorCompat:
      out.status = CheckStatus::kWarn;
      out.sentence = Msg("doctor.check.compat.minor_compat", {{"driver", driver},
                                                              {"needed", v.needed},
                                                              {"floor", v.floor},
                                                              {"major", std::to_string(v.major)}});
      out.fix = framework ? Msg("doctor.check.compat.minor_fix_framework",
                                {{"needed", v.needed}, {"ceiling", ceiling}, {"url", install_url}})
                          : Msg("doctor.check.compat.minor_fix_toolkit",
                                {{"needed", v.needed}, {"ceiling", ceiling}});
      break;
    case CompatLevel::kTooOld: {
      out.status = CheckStatus::kFail;
      out.sentence = Msg("doctor.check.compat.too_old", {{"driver", driver}, {"needed", v.needed}});
      std::string package = CompatPackage(compat, cuda, v.major);
      if (ceiling.empty() || package.empty()) {
        out.fix = Msg("doctor.check.compat.too_old_fix_driver", {{"needed", v.needed}});
      } else if (framework) {
        out.fix = Msg("doctor.check.compat.too_old_fix_framework", {{"needed", v.needed},
                                                                    {"ceiling", ceiling},
                                                                    {"url", install_url},
                                                                    {"package", package}});
      } else {
        out.fix = Msg("doctor.check.compat.too_old_fix_toolkit",
                      {{"needed", v.needed}, {"ceiling", ceiling}, {"package", package}});
      }
      break;
    }
    case CompatLevel::kUnknown:
      out.status = CheckStatus::kInfo;
      out.sentence =
          v.floor.empty()
              ? Msg("doctor.check.compat.unknown", {{"cuda", cuda}, {"driver", driver}})
              : Msg("doctor.check.compat.unknown_newer", {{"newest", compat.NewestCuda()},
                                                          {"driver", driver},
                                                          {"major", std::to_string(v.major)},
                                                          {"floor", v.floor}});
      break;
  }
  return out;
}

}  // namespace gpuprobe::doctor
