// What several checks need to know about the machine, read once before they run: the NVIDIA
// devices on the PCI bus, the kernel module, the /dev/nvidia* nodes, the driver version in
// effect (with a forward-compatibility libcuda on LD_LIBRARY_PATH), and what python3 reports
// of the frameworks.
//
// Thread safety: plain values.
#pragma once

#include <string>
#include <vector>

#include "doctor/check.h"
#include "doctor/environment.h"
#include "doctor/framework_probe.h"

namespace gpuprobe::doctor {

struct PciGpu {
  std::string address;    ///< "0000:83:00.0"
  std::string device_id;  ///< "0x2335"
  std::string driver;     ///< the bound driver: "nvidia", "nouveau", "vfio-pci"; empty when none
};

enum class ModuleKind { kNone, kOpen, kProprietary, kUnknown };

struct MachineFacts {
  int pci_devices_seen = 0;    ///< every PCI device listed (0: the PCI tree is hidden here)
  std::vector<PciGpu> pci;     ///< NVIDIA display and 3D controllers
  bool gpu_present = false;    ///< an NVIDIA GPU is on the PCI bus or listed by NVML
  std::string module_version;  ///< the loaded kernel module's version; empty when not loaded
  ModuleKind module_kind = ModuleKind::kNone;
  std::vector<std::string> dev_nodes;  ///< names under /dev starting with "nvidia", sorted
  /// The driver whose CUDA ceiling applies: a forward-compatibility libcuda when one is on
  /// LD_LIBRARY_PATH, else NVML's driver, else the kernel module's; empty when none.
  std::string driver_version;
  std::string forward_compat_version;  ///< libcuda.so.<version> found on LD_LIBRARY_PATH, newer
                                       ///< than the kernel driver
  std::string forward_compat_dir;
  FrameworkReport frameworks;
};

/// Reads the facts through `env`; runs python3 once (timeout kFrameworkProbeSeconds).
MachineFacts ReadMachineFacts(const Environment& env, const NvmlView& nvml);

/// The NVIDIA GPUs on the PCI bus (vendor 0x10de, class VGA or 3D controller).
std::vector<PciGpu> NvidiaPciDevices(const Environment& env, int* devices_seen);

/// The loaded kernel module's version from /proc/driver/nvidia/version (or /sys/module), and
/// whether it is the open or the proprietary module.
std::string KernelModuleVersion(const Environment& env, ModuleKind* kind);

}  // namespace gpuprobe::doctor
