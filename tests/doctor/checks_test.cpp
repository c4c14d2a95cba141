// doctor's checks on recorded environments: fake /proc, /sys, /dev and /etc trees under a
// temporary root, fake nvcc and python3 scripts; nothing depends on this machine's state.
#include "doctor/checks.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace gpuprobe::doctor {
namespace {

namespace fs = std::filesystem;

class FakeMachine {
 public:
  FakeMachine() {
    root_ = fs::temp_directory_path() / ("gpuprobe_doctor_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "bin");
    fs::create_directories(root_ / "sys/bus/pci/devices");
    fs::create_directories(root_ / "dev");
    variables_["PATH"] = (root_ / "bin").string();
  }
  ~FakeMachine() { fs::remove_all(root_); }

  void Write(const std::string& path, const std::string& text) {
    fs::path p = root_ / path;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  void Program(const std::string& name, const std::string& output) {
    Write("bin/" + name, "#!/bin/sh\ncat <<'GPUPROBE_EOF'\n" + output + "\nGPUPROBE_EOF\n");
    fs::permissions(root_ / "bin" / name, fs::perms::owner_all);
  }
  void Gpu(const std::string& address, const std::string& driver) {
    std::string base = "sys/bus/pci/devices/" + address;
    Write(base + "/vendor", "0x10de\n");
    Write(base + "/class", "0x030200\n");
    Write(base + "/device", "0x2335\n");
    if (!driver.empty()) {
      fs::create_directories(root_ / "sys/bus/pci/drivers" / driver);
      fs::create_symlink("../../../bus/pci/drivers/" + driver, root_ / base / "driver");
    }
  }
  void Module(const std::string& version) {
    Write("proc/driver/nvidia/version",
          "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  " + version + "  Release Build  (dvs-builder@U22)  Mon Jul 28 2025\n"
          "GCC version:  gcc version 12.2.0\n");
    Write("sys/module/nvidia/version", version + "\n");
  }
  void Nodes(std::initializer_list<const char*> names) {
    for (const char* n : names) Write(std::string("dev/") + n, "");
  }
  void Set(const std::string& name, const std::string& value) { variables_[name] = value; }
  Environment Env() const { return Environment(root_.string(), variables_); }

 private:
  fs::path root_;
  std::map<std::string, std::string> variables_;
};

const CheckResult* Find(const DoctorReport& r, const std::string& id) {
  for (const auto& c : r.checks) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

NvmlView Nvml(const std::string& driver, const std::string& cc) {
  NvmlView v;
  v.loaded = true;
  v.driver_version = driver;
  v.cuda_ceiling = "13.0";
  telemetry::Snapshot s;
  s.index = 0;
  s.name = "NVIDIA H200";
  s.compute_capability = cc;
  s.persistence_mode = true;
  v.gpus.push_back(s);
  return v;
}

TEST(Doctor, NoGpuSaysSoAndNothingFails) {
  FakeMachine m;
  m.Program("python3", "{}");
  NvmlView none;
  none.error = "NVML (libnvidia-ml.so.1) cannot be loaded";
  DoctorReport r = RunChecks(m.Env(), none);
  EXPECT_FALSE(r.gpu_present);
  EXPECT_EQ(Find(r, "gpu_hardware")->status, CheckStatus::kInfo);
  EXPECT_NE(Find(r, "gpu_hardware")->evidence.find("no NVIDIA GPU"), std::string::npos);
  EXPECT_EQ(WorstStatus(r.checks), CheckStatus::kOk);
}

TEST(Doctor, AHealthyMachinePasses) {
  FakeMachine m;
  m.Gpu("0000:83:00.0", "nvidia");
  m.Module("580.95.05");
  m.Nodes({"nvidiactl", "nvidia0", "nvidia-uvm"});
  m.Program("nvcc", "Cuda compilation tools, release 13.0, V13.0.88");
  m.Program("python3", R"({"torch": {"version": "2.8.0", "cuda": "12.8", "arch_flags": "-gencode compute=compute_90,code=sm_90"}})");
  DoctorReport r = RunChecks(m.Env(), Nvml("580.95.05", "9.0"));
  for (const auto& c : r.checks) {
    EXPECT_TRUE(c.status == CheckStatus::kOk || c.status == CheckStatus::kInfo || c.status == CheckStatus::kSkip) << c.id << ": " << c.evidence;
  }
  EXPECT_NE(Find(r, "kernel_module")->evidence.find("open module"), std::string::npos);
  EXPECT_EQ(Find(r, "pytorch")->status, CheckStatus::kOk);
}

TEST(Doctor, NouveauOwningTheGpuFails) {
  FakeMachine m;
  m.Gpu("0000:01:00.0", "nouveau");
  m.Write("sys/module/nouveau/refcnt", "1\n");
  DoctorReport r = RunChecks(m.Env(), NvmlView());
  EXPECT_EQ(Find(r, "kernel_module")->status, CheckStatus::kFail);
  EXPECT_EQ(Find(r, "nouveau")->status, CheckStatus::kFail);
  EXPECT_NE(Find(r, "nouveau")->fix.find("blacklist nouveau"), std::string::npos);
}

TEST(Doctor, ContainerStartedWithoutGpus) {
  FakeMachine m;
  m.Write(".dockerenv", "");
  m.Set("NVIDIA_VISIBLE_DEVICES", "all");
  DoctorReport r = RunChecks(m.Env(), NvmlView());
  EXPECT_EQ(Find(r, "container")->status, CheckStatus::kFail);
  EXPECT_NE(Find(r, "container")->fix.find("--gpus all"), std::string::npos);
}

TEST(Doctor, MissingUvmAndLibraryMismatch) {
  FakeMachine m;
  m.Gpu("0000:83:00.0", "nvidia");
  m.Module("550.90.07");
  m.Nodes({"nvidiactl", "nvidia0"});
  DoctorReport r = RunChecks(m.Env(), Nvml("550.127.05", "9.0"));
  EXPECT_EQ(Find(r, "device_nodes")->status, CheckStatus::kWarn);
  EXPECT_EQ(Find(r, "nvml")->status, CheckStatus::kFail);
  EXPECT_NE(Find(r, "nvml")->evidence.find("550.127.05"), std::string::npos);
}

TEST(Doctor, ToolkitNewerThanTheDriver) {
  FakeMachine m;
  m.Gpu("0000:83:00.0", "nvidia");
  m.Module("535.104.05");
  m.Nodes({"nvidiactl", "nvidia0", "nvidia-uvm"});
  m.Program("nvcc", "Cuda compilation tools, release 13.0, V13.0.88");
  DoctorReport r = RunChecks(m.Env(), Nvml("535.104.05", "9.0"));
  EXPECT_EQ(Find(r, "toolkit")->status, CheckStatus::kFail);
  EXPECT_NE(Find(r, "toolkit")->evidence.find("too old"), std::string::npos);
}

TEST(Doctor, FrameworkWithoutTheGpusArchitecture) {
  FakeMachine m;
  m.Gpu("0000:83:00.0", "nvidia");
  m.Module("580.95.05");
  m.Nodes({"nvidiactl", "nvidia0", "nvidia-uvm"});
  m.Program("python3", R"({"torch": {"version": "2.3.0", "cuda": "12.1", "arch_flags": "-gencode compute=sm_80 sm_86 sm_90"}})");
  DoctorReport r = RunChecks(m.Env(), Nvml("580.95.05", "12.0"));
  EXPECT_EQ(Find(r, "pytorch")->status, CheckStatus::kFail);
  EXPECT_NE(Find(r, "pytorch")->evidence.find("no kernel image"), std::string::npos);
}

TEST(Doctor, FrameworkCudaNeedsMinorCompatibility) {
  FakeMachine m;
  m.Gpu("0000:83:00.0", "nvidia");
  m.Module("535.104.05");
  m.Nodes({"nvidiactl", "nvidia0", "nvidia-uvm"});
  m.Program("python3", R"({"torch": {"version": "2.8.0", "cuda": "12.8", "arch_flags": "sm_90"}})");
  DoctorReport r = RunChecks(m.Env(), Nvml("535.104.05", "9.0"));
  EXPECT_EQ(Find(r, "pytorch")->status, CheckStatus::kWarn);
  EXPECT_NE(Find(r, "pytorch")->evidence.find("minor-version compatibility"), std::string::npos);
}

TEST(Doctor, NoDriverWithAGpuPresent) {
  FakeMachine m;
  m.Gpu("0000:83:00.0", "");
  NvmlView none;
  none.error = "NVML (libnvidia-ml.so.1) cannot be loaded";
  DoctorReport r = RunChecks(m.Env(), none);
  EXPECT_TRUE(r.gpu_present);
  EXPECT_EQ(Find(r, "kernel_module")->status, CheckStatus::kFail);
  EXPECT_EQ(Find(r, "nvml")->status, CheckStatus::kFail);
  EXPECT_EQ(Find(r, "nouveau")->status, CheckStatus::kWarn);  // not blacklisted yet
  EXPECT_EQ(WorstStatus(r.checks), CheckStatus::kFail);
}

TEST(Doctor, JaxAndCupyAreCheckedAgainstTheDriver) {
  FakeMachine m;
  m.Gpu("0000:83:00.0", "nvidia");
  m.Module("535.104.05");
  m.Nodes({"nvidiactl", "nvidia0", "nvidia-uvm"});
  m.Program("python3", R"({"jax": {"version": "0.7.1", "cuda": "13.0"}, "cupy": {"version": "13.6.0", "cuda": "12.2"}})");
  DoctorReport r = RunChecks(m.Env(), Nvml("535.104.05", "9.0"));
  ASSERT_NE(Find(r, "jax"), nullptr);
  EXPECT_EQ(Find(r, "jax")->status, CheckStatus::kFail);  // CUDA 13 needs a 580 driver
  EXPECT_NE(Find(r, "jax")->evidence.find("too old"), std::string::npos);
  EXPECT_EQ(Find(r, "cupy")->status, CheckStatus::kOk);   // 535 >= 535.104.05 for CUDA 12.2
}

}  // namespace
}  // namespace gpuprobe::doctor
