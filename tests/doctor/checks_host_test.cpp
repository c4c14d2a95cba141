// The host's driver stack (checks_host.cpp): gpu_hardware, kernel_module, nouveau and
// device_nodes on recorded environments.
#include <gtest/gtest.h>

#include "doctor/fake_machine.h"

namespace gpuprobe::doctor {
namespace {

using testing::Arg;
using testing::DeniedEnvironment;
using testing::FakeMachine;
using testing::NoNvml;
using testing::Nvml;
using testing::One;
using testing::Says;

TEST(GpuHardware, ListsEachNvidiaGpuWithItsDriverAndIgnoresOtherDevices) {
  FakeMachine m("h200-node");
  CheckResult r = One("gpu_hardware", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kOk);
  ASSERT_EQ(r.evidence.size(), 1u);
  EXPECT_EQ(r.evidence[0].key, "doctor.check.gpu_hardware.bound");
  EXPECT_EQ(Arg(r, "address"), "0000:83:00.0");
  EXPECT_EQ(Arg(r, "driver"), "nvidia");
  EXPECT_EQ(r.values["pci_devices"], 2);
}

TEST(GpuHardware, AGpuWithoutADriverSaysSo) {
  FakeMachine m;
  m.Gpu("0000:01:00.0", "");
  EXPECT_TRUE(Says(One("gpu_hardware", m.Env(), NoNvml()), "doctor.check.gpu_hardware.unbound"));
}

TEST(GpuHardware, NoGpuIsInfoWithHowToGetOne) {
  FakeMachine m;
  m.OtherPciDevice("0000:00:00.0");
  CheckResult r = One("gpu_hardware", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kInfo);
  EXPECT_TRUE(Says(r, "doctor.check.gpu_hardware.none"));
  EXPECT_EQ(r.fix.key, "doctor.check.gpu_hardware.none_fix");
}

TEST(GpuHardware, AHiddenPciBusIsToldApartFromAnEmptyOne) {
  FakeMachine m;
  EXPECT_TRUE(Says(One("gpu_hardware", m.Env(), NoNvml()), "doctor.check.gpu_hardware.pci_hidden"));
  // NVML's word is enough when sysfs is hidden.
  CheckResult r = One("gpu_hardware", m.Env(), Nvml("590.48.01", "9.0"));
  EXPECT_EQ(r.status, CheckStatus::kOk);
  EXPECT_TRUE(Says(r, "doctor.check.gpu_hardware.nvml_only"));
}

TEST(KernelModule, ReadsVersionAndKind) {
  FakeMachine m("h200-node");
  CheckResult r = One("kernel_module", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kOk);
  EXPECT_TRUE(Says(r, "doctor.check.kernel_module.open"));
  EXPECT_EQ(Arg(r, "version"), "590.48.01");
  m.Module("535.104.05", /*open=*/false);
  EXPECT_TRUE(
      Says(One("kernel_module", m.Env(), NoNvml()), "doctor.check.kernel_module.proprietary"));
  m.Remove("proc/driver/nvidia");  // only /sys/module says it
  EXPECT_TRUE(Says(One("kernel_module", m.Env(), NoNvml()), "doctor.check.kernel_module.loaded"));
}

TEST(KernelModule, AGpuWithoutTheModuleFailsWithTheFix) {
  FakeMachine m;
  m.Gpu("0000:83:00.0", "");
  CheckResult r = One("kernel_module", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kFail);
  EXPECT_EQ(r.fix.key, "doctor.check.kernel_module.missing_fix");
}

TEST(KernelModule, AGpuSetAsideForAVirtualMachineIsNamed) {
  FakeMachine m;
  m.Gpu("0000:83:00.0", "vfio-pci");
  CheckResult r = One("kernel_module", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kFail);
  EXPECT_TRUE(Says(r, "doctor.check.kernel_module.vfio"));
  EXPECT_EQ(r.fix.key, "doctor.check.kernel_module.vfio_fix");
}

TEST(KernelModule, NoGpuSkipsSayingWhy) {
  FakeMachine m("no-gpu");
  CheckResult r = One("kernel_module", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kSkip);
  EXPECT_TRUE(Says(r, "doctor.check.kernel_module.no_gpu"));
}

TEST(Nouveau, OwningTheGpuFails) {
  FakeMachine m;
  m.Gpu("0000:01:00.0", "nouveau");
  m.Write("sys/module/nouveau/refcnt", "1\n");
  CheckResult r = One("nouveau", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kFail);
  EXPECT_TRUE(Says(r, "doctor.check.nouveau.owns"));
  EXPECT_EQ(r.fix.key, "doctor.check.nouveau.fix");
}

TEST(Nouveau, LoadedWithoutTheNvidiaModuleFails) {
  FakeMachine m;
  m.Gpu("0000:01:00.0", "");
  m.Write("sys/module/nouveau/refcnt", "0\n");
  EXPECT_TRUE(Says(One("nouveau", m.Env(), NoNvml()), "doctor.check.nouveau.blocks"));
}

TEST(Nouveau, LoadedBesideAWorkingNvidiaDriverOnlyWarns) {
  FakeMachine m("h200-node");
  m.Write("sys/module/nouveau/refcnt", "0\n");
  CheckResult r = One("nouveau", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kWarn);
  EXPECT_TRUE(Says(r, "doctor.check.nouveau.loaded"));
}

TEST(Nouveau, NotBlacklistedBeforeTheDriverIsInstalledWarns) {
  FakeMachine m;
  m.Gpu("0000:01:00.0", "");
  CheckResult r = One("nouveau", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kWarn);
  EXPECT_TRUE(Says(r, "doctor.check.nouveau.not_blacklisted"));
  m.Write("etc/modprobe.d/blacklist-nouveau.conf", "blacklist nouveau\n");
  EXPECT_EQ(One("nouveau", m.Env(), NoNvml()).status, CheckStatus::kOk);
}

TEST(Nouveau, AHealthyNodeAndANodeWithoutGpu) {
  FakeMachine healthy("h200-node");
  EXPECT_EQ(One("nouveau", healthy.Env(), NoNvml()).status, CheckStatus::kOk);
  FakeMachine none("no-gpu");
  CheckResult r = One("nouveau", none.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kSkip);
  EXPECT_TRUE(Says(r, "doctor.check.nouveau.no_gpu"));
}

TEST(DeviceNodes, AllPresentAndOpen) {
  FakeMachine m("h200-node");
  CheckResult r = One("device_nodes", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kOk);
  EXPECT_NE(Arg(r, "nodes").find("nvidia-uvm"), std::string::npos);
}

TEST(DeviceNodes, MissingUvmWarnsAndMissingControlNodeFails) {
  FakeMachine m("h200-node");
  m.Remove("dev/nvidia-uvm");
  CheckResult r = One("device_nodes", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kWarn);
  EXPECT_EQ(r.fix.key, "doctor.check.device_nodes.no_uvm_fix");
  m.Remove("dev/nvidiactl");
  r = One("device_nodes", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kFail);
  EXPECT_EQ(Arg(r, "missing"), "nvidiactl");
}

TEST(DeviceNodes, NodesThisUserCannotOpenFail) {
  FakeMachine m("h200-node");
  Environment base = m.Env();
  DeniedEnvironment env(base, {"/dev/nvidia0"});
  CheckResult r = One("device_nodes", env, NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kFail);
  EXPECT_EQ(Arg(r, "nodes"), "nvidia0");
  EXPECT_EQ(r.fix.key, "doctor.check.device_nodes.denied_fix");
}

TEST(DeviceNodes, NoNodesFailWithAGpuOrADriverAndSkipWithout) {
  FakeMachine m;
  m.Gpu("0000:83:00.0", "nvidia");
  CheckResult r = One("device_nodes", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kFail);
  EXPECT_EQ(r.fix.key, "doctor.check.device_nodes.none_fix");
  FakeMachine driver_only;  // a hidden PCI bus, but the module is loaded: a fix is still given
  driver_only.Module("590.48.01");
  EXPECT_EQ(One("device_nodes", driver_only.Env(), NoNvml()).fix.key,
            "doctor.check.device_nodes.none_fix");
  FakeMachine none("no-gpu");
  r = One("device_nodes", none.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kSkip);
  EXPECT_TRUE(Says(r, "doctor.check.device_nodes.no_gpu"));
}

}  // namespace
}  // namespace gpuprobe::doctor
