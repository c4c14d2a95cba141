#include "doctor/version_story.h"

#include <cstdlib>

#include <fmt/format.h>
#include <re2/re2.h>

namespace gpuprobe::doctor {
namespace {

// 11040 -> "11.4", 12080 -> "12.8" (CUDA_VERSION and cudaDriverGetVersion's encoding).
std::string CudaFromCode(const std::string& code) {
  long value = std::strtol(code.c_str(), nullptr, 10);
  if (value < 1000) return {};
  return fmt::format("{}.{}", value / 1000, value % 1000 / 10);
}

// cuDNN 8907 -> "8.9.7", 90100 -> "9.1.0"; cuSOLVER 11401 -> "11.4.1".
std::string LibraryFromCode(const std::string& code) {
  long value = std::strtol(code.c_str(), nullptr, 10);
  if (value >= 10000) return fmt::format("{}.{}.{}", value / 10000, value % 10000 / 100, value % 100);
  if (value >= 1000) return fmt::format("{}.{}.{}", value / 1000, value % 1000 / 100, value % 100);
  return code;
}

}  // namespace

std::vector<VersionStory> ReadVersionStories(std::string_view raw, const CudaCompat& compat) {
  // Only the first 4 MiB: these messages open a paste or a log's first failure.
  std::string_view text = raw.substr(0, 4u << 20);
  static const RE2 kSmiDriver(R"(Driver Version:\s*([\d.]+))");
  static const RE2 kFound(R"(driver on your system is too old \(found version (\d{4,6})\))");
  static const RE2 kRequirement(R"(unsatisfied condition: cuda\s*>=\s*(\d+\.\d+))");
  static const RE2 kMismatch(R"(client has the version (\d+(?:\.\d+)*), but this kernel module has the version (\d+(?:\.\d+)*))");
  static const RE2 kNvmlLibrary(R"(NVML library version:\s*([\d.]+))");
  static const RE2 kCudnnLoaded(R"((?i)Loaded runtime cuDNN library:\s*([\d.]+) but source was compiled with:\s*([\d.]+))");
  static const RE2 kJaxBuilt(R"((?i)Outdated (cuDNN|cuBLAS|cuSOLVER|cuFFT|cuSPARSE|NCCL|CUDA) installation found)");
  static const RE2 kJaxInstalled(R"(Installed version:\s*(\d+))");
  static const RE2 kJaxMinimum(R"(Minimum supported:\s*(\d+))");
  static const RE2 kFoundLibrary(R"((?i)Found (cuDNN|cuBLAS|cuSOLVER|cuFFT|cuSPARSE|NCCL) version (\d+), but JAX was built against version (\d+))");

  std::vector<VersionStory> stories;
  std::string driver, a, b, c;
  RE2::PartialMatch(text, kSmiDriver, &driver);
  if (RE2::PartialMatch(text, kFound, &a)) {
    VersionStory s{"driver_ceiling", {}};
    std::string ceiling = CudaFromCode(a);
    s.args["ceiling"] = ceiling;
    s.args["min_driver_for_ceiling"] = compat.MinDriver(ceiling);
    if (!driver.empty()) s.args["driver"] = driver;
    if (!ceiling.empty()) stories.push_back(s);
  }
  if (RE2::PartialMatch(text, kRequirement, &a)) {
    VersionStory s{"container_requirement", {}};
    s.args["cuda"] = a;
    s.args["min_driver"] = compat.MinDriver(a);
    if (!driver.empty()) s.args["driver"] = driver;
    stories.push_back(s);
  }
  if (RE2::PartialMatch(text, kMismatch, &a, &b)) {
    stories.push_back({"module_mismatch", {{"library", a}, {"module", b}}});
  } else if (RE2::PartialMatch(text, kNvmlLibrary, &a)) {
    stories.push_back({"library_version_only", {{"library", a}}});
  }
  if (RE2::PartialMatch(text, kCudnnLoaded, &a, &b)) {
    stories.push_back({"library_older", {{"name", "cuDNN"}, {"loaded", a}, {"built", b}}});
  } else if (RE2::PartialMatch(text, kFoundLibrary, &c, &a, &b)) {
    stories.push_back({"library_older", {{"name", c}, {"loaded", LibraryFromCode(a)}, {"built", LibraryFromCode(b)}}});
  } else if (RE2::PartialMatch(text, kJaxBuilt, &c) && RE2::PartialMatch(text, kJaxInstalled, &a) &&
             RE2::PartialMatch(text, kJaxMinimum, &b)) {
    stories.push_back({"library_older", {{"name", c}, {"loaded", LibraryFromCode(a)}, {"built", LibraryFromCode(b)}}});
  }
  return stories;
}

}  // namespace gpuprobe::doctor
