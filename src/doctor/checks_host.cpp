// The host's driver stack: the GPU on the PCI bus, the kernel module, nouveau, /dev nodes.
#include <re2/re2.h>

#include <algorithm>
#include <cctype>

#include "core/strings.h"
#include "doctor/check_list.h"
#include "doctor/machine_facts.h"

namespace gpuprobe::doctor {
namespace {


// /dev/nvidia0, /dev/nvidia1, ...: one per GPU.
bool IsGpuNode(const std::string& name) {
  return name.size() > 6 && std::isdigit(static_cast<unsigned char>(name[6]));
}

}  // namespace

std::vector<CheckResult> CheckGpuHardware(const CheckContext& ctx) {
  const MachineFacts& f = ctx.facts;
  nlohmann::json gpus = nlohmann::json::array();
  std::vector<Message> evidence;
  for (const auto& g : f.pci) {
    gpus.push_back({{"address", g.address}, {"device_id", g.device_id}, {"driver", g.driver}});
    evidence.push_back(
        g.driver.empty()
            ? Msg("doctor.check.gpu_hardware.unbound",
                  {{"address", g.address}, {"device_id", g.device_id}})
            : Msg("doctor.check.gpu_hardware.bound",
                  {{"address", g.address}, {"device_id", g.device_id}, {"driver", g.driver}}));
  }
  CheckResult r;
  if (!f.pci.empty()) {
    r = MakeResult("gpu_hardware", CheckStatus::kOk, std::move(evidence));
  } else if (!ctx.nvml.gpus.empty()) {
    r = MakeResult("gpu_hardware", CheckStatus::kOk,
                   {Msg("doctor.check.gpu_hardware.nvml_only",
                        {{"count", std::to_string(ctx.nvml.gpus.size())}})});
  } else if (f.pci_devices_seen == 0) {
    r = MakeResult("gpu_hardware", CheckStatus::kInfo,
                   {Msg("doctor.check.gpu_hardware.pci_hidden")},
                   Msg("doctor.check.gpu_hardware.none_fix"));
  } else {
    r = MakeResult(
        "gpu_hardware", CheckStatus::kInfo,
        {Msg("doctor.check.gpu_hardware.none", {{"count", std::to_string(f.pci_devices_seen)}})},
        Msg("doctor.check.gpu_hardware.none_fix"));
  }
  r.values = {{"gpus", gpus}, {"pci_devices", f.pci_devices_seen}};
  return {r};
}

std::vector<CheckResult> CheckKernelModule(const CheckContext& ctx) {
  const MachineFacts& f = ctx.facts;
  CheckResult r;
  if (!f.module_version.empty()) {
    const char* key = f.module_kind == ModuleKind::kOpen ? "doctor.check.kernel_module.open"
                      : f.module_kind == ModuleKind::kProprietary
                          ? "doctor.check.kernel_module.proprietary"
                          : "doctor.check.kernel_module.loaded";
    r = MakeResult("kernel_module", CheckStatus::kOk, {Msg(key, {{"version", f.module_version}})});
  } else if (!f.gpu_present) {
    r = MakeResult("kernel_module", CheckStatus::kSkip, {Msg("doctor.check.kernel_module.no_gpu")});
  } else {
    auto vfio = std::find_if(f.pci.begin(), f.pci.end(),
                             [](const PciGpu& g) { return g.driver == "vfio-pci"; });
    if (vfio != f.pci.end()) {
      // Set aside for a virtual machine: installing or loading the driver changes nothing.
      r = MakeResult("kernel_module", CheckStatus::kFail,
                     {Msg("doctor.check.kernel_module.vfio", {{"address", vfio->address}})},
                     Msg("doctor.check.kernel_module.vfio_fix"));
    } else {
      r = MakeResult("kernel_module", CheckStatus::kFail,
                     {Msg("doctor.check.kernel_module.missing")},
                     Msg("doctor.check.kernel_module.missing_fix"));
    }
  }
  const char* kind = f.module_kind == ModuleKind::kOpen          ? "open"
                     : f.module_kind == ModuleKind::kProprietary ? "proprietary"
                     : f.module_kind == ModuleKind::kUnknown     ? "unknown"
                                                                 : "none";
  r.values = {{"version", f.module_version}, {"kind", kind}};
  return {r};
}

std::vector<CheckResult> CheckNouveau(const CheckContext& ctx) {
  const MachineFacts& f = ctx.facts;
  bool loaded = ctx.env.Exists("/sys/module/nouveau");
  auto owned = std::find_if(f.pci.begin(), f.pci.end(),
                            [](const PciGpu& g) { return g.driver == "nouveau"; });
  bool blacklisted = false;
  for (const auto& file : ctx.env.List("/etc/modprobe.d")) {
    auto text = ctx.env.Read("/etc/modprobe.d/" + file, 64 * 1024);
    if (text && RE2::PartialMatch(*text, R"((?m)^\s*blacklist\s+nouveau\b)")) blacklisted = true;
  }
  const Message fix = Msg("doctor.check.nouveau.fix");
  CheckResult r;
  if (!f.gpu_present) {
    r = MakeResult("nouveau", CheckStatus::kSkip, {Msg("doctor.check.nouveau.no_gpu")});
  } else if (owned != f.pci.end()) {
    r = MakeResult("nouveau", CheckStatus::kFail,
                   {Msg("doctor.check.nouveau.owns", {{"address", owned->address}})}, fix);
  } else if (loaded && f.module_version.empty()) {
    r = MakeResult("nouveau", CheckStatus::kFail, {Msg("doctor.check.nouveau.blocks")}, fix);
  } else if (loaded) {
    // Both modules loaded and NVIDIA drives the GPUs: it works today, but nouveau may win the
    // race for the GPU at a later boot.
    r = MakeResult("nouveau", CheckStatus::kWarn, {Msg("doctor.check.nouveau.loaded")}, fix);
  } else if (f.module_version.empty() && !blacklisted) {
    r = MakeResult("nouveau", CheckStatus::kWarn, {Msg("doctor.check.nouveau.not_blacklisted")},
                   fix);
  } else {
    r = MakeResult("nouveau", CheckStatus::kOk, {Msg("doctor.check.nouveau.not_loaded")});
  }
  r.values = {{"loaded", loaded}, {"blacklisted", blacklisted}, {"owns_gpu", owned != f.pci.end()}};
  return {r};
}

std::vector<CheckResult> CheckDeviceNodes(const CheckContext& ctx) {
  const std::vector<std::string>& nodes = ctx.facts.dev_nodes;
  bool expected = ctx.facts.gpu_present || !ctx.facts.module_version.empty();
  auto has = [&](const std::string& n) {
    return std::find(nodes.begin(), nodes.end(), n) != nodes.end();
  };
  bool has_gpu_node = std::any_of(nodes.begin(), nodes.end(), IsGpuNode);
  std::vector<std::string> missing, denied;
  if (!has("nvidiactl")) missing.push_back("nvidiactl");
  if (!has_gpu_node) missing.push_back("nvidia0");
  for (const auto& n : nodes) {
    if ((n == "nvidiactl" || n == "nvidia-uvm" || IsGpuNode(n)) && !ctx.env.Accessible("/dev/" + n))
      denied.push_back(n);
  }
  CheckResult r;
  if (nodes.empty()) {
    r = expected ? MakeResult("device_nodes", CheckStatus::kFail,
                              {Msg("doctor.check.device_nodes.none")},
                              Msg("doctor.check.device_nodes.none_fix"))
                 : MakeResult("device_nodes", CheckStatus::kSkip,
                              {Msg("doctor.check.device_nodes.no_gpu")});
  } else if (!missing.empty()) {
    r = MakeResult("device_nodes", CheckStatus::kFail,
                   {Msg("doctor.check.device_nodes.incomplete",
                        {{"nodes", core::Join(nodes, " ")}, {"missing", core::Join(missing, " ")}})},
                   Msg("doctor.check.device_nodes.incomplete_fix"));
  } else if (!denied.empty()) {
    r = MakeResult("device_nodes", CheckStatus::kFail,
                   {Msg("doctor.check.device_nodes.denied", {{"nodes", core::Join(denied, " ")}})},
                   Msg("doctor.check.device_nodes.denied_fix"));
  } else if (!has("nvidia-uvm")) {
    // libcuda creates it through nvidia-modprobe on first use where it may (not in containers).
    r = MakeResult("device_nodes", CheckStatus::kWarn,
                   {Msg("doctor.check.device_nodes.no_uvm", {{"nodes", core::Join(nodes, " ")}})},
                   Msg("doctor.check.device_nodes.no_uvm_fix"));
  } else {
    r = MakeResult("device_nodes", CheckStatus::kOk,
                   {Msg("doctor.check.device_nodes.ok", {{"nodes", core::Join(nodes, " ")}})});
  }
  r.values = {{"nodes", nodes}, {"missing", missing}, {"denied", denied}};
  return {r};
}

}  // namespace gpuprobe::doctor
