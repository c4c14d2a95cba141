// CUDA versions against the driver: the driver's ceiling, and every installed toolkit.
#include <re2/re2.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "doctor/check_list.h"
#include "doctor/compat_verdict.h"
#include "doctor/cuda_compat.h"
#include "doctor/machine_facts.h"

namespace gpuprobe::doctor {
namespace {

struct Toolkit {
  std::string path, version;
};

// nvcc on PATH, then every /usr/local/cuda*/bin/nvcc; /usr/local/cuda is usually a symlink
// to one of the others, so each real file is asked once.
std::vector<Toolkit> FindToolkits(const Environment& env) {
  std::vector<Toolkit> out;
  std::vector<std::string> seen;
  auto probe = [&](const std::string& nvcc) {
    std::string found = env.FindProgram(nvcc);
    if (found.empty()) return;
    std::error_code error;
    std::string canonical = std::filesystem::canonical(found, error).string();
    if (error) canonical = found;
    if (std::find(seen.begin(), seen.end(), canonical) != seen.end()) return;
    seen.push_back(canonical);
    auto run = env.Run({found, "--version"}, 10);
    std::string release;
    if (run.ok() && run->exit_code == 0 &&
        RE2::PartialMatch(run->stdout_text, R"(release (\d+\.\d+))", &release)) {
      // Shown as the reader knows it: without the test root.
      std::string shown = env.root() != "/" && found.rfind(env.root(), 0) == 0
                              ? found.substr(env.root().size())
                              : found;
      out.push_back({shown, release});
    }
  };
  probe("nvcc");
  for (const auto& dir : env.List("/usr/local")) {
    if (dir.rfind("cuda", 0) != 0 || !env.Exists("/usr/local/" + dir + "/bin/nvcc")) continue;
    probe((env.root() == "/" ? "" : env.root()) + "/usr/local/" + dir + "/bin/nvcc");
  }
  return out;
}

// Whether the table lists a later minor release of `release`'s major ("13.0" -> 13.1 exists).
bool NewerMinorExists(const CudaCompat& compat, const std::string& release) {
  auto dot = release.find('.');
  if (dot == std::string::npos) return false;
  std::string major = release.substr(0, dot);
  for (int minor = std::atoi(release.c_str() + dot + 1) + 1; minor <= 9; ++minor) {
    if (!compat.MinDriver(major + "." + std::to_string(minor)).empty()) return true;
  }
  return false;
}

}  // namespace

std::vector<CheckResult> CheckDriverCuda(const CheckContext& ctx) {
  const MachineFacts& f = ctx.facts;
  const std::string& driver = f.driver_version;
  if (driver.empty()) {
    return {MakeResult("driver_cuda", CheckStatus::kSkip,
                       {Msg(f.gpu_present ? "doctor.check.driver_cuda.no_driver"
                                          : "doctor.check.driver_cuda.no_gpu")})};
  }
  // NVML asks the installed libcuda; the table stands in where NVML could not say, and for a
  // forward-compatibility libcuda, which NVML does not describe.
  bool from_nvml = !ctx.nvml.cuda_ceiling.empty() && f.forward_compat_version.empty();
  std::string ceiling = from_nvml ? ctx.nvml.cuda_ceiling : ctx.compat.CeilingOf(driver);
  std::vector<Message> evidence;
  if (ceiling.empty()) {
    evidence.push_back(Msg("doctor.check.driver_cuda.older_than_table", {{"driver", driver}}));
  } else if (!from_nvml && ceiling == ctx.compat.NewestCuda()) {
    evidence.push_back(Msg("doctor.check.driver_cuda.ceiling_or_newer",
                           {{"driver", driver}, {"ceiling", ceiling}}));
  } else {
    evidence.push_back(
        Msg("doctor.check.driver_cuda.ceiling", {{"driver", driver}, {"ceiling", ceiling}}));
  }
  if (!ceiling.empty() && NewerMinorExists(ctx.compat, ceiling)) {
    int major = std::atoi(ceiling.c_str());
    std::string floor = ctx.compat.MinorCompatFloor(major);
    if (!floor.empty() && CompareVersions(driver, floor) >= 0) {
      evidence.push_back(Msg("doctor.check.driver_cuda.minor_compat",
                             {{"major", std::to_string(major)}, {"floor", floor}}));
    }
  }
  if (!f.forward_compat_version.empty()) {
    std::string kernel =
        !ctx.nvml.driver_version.empty() ? ctx.nvml.driver_version : f.module_version;
    evidence.push_back(
        Msg("doctor.check.driver_cuda.forward_compat", {{"version", f.forward_compat_version},
                                                        {"dir", f.forward_compat_dir},
                                                        {"kernel", kernel}}));
  }
  CheckResult r = MakeResult("driver_cuda", CheckStatus::kInfo, std::move(evidence));
  r.values = {{"driver", driver},
              {"cuda_ceiling", ceiling},
              {"source", from_nvml ? "nvml" : "table"},
              {"forward_compat_libcuda", f.forward_compat_version}};
  return {r};
}

std::vector<CheckResult> CheckToolkits(const CheckContext& ctx) {
  std::vector<Toolkit> toolkits = FindToolkits(ctx.env);
  if (toolkits.empty()) {
    std::string ceiling =
        ctx.facts.driver_version.empty() ? "" : ctx.compat.CeilingOf(ctx.facts.driver_version);
    Message fix = ceiling.empty()
                      ? Msg("doctor.check.toolkit.none_fix")
                      : Msg("doctor.check.toolkit.none_fix_for_driver",
                            {{"package", "cuda-toolkit-" + ceiling.substr(0, ceiling.find('.')) +
                                             "-" + ceiling.substr(ceiling.find('.') + 1)},
                             {"ceiling", ceiling}});
    CheckResult r =
        MakeResult("toolkit", CheckStatus::kInfo, {Msg("doctor.check.toolkit.none")}, fix);
    r.values = {{"toolkits", nlohmann::json::array()}};
    return {r};
  }
  std::vector<CheckResult> out;
  for (const auto& t : toolkits) {
    CompatOutcome c = DescribeCompat(ctx, t.version, CompatSubject::kToolkit);
    CheckResult r = MakeResult(
        "toolkit", c.status,
        {Msg("doctor.check.toolkit.found", {{"path", t.path}, {"version", t.version}}), c.sentence},
        c.fix);
    r.values = c.values;
    r.values["path"] = t.path;
    r.values["cuda"] = t.version;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace gpuprobe::doctor
