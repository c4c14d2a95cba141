// A machine for doctor's checks: a temporary root holding /proc, /sys, /dev, /etc and /usr
// trees (empty, or copied from a recorded environment in tests/fixtures/doctor/), fake
// programs on its PATH, environment variables, and a scripted NVML view. Nothing depends on
// the machine the tests run on.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "doctor/checks.h"

namespace gpuprobe::doctor::testing {

namespace fs = std::filesystem;

/// An Environment that refuses the device nodes named (the tests may run as root, for whom
/// every file is accessible).
class DeniedEnvironment : public Environment {
 public:
  DeniedEnvironment(const Environment& base, std::set<std::string> denied)
      : Environment(base), denied_(std::move(denied)) {}
  bool Accessible(const std::string& path) const override {
    return denied_.count(path) == 0 && Environment::Accessible(path);
  }

 private:
  std::set<std::string> denied_;
};

class FakeMachine {
 public:
  /// An empty machine, or a copy of tests/fixtures/doctor/<recorded>.
  explicit FakeMachine(const std::string& recorded = "") {
    root_ = fs::temp_directory_path() /
            ("gpuprobe_doctor_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    if (!recorded.empty()) {
      fs::copy(fs::path(GPUPROBE_FIXTURES_DIR) / "doctor" / recorded, root_,
               fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    }
    fs::create_directories(root_ / "bin");
    fs::create_directories(root_ / "sys/bus/pci/devices");
    fs::create_directories(root_ / "dev");
    variables_["PATH"] = (root_ / "bin").string();
  }
  ~FakeMachine() { fs::remove_all(root_); }
  FakeMachine(const FakeMachine&) = delete;
  FakeMachine& operator=(const FakeMachine&) = delete;

  void Write(const std::string& path, const std::string& text) {
    fs::path p = root_ / path;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  void Remove(const std::string& path) { fs::remove_all(root_ / path); }
  /// A program on PATH (or at `path` under the root) that prints `output`.
  void Program(const std::string& name, const std::string& output,
               const std::string& path = "bin") {
    Write(path + "/" + name, "#!/bin/sh\ncat <<'GPUPROBE_EOF'\n" + output + "\nGPUPROBE_EOF\n");
    fs::permissions(root_ / path / name, fs::perms::owner_all);
  }
  /// A python3 whose framework report is `json`.
  void Python(const std::string& json) { Program("python3", json); }
  void Gpu(const std::string& address, const std::string& driver,
           const std::string& device_id = "0x2335") {
    std::string base = "sys/bus/pci/devices/" + address;
    Write(base + "/vendor", "0x10de\n");
    Write(base + "/class", "0x030200\n");
    Write(base + "/device", device_id + "\n");
    if (!driver.empty()) {
      fs::create_directories(root_ / "sys/bus/pci/drivers" / driver);
      fs::remove(root_ / base / "driver");
      fs::create_symlink("../../../bus/pci/drivers/" + driver, root_ / base / "driver");
    }
  }
  void OtherPciDevice(const std::string& address) {
    Write("sys/bus/pci/devices/" + address + "/vendor", "0x8086\n");
    Write("sys/bus/pci/devices/" + address + "/class", "0x060000\n");
  }
  void Module(const std::string& version, bool open = true) {
    Write("proc/driver/nvidia/version", std::string("NVRM version: NVIDIA UNIX ") +
                                            (open ? "Open " : "x86_64 ") + "Kernel Module" +
                                            (open ? " for x86_64" : "") + "  " + version +
                                            "  Release Build  (dvs-builder@U22)  Mon Jul 28 "
                                            "2025\nGCC version:  gcc version 12.2.0\n");
    Write("sys/module/nvidia/version", version + "\n");
  }
  void Nodes(std::initializer_list<const char*> names) {
    for (const char* n : names) Write(std::string("dev/") + n, "");
  }
  void Set(const std::string& name, const std::string& value) { variables_[name] = value; }
  Environment Env() const { return Environment(root_.string(), variables_); }
  const fs::path& root() const { return root_; }

 private:
  fs::path root_;
  std::map<std::string, std::string> variables_;
};

/// NVML that loaded and lists one GPU.
inline NvmlView Nvml(const std::string& driver, const std::string& cc,
                     const std::string& ceiling = "13.0") {
  NvmlView v;
  v.loaded = true;
  v.failure = NvmlView::Failure::kNone;
  v.driver_version = driver;
  v.cuda_ceiling = ceiling;
  telemetry::Snapshot s;
  s.index = 0;
  s.name = "NVIDIA H200";
  s.compute_capability = cc;
  s.persistence_mode = true;
  v.gpus.push_back(s);
  return v;
}

/// NVML that could not be opened (no driver libraries).
inline NvmlView NoNvml() {
  NvmlView v;
  v.failure = NvmlView::Failure::kNotLoadable;
  v.detail = "NVML (libnvidia-ml.so.1) cannot be loaded";
  return v;
}

/// The one result of a check that returns one; fails the test otherwise.
inline CheckResult One(const std::string& id, const Environment& env, const NvmlView& nvml,
                       const KernelRunner* kernels = nullptr) {
  auto results = RunCheck(id, env, nvml, kernels);
  EXPECT_TRUE(results.ok()) << id;
  if (!results.ok() || results->size() != 1) {
    ADD_FAILURE() << id << ": expected one result, got " << (results.ok() ? results->size() : 0);
    return CheckResult();
  }
  return results->front();
}

inline const CheckResult* Find(const DoctorReport& r, const std::string& id) {
  for (const auto& c : r.checks) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

/// Whether the result's evidence or fix uses text key `key`.
inline bool Says(const CheckResult& r, const std::string& key) {
  for (const auto& m : r.evidence) {
    if (m.key == key) return true;
  }
  return r.fix.key == key;
}

/// The value of argument `name` in the first evidence sentence that has it.
inline std::string Arg(const CheckResult& r, const std::string& name) {
  for (const auto& m : r.evidence) {
    for (const auto& [n, v] : m.args) {
      if (n == name) return v;
    }
  }
  for (const auto& [n, v] : r.fix.args) {
    if (n == name) return v;
  }
  return {};
}

}  // namespace gpuprobe::doctor::testing
