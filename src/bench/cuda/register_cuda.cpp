// Built with the CUDA backend: the CUDA backend's probe answers from the device query.
#include "bench/cuda/cuda_device.h"
#include "bench/registry.h"

namespace gpuprobe::bench {
namespace {

class CudaBackendContext : public BackendContext {
 public:
  explicit CudaBackendContext(DeviceInfo device) : device_(std::move(device)) {}
  std::string BackendName() const override { return "cuda"; }
  const DeviceInfo& Device() const override { return device_; }

 private:
  DeviceInfo device_;
};

class CudaBackend : public Backend {
 public:
  std::string Name() const override { return "cuda"; }
  Availability Probe() const override {
    auto devices = QueryCudaDevices();
    if (!devices.ok()) return Availability::No(devices.status().message(), devices.status().hint());
    return Availability::Yes();
  }
  core::Result<std::unique_ptr<BackendContext>> Open(int index) override {
    auto devices = QueryCudaDevices();
    if (!devices.ok()) return devices.status();
    if (index < 0 || index >= static_cast<int>(devices->size())) {
      return core::Status::NotFound("no GPU with index " + std::to_string(index));
    }
    const CudaDeviceInfo& d = (*devices)[static_cast<size_t>(index)];
    DeviceInfo info;
    info.backend = "cuda";
    info.index = index;
    info.name = d.name;
    info.pci_bus_id = d.pci_bus_id;
    info.memory_total_bytes = d.memory_total_bytes;
    info.memory_free_bytes = d.memory_free_bytes;
    return std::unique_ptr<BackendContext>(new CudaBackendContext(info));
  }
};

}  // namespace

void RegisterCudaBackend(BackendRegistry* registry) { registry->Add(std::make_unique<CudaBackend>()); }

}  // namespace gpuprobe::bench
