#include "doctor/machine_facts.h"

#include <re2/re2.h>

#include <algorithm>

#include "core/strings.h"
#include "doctor/cuda_compat.h"

namespace gpuprobe::doctor {
namespace {

using core::Trim;

// NGC containers and the CUDA Compatibility guide put the cuda-compat libcuda first on
// LD_LIBRARY_PATH; the version in its file name is the user-mode driver that programs use.
void FindForwardCompat(const Environment& env, const std::string& kernel_driver,
                       MachineFacts* facts) {
  auto path = env.Variable("LD_LIBRARY_PATH");
  if (!path || kernel_driver.empty()) return;
  size_t start = 0;
  while (start <= path->size()) {
    size_t end = path->find(':', start);
    std::string dir =
        path->substr(start, end == std::string::npos ? std::string::npos : end - start);
    for (const auto& name : dir.empty() ? std::vector<std::string>() : env.List(dir)) {
      std::string version;
      if (RE2::FullMatch(name, R"(libcuda\.so\.(\d+\.\d+(?:\.\d+)?))", &version) &&
          CompareVersions(version, kernel_driver) > 0) {
        facts->forward_compat_version = version;
        facts->forward_compat_dir = dir;
        return;  // the first directory on the path wins, as for the dynamic loader
      }
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

}  // namespace

std::vector<PciGpu> NvidiaPciDevices(const Environment& env, int* devices_seen) {
  std::vector<PciGpu> out;
  std::vector<std::string> addresses = env.List("/sys/bus/pci/devices");
  if (devices_seen != nullptr) {
    *devices_seen = static_cast<int>(std::count_if(
        addresses.begin(), addresses.end(), [](const std::string& a) { return a[0] != '.'; }));
  }
  for (const auto& address : addresses) {
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

std::string KernelModuleVersion(const Environment& env, ModuleKind* kind) {
  if (auto text = env.Read("/proc/driver/nvidia/version", 4096)) {
    std::string first = text->substr(0, text->find('\n'));
    std::string version;
    if (RE2::PartialMatch(first, R"(Kernel Module(?: for \S+)?\s+([0-9][0-9.]*))", &version)) {
      *kind = first.find("Open Kernel Module") != std::string::npos ? ModuleKind::kOpen
                                                                    : ModuleKind::kProprietary;
      return version;
    }
  }
  if (auto v = env.Read("/sys/module/nvidia/version", 64)) {
    *kind = ModuleKind::kUnknown;
    return Trim(*v);
  }
  *kind = ModuleKind::kNone;
  return {};
}

MachineFacts ReadMachineFacts(const Environment& env, const NvmlView& nvml) {
  MachineFacts facts;
  facts.pci = NvidiaPciDevices(env, &facts.pci_devices_seen);
  facts.gpu_present = !facts.pci.empty() || !nvml.gpus.empty();
  facts.module_version = KernelModuleVersion(env, &facts.module_kind);
  for (const auto& name : env.List("/dev")) {
    if (name.rfind("nvidia", 0) == 0) facts.dev_nodes.push_back(name);
  }
  std::string kernel_driver =
      !nvml.driver_version.empty() ? nvml.driver_version : facts.module_version;
  FindForwardCompat(env, kernel_driver, &facts);
  facts.driver_version =
      !facts.forward_compat_version.empty() ? facts.forward_compat_version : kernel_driver;
  facts.frameworks = ProbeFrameworks(env);
  return facts;
}

}  // namespace gpuprobe::doctor
