// Built when the CUDA backend is not: the backend exists so `bench --backend cuda` can say why.
#include "bench/registry.h"

namespace gpuprobe::bench {
namespace {

class AbsentCudaBackend : public Backend {
 public:
  std::string Name() const override { return "cuda"; }
  Availability Probe() const override {
    return Availability::No("this gpuprobe was built without CUDA support",
                            "install the CUDA toolkit (nvcc) and rebuild to measure GPUs");
  }
  core::Result<std::unique_ptr<BackendContext>> Open(int) override {
    return core::Status::Unavailable("this gpuprobe was built without CUDA support",
                                     "install the CUDA toolkit (nvcc) and rebuild to measure GPUs")
      .WithKeys("error.cuda.not_built", {}, "error.cuda.not_built.hint");
  }
};

}  // namespace

void RegisterCudaBackend(BackendRegistry* registry) { registry->Add(std::make_unique<AbsentCudaBackend>()); }

}  // namespace gpuprobe::bench
