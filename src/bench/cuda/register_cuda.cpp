// Built with the CUDA backend: the probe answers from the device query; a context owns a
// stream, the timing events and the gate (cuda_context.h).
#include "bench/cuda/cuda_context.h"
#include "bench/cuda/cuda_device.h"
#include "bench/registry.h"

namespace gpuprobe::bench {
namespace {

class CudaBackend : public Backend {
 public:
  std::string Name() const override { return "cuda"; }
  Availability Probe() const override {
    auto devices = QueryCudaDevices();
    if (!devices.ok()) return Availability::No(devices.status().message(), devices.status().hint());
    return Availability::Yes();
  }
  core::Result<std::unique_ptr<BackendContext>> Open(int index) override {
    auto context = CudaContext::Open(index);
    if (!context.ok()) return context.status();
    return std::unique_ptr<BackendContext>(std::move(context.value()));
  }
};

}  // namespace

void RegisterCudaBackend(BackendRegistry* registry) { registry->Add(std::make_unique<CudaBackend>()); }

}  // namespace gpuprobe::bench
