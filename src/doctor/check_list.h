// Every doctor check, one function per concept. The table in checks.cpp lists them in the
// order doctor runs and prints them; docs/doctor.md documents each id, its statuses and texts.
// Each returns at least one result: a check that cannot look at its subject here returns
// kSkip saying what is missing and how to get it.
//
// Thread safety: pure functions of the CheckContext (the smoke test runs kernels through it).
#pragma once

#include <vector>

#include "doctor/check.h"

namespace gpuprobe::doctor {

// checks_host.cpp: the host's driver stack.
/// gpu_hardware: NVIDIA display/3D controllers on the PCI bus and the driver bound to each.
std::vector<CheckResult> CheckGpuHardware(const CheckContext& ctx);
/// kernel_module: the NVIDIA kernel module is loaded (version, open or proprietary).
std::vector<CheckResult> CheckKernelModule(const CheckContext& ctx);
/// nouveau: the open-source driver neither owns the GPU nor blocks the NVIDIA module.
std::vector<CheckResult> CheckNouveau(const CheckContext& ctx);
/// device_nodes: /dev/nvidiactl, /dev/nvidiaN, /dev/nvidia-uvm exist and this user may open them.
std::vector<CheckResult> CheckDeviceNodes(const CheckContext& ctx);

// checks_container.cpp
/// container: inside a container, the GPUs asked for were passed through.
std::vector<CheckResult> CheckContainer(const CheckContext& ctx);

// checks_nvml.cpp
/// nvml: NVML loads, starts, lists the GPUs, and its version matches the kernel module.
std::vector<CheckResult> CheckNvml(const CheckContext& ctx);

// checks_cuda.cpp: CUDA versions against the driver (data/cuda_compat.json).
/// driver_cuda: the newest CUDA the driver runs, and minor-version compatibility beyond it.
std::vector<CheckResult> CheckDriverCuda(const CheckContext& ctx);
/// toolkit: every nvcc on PATH and under /usr/local/cuda*, against the driver.
std::vector<CheckResult> CheckToolkits(const CheckContext& ctx);

// checks_frameworks.cpp
/// frameworks, pytorch, tensorflow, jax, cupy: what python3 imports, each framework's CUDA
/// build against the driver.
std::vector<CheckResult> CheckFrameworks(const CheckContext& ctx);

// checks_archs.cpp
/// compiled_archs: the GPU architectures compiled into PyTorch and TensorFlow against each
/// GPU's compute capability.
std::vector<CheckResult> CheckCompiledArchs(const CheckContext& ctx);

// checks_gpu.cpp: per GPU, through NVML and the CUDA build.
/// persistence, ecc, mig (gpu_settings when no GPU can be read): settings that bite on servers.
std::vector<CheckResult> CheckGpuSettings(const CheckContext& ctx);
/// smoke_test: allocate, run a kernel, copy back and verify, on each GPU.
std::vector<CheckResult> CheckSmokeTest(const CheckContext& ctx);

}  // namespace gpuprobe::doctor
