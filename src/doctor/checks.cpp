#include "doctor/checks.h"

#include <algorithm>
#include <filesystem>
#include <charconv>

#include <fmt/format.h>
#include <re2/re2.h>
#include <nlohmann/json.hpp>

#include "doctor/cuda_compat.h"

namespace gpuprobe::doctor {
namespace {

/// A decimal integer, or -1 when the text is not one (or too large): never throws.
int ToInt(const std::string& text) {
  int value = -1;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() ? value : -1;
}

std::string Trim(std::string s) {
  s.erase(0, s.find_first_not_of(" \t\r\n"));
  s.erase(s.find_last_not_of(" \t\r\n") + 1);
  return s;
}

// What python3 reports of the frameworks: compiled CUDA version and architectures. The arch
// flags come from the build, so no GPU is needed to read them.
constexpr const char* kFrameworkProbe = R"(import json
out = {}
try:
    import torch
    flags = ''
    try:
        flags = torch._C._cuda_getArchFlags()
    except Exception:
        pass
    out['torch'] = {'version': torch.__version__, 'cuda': torch.version.cuda, 'arch_flags': flags}
except ImportError:
    pass
except Exception as e:
    out['torch'] = {'error': str(e)}
def cuda_of_wheels(pattern):
    # The CUDA major a wheel was built for is in its name: jax-cuda12-plugin, cupy-cuda12x.
    import re, importlib.metadata as md
    for d in md.distributions():
        m = re.match(pattern, (d.metadata['Name'] or '').lower())
        if m:
            return m.group(1) + '.0'
    return ''
try:
    import jax
    out['jax'] = {'version': jax.__version__, 'cuda': cuda_of_wheels(r'jax[-_]cuda(\d+)[-_]plugin')}
except ImportError:
    pass
except Exception as e:
    out['jax'] = {'error': str(e)}
try:
    import cupy
    cuda = ''
    try:
        v = cupy.cuda.runtime.runtimeGetVersion()
        cuda = '%d.%d' % (v // 1000, (v % 1000) // 10)
    except Exception:
        cuda = cuda_of_wheels(r'cupy[-_]cuda(\d+)')
    out['cupy'] = {'version': cupy.__version__, 'cuda': cuda}
except ImportError:
    pass
except Exception as e:
    out['cupy'] = {'error': str(e)}
print(json.dumps(out))
)";

struct PciGpu {
  std::string address, device_id, driver;
};

std::vector<PciGpu> NvidiaPciDevices(const Environment& env) {
  std::vector<PciGpu> out;
  for (const auto& address : env.List("/sys/bus/pci/devices")) {
    std::string base = "/sys/bus/pci/devices/" + address;
    auto vendor = env.Read(base + "/vendor", 64);
    auto klass = env.Read(base + "/class", 64);
    if (!vendor || Trim(*vendor) != "0x10de" || !klass) continue;
    std::string c = Trim(*klass);
    if (c.rfind("0x0300", 0) != 0 && c.rfind("0x0302", 0) != 0) continue;  // VGA or 3D controller
    PciGpu gpu;
    gpu.address = address;
    gpu.device_id = Trim(env.Read(base + "/device", 64).value_or(""));
    std::string target = env.LinkTarget(base + "/driver");
    gpu.driver = target.empty() ? "" : target.substr(target.find_last_of('/') + 1);
    out.push_back(gpu);
  }
  return out;
}

std::string ModuleVersion(const Environment& env, std::string* kind) {
  if (auto text = env.Read("/proc/driver/nvidia/version", 4096)) {
    std::string first = text->substr(0, text->find('\n'));
    std::string version;
    if (RE2::PartialMatch(first, R"(Kernel Module(?: for \S+)?\s+([0-9][0-9.]*))", &version)) {
      *kind = first.find("Open Kernel Module") != std::string::npos ? "open" : "proprietary";
      return version;
    }
  }
  if (auto v = env.Read("/sys/module/nvidia/version", 64)) {
    *kind = "unknown";
    return Trim(*v);
  }
  return {};
}

}  // namespace

std::string CheckStatusName(CheckStatus status) {
  switch (status) {
    case CheckStatus::kOk: return "ok";
    case CheckStatus::kInfo: return "info";
    case CheckStatus::kWarn: return "warn";
    case CheckStatus::kFail: return "fail";
    case CheckStatus::kSkip: return "skip";
  }
  return "?";
}

CheckStatus WorstStatus(const std::vector<CheckResult>& checks) {
  CheckStatus worst = CheckStatus::kOk;
  for (const auto& c : checks) {
    if (c.status == CheckStatus::kFail) return CheckStatus::kFail;
    if (c.status == CheckStatus::kWarn) worst = CheckStatus::kWarn;
  }
  return worst;
}

DoctorReport RunChecks(const Environment& env, const NvmlView& nvml) {
  DoctorReport report;
  auto add = [&](std::string id, std::string title, CheckStatus status, std::string evidence, std::string fix = {}) {
    report.checks.push_back({std::move(id), std::move(title), status, std::move(evidence), std::move(fix)});
  };

  // 1. Hardware on the PCI bus (visible in containers too).
  std::vector<PciGpu> pci = NvidiaPciDevices(env);
  report.gpu_present = !pci.empty() || !nvml.gpus.empty();
  if (pci.empty()) {
    add("gpu_hardware", "NVIDIA GPU on the PCI bus", nvml.gpus.empty() ? CheckStatus::kInfo : CheckStatus::kOk,
        nvml.gpus.empty() ? "no NVIDIA GPU on the PCI bus: this machine has no GPU to use" : "sysfs not visible, but NVML lists GPUs");
  } else {
    std::string list;
    for (const auto& g : pci) list += fmt::format("{}{} ({}, driver: {})", list.empty() ? "" : "; ", g.address, g.device_id, g.driver.empty() ? "none" : g.driver);
    add("gpu_hardware", "NVIDIA GPU on the PCI bus", CheckStatus::kOk, list);
  }

  // 2. The kernel module.
  std::string kind;
  std::string module = ModuleVersion(env, &kind);
  report.driver_version = module;
  if (!module.empty()) {
    add("kernel_module", "NVIDIA kernel module loaded", CheckStatus::kOk, fmt::format("{} ({} module)", module, kind));
  } else if (report.gpu_present) {
    add("kernel_module", "NVIDIA kernel module loaded", CheckStatus::kFail,
        "an NVIDIA GPU is present but /proc/driver/nvidia/version does not exist: the driver is not loaded",
        "install the driver for this kernel (or rebuild it: dkms autoinstall), then 'modprobe nvidia'; see 'gpuprobe explain \"couldn't communicate with the NVIDIA driver\"'");
  } else {
    add("kernel_module", "NVIDIA kernel module loaded", CheckStatus::kSkip, "no NVIDIA GPU here, so no driver is expected");
  }

  // 3. nouveau.
  bool nouveau_loaded = env.Exists("/sys/module/nouveau");
  bool nouveau_owns = std::any_of(pci.begin(), pci.end(), [](const PciGpu& g) { return g.driver == "nouveau"; });
  bool blacklisted = false;
  for (const auto& file : env.List("/etc/modprobe.d")) {
    auto text = env.Read("/etc/modprobe.d/" + file, 64 * 1024);
    if (text && RE2::PartialMatch(*text, R"((?m)^\s*blacklist\s+nouveau)")) blacklisted = true;
  }
  if (nouveau_owns || (nouveau_loaded && report.gpu_present)) {
    add("nouveau", "nouveau not in the way", CheckStatus::kFail,
        nouveau_owns ? "nouveau owns the GPU" : "the nouveau module is loaded",
        "blacklist nouveau (echo 'blacklist nouveau' > /etc/modprobe.d/blacklist-nouveau.conf), update-initramfs -u, reboot");
  } else if (report.gpu_present && module.empty() && !blacklisted) {
    add("nouveau", "nouveau not in the way", CheckStatus::kWarn, "nouveau is not blacklisted and the NVIDIA driver is not loaded",
        "blacklist nouveau before installing the NVIDIA driver");
  } else {
    add("nouveau", "nouveau not in the way", report.gpu_present ? CheckStatus::kOk : CheckStatus::kSkip,
        nouveau_loaded ? "nouveau loaded, but no NVIDIA GPU uses it" : "nouveau is not loaded");
  }

  // 4. Device nodes.
  std::vector<std::string> nodes;
  for (const auto& name : env.List("/dev")) {
    if (name.rfind("nvidia", 0) == 0) nodes.push_back(name);
  }
  bool has_ctl = std::find(nodes.begin(), nodes.end(), "nvidiactl") != nodes.end();
  bool has_uvm = std::find(nodes.begin(), nodes.end(), "nvidia-uvm") != nodes.end();
  bool has_gpu_node = std::any_of(nodes.begin(), nodes.end(), [](const std::string& n) {
    return n.size() > 6 && std::isdigit(static_cast<unsigned char>(n[6]));
  });
  std::string node_list;
  for (const auto& n : nodes) node_list += (node_list.empty() ? "" : " ") + n;
  if (nodes.empty()) {
    add("device_nodes", "/dev/nvidia* device nodes", report.gpu_present || !module.empty() ? CheckStatus::kFail : CheckStatus::kSkip,
        "no /dev/nvidia* nodes", report.gpu_present ? "load the driver (nvidia-modprobe creates the nodes); in a container, pass the GPU through" : "");
  } else {
    std::vector<std::string> denied;
    for (const auto& n : nodes) {
      if ((n == "nvidiactl" || n == "nvidia-uvm" || (n.size() > 6 && std::isdigit(static_cast<unsigned char>(n[6])))) && !env.Accessible("/dev/" + n)) {
        denied.push_back(n);
      }
    }
    if (!has_ctl || !has_gpu_node) {
      add("device_nodes", "/dev/nvidia* device nodes", CheckStatus::kFail, "present: " + node_list + "; nvidiactl or /dev/nvidiaN missing",
          "reload the driver or rerun nvidia-modprobe");
    } else if (!has_uvm) {
      add("device_nodes", "/dev/nvidia* device nodes", CheckStatus::kWarn, "present: " + node_list + "; nvidia-uvm missing (CUDA needs it, NVML does not)",
          "modprobe nvidia-uvm (or nvidia-modprobe -u -c=0)");
    } else if (!denied.empty()) {
      std::string d;
      for (const auto& n : denied) d += (d.empty() ? "" : " ") + n;
      add("device_nodes", "/dev/nvidia* device nodes", CheckStatus::kFail, "no read/write access to: " + d,
          "add the user to the group owning the nodes (often 'video'), or fix the container's device cgroup");
    } else {
      add("device_nodes", "/dev/nvidia* device nodes", CheckStatus::kOk, node_list);
    }
  }

  // 5. Container without GPU passthrough.
  bool container = env.Exists("/.dockerenv") || env.Exists("/run/.containerenv") || env.Variable("KUBERNETES_SERVICE_HOST").has_value();
  auto visible = env.Variable("NVIDIA_VISIBLE_DEVICES");
  if (container) {
    if (visible && *visible != "void" && *visible != "none" && nodes.empty()) {
      add("container", "container GPU passthrough", CheckStatus::kFail,
          fmt::format("inside a container with NVIDIA_VISIBLE_DEVICES={} but no /dev/nvidia* nodes: it was started without GPUs", *visible),
          "docker run --gpus all (with the NVIDIA Container Toolkit), or in Kubernetes runtimeClassName: nvidia and an nvidia.com/gpu limit");
    } else {
      add("container", "container GPU passthrough", CheckStatus::kOk,
          nodes.empty() ? "inside a container; no GPU requested" : "inside a container with GPU device nodes");
    }
  } else {
    add("container", "container GPU passthrough", CheckStatus::kSkip, "not inside a container");
  }

  // 6. NVML and agreement with the kernel module.
  if (nvml.loaded) {
    if (!module.empty() && !nvml.driver_version.empty() && nvml.driver_version != module) {
      add("nvml", "NVML loads and matches the kernel module", CheckStatus::kFail,
          fmt::format("NVML library {} but kernel module {}", nvml.driver_version, module),
          "reboot (or reload the nvidia modules) so the module matches the upgraded libraries");
    } else {
      add("nvml", "NVML loads and matches the kernel module", CheckStatus::kOk,
          fmt::format("driver {}, {} GPU(s), CUDA up to {}", nvml.driver_version, nvml.gpus.size(), nvml.cuda_ceiling));
    }
  } else {
    add("nvml", "NVML loads and matches the kernel module", report.gpu_present ? CheckStatus::kFail : CheckStatus::kSkip, nvml.error,
        report.gpu_present ? "install the driver's user-space libraries (libnvidia-ml.so.1)" : "");
  }

  // 7. The driver's CUDA ceiling.
  auto compat = CudaCompat::Embedded();
  std::string driver = !nvml.driver_version.empty() ? nvml.driver_version : module;
  std::string ceiling = nvml.cuda_ceiling;
  if (ceiling.empty() && !driver.empty() && compat.ok()) ceiling = (*compat)->CeilingOf(driver);
  if (!driver.empty()) {
    add("driver_cuda", "the driver's CUDA ceiling", CheckStatus::kInfo,
        fmt::format("driver {} runs programs built with CUDA up to {}", driver, ceiling.empty() ? "?" : ceiling));
  }

  // 8. Toolkits: nvcc on PATH and under /usr/local/cuda*.
  std::vector<std::pair<std::string, std::string>> toolkits;  // where, version
  std::vector<std::string> seen;  // canonical paths: /usr/local/cuda is usually a symlink
  auto probe_nvcc = [&](const std::string& nvcc) {
    std::string found = env.FindProgram(nvcc);
    if (found.empty()) return;
    std::error_code error;
    std::string canonical = std::filesystem::canonical(found, error).string();
    if (error) canonical = found;
    if (std::find(seen.begin(), seen.end(), canonical) != seen.end()) return;
    seen.push_back(canonical);
    auto run = env.Run({found, "--version"}, 10);
    if (!run.ok() || run->exit_code != 0) return;
    std::string release;
    if (RE2::PartialMatch(run->stdout_text, R"(release (\d+\.\d+))", &release)) toolkits.emplace_back(found, release);
  };
  probe_nvcc("nvcc");
  for (const auto& dir : env.List("/usr/local")) {
    if (dir.rfind("cuda", 0) != 0) continue;
    std::string nvcc = env.root() == "/" ? "/usr/local/" + dir + "/bin/nvcc" : env.root() + "/usr/local/" + dir + "/bin/nvcc";
    if (env.Exists("/usr/local/" + dir + "/bin/nvcc")) probe_nvcc(nvcc);
  }
  if (toolkits.empty()) {
    add("toolkit", "CUDA toolkit (nvcc)", CheckStatus::kInfo, "no CUDA toolkit installed: fine for running prebuilt frameworks, needed to build CUDA code");
  }
  for (const auto& [where, version] : toolkits) {
    std::string needed = compat.ok() ? (*compat)->MinDriver(version) : "";
    if (driver.empty() || !compat.ok()) {
      add("toolkit", "CUDA toolkit (nvcc)", CheckStatus::kInfo, fmt::format("{}: CUDA {} (needs driver {} or newer)", where, version, needed));
      continue;
    }
    CompatVerdict v = (*compat)->Check(version, driver);
    add("toolkit", "CUDA toolkit (nvcc)", v.level == "ok" ? CheckStatus::kOk : v.level == "minor_compat" ? CheckStatus::kWarn : CheckStatus::kFail,
        fmt::format("{}: CUDA {}; {}", where, version, v.detail), v.level == "ok" ? "" : "upgrade the driver, or use an older toolkit");
  }

  // 9. Frameworks: their CUDA build and compiled architectures.
  auto python = env.Run({"python3", "-c", kFrameworkProbe}, 30);
  if (!python.ok()) {
    add("frameworks", "Python frameworks (PyTorch, JAX, CuPy)", CheckStatus::kSkip, "python3 is not installed");
  } else if (python->timed_out) {
    add("frameworks", "Python frameworks (PyTorch, JAX, CuPy)", CheckStatus::kWarn, "python3 did not answer within 30 s",
        "import torch by hand to see what hangs");
  } else {
    auto doc = nlohmann::json::parse(python->stdout_text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
      add("frameworks", "Python frameworks (PyTorch, JAX, CuPy)", CheckStatus::kWarn, "could not read what python3 reported");
    } else if (doc.empty()) {
      add("frameworks", "Python frameworks (PyTorch, JAX, CuPy)", CheckStatus::kInfo, "no PyTorch, JAX or CuPy installed for python3");
    }
    if (doc.is_object() && doc.contains("torch") && doc["torch"].is_object()) {
      const auto& t = doc["torch"];
      if (t.contains("error")) {
        add("pytorch", "PyTorch", CheckStatus::kFail, "import torch failed: " + t["error"].get<std::string>(), "reinstall PyTorch");
      } else {
        std::string version = t.value("version", "?");
        std::string cuda = t.contains("cuda") && t["cuda"].is_string() ? t["cuda"].get<std::string>() : "";
        if (cuda.empty()) {
          add("pytorch", "PyTorch", report.gpu_present ? CheckStatus::kWarn : CheckStatus::kInfo,
              fmt::format("torch {} is a CPU-only build", version), report.gpu_present ? "install a CUDA build of PyTorch" : "");
        } else {
          std::vector<std::string> issues;
          CheckStatus status = CheckStatus::kOk;
          if (!driver.empty() && compat.ok()) {
            CompatVerdict v = (*compat)->Check(cuda, driver);
            if (v.level == "too_old") status = CheckStatus::kFail;
            if (v.level == "minor_compat") status = std::max(status, CheckStatus::kWarn);
            if (v.level != "ok") issues.push_back(v.detail);
          }
          std::string flags = t.value("arch_flags", "");
          for (const auto& g : nvml.gpus) {
            if (g.compute_capability.empty() || flags.empty()) continue;
            std::string cc = g.compute_capability;
            cc.erase(std::remove(cc.begin(), cc.end(), '.'), cc.end());
            bool sass = flags.find("sm_" + cc) != std::string::npos;
            bool ptx = flags.find("compute_") != std::string::npos;
            if (!sass) {
              // PTX compiled for compute_X can be JIT-compiled for any GPU of capability >= X.
              int gpu_cc = ToInt(cc);
              bool usable_ptx = false;
              re2::StringPiece rest(flags);
              std::string number;
              while (RE2::FindAndConsume(&rest, R"(compute_(\d+))", &number)) {
                if (ToInt(number) <= gpu_cc) usable_ptx = true;
              }
              if (!ptx || !usable_ptx) {
                status = CheckStatus::kFail;
                issues.push_back(fmt::format("built for {} but the GPU is sm_{}: 'no kernel image is available for execution on the device'", flags, cc));
              } else {
                status = std::max(status, CheckStatus::kWarn);
                issues.push_back(fmt::format("no sm_{} machine code: kernels are JIT-compiled from PTX at start-up", cc));
              }
            }
          }
          std::string evidence = fmt::format("torch {}, built with CUDA {}{}", version, cuda, flags.empty() ? "" : ", archs " + flags);
          for (const auto& i : issues) evidence += "; " + i;
          add("pytorch", "PyTorch", status, evidence, status == CheckStatus::kOk ? "" : "install a PyTorch build matching this driver and GPU (pytorch.org selector)");
        }
      }
    }
    for (const char* name : {"jax", "cupy"}) {
      if (doc.is_object() && doc.contains(name) && doc[name].is_object()) {
        const auto& f = doc[name];
        if (f.contains("error")) {
          add(name, name, CheckStatus::kWarn, "import failed: " + (f["error"].is_string() ? f["error"].get<std::string>() : "?"));
          continue;
        }
        std::string version = f.contains("version") && f["version"].is_string() ? f["version"].get<std::string>() : "?";
        std::string cuda = f.contains("cuda") && f["cuda"].is_string() ? f["cuda"].get<std::string>() : "";
        if (cuda.empty()) {
          add(name, name, CheckStatus::kInfo, fmt::format("{} {}, no CUDA build found (CPU only)", name, version));
          continue;
        }
        // The same rule as for PyTorch: driver >= the CUDA the framework was built with.
        CheckStatus status = CheckStatus::kInfo;
        std::string evidence = fmt::format("{} {}, built with CUDA {}", name, version, cuda);
        if (!driver.empty() && compat.ok()) {
          CompatVerdict v = (*compat)->Check(cuda, driver);
          status = v.level == "too_old" ? CheckStatus::kFail : v.level == "minor_compat" ? CheckStatus::kWarn : CheckStatus::kOk;
          if (v.level != "ok") evidence += "; " + v.detail;
        }
        add(name, name, status, evidence, status >= CheckStatus::kWarn ? fmt::format("install a {} build for the CUDA this driver supports", name) : "");
      }
    }
  }

  // 10. Settings that bite on servers.
  for (const auto& g : nvml.gpus) {
    std::string label = fmt::format("GPU {} ({})", g.index.value_or(0), g.name);
    if (g.persistence_mode && !*g.persistence_mode) {
      add("persistence", "persistence mode", CheckStatus::kWarn, label + ": persistence mode is off",
          "systemctl enable --now nvidia-persistenced");
    }
    if (g.ecc_uncorrected_volatile && *g.ecc_uncorrected_volatile > 0) {
      add("ecc", "ECC errors", CheckStatus::kFail, fmt::format("{}: {:.0f} uncorrectable ECC errors", label, *g.ecc_uncorrected_volatile),
          "drain and reset the GPU; see 'gpuprobe inspect'");
    }
    if (g.mig_enabled && *g.mig_enabled) {
      add("mig", "MIG", CheckStatus::kInfo, label + ": MIG is enabled; programs see instances, not the whole GPU");
    }
  }
  return report;
}

}  // namespace gpuprobe::doctor
