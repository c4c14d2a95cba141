// The CPU backend: always available; its context owns a pool of pinned worker threads.
#include <memory>

#include "bench/cpu/cpu_context.h"
#include "bench/cpu/cpu_facts.h"
#include "bench/registry.h"

namespace gpuprobe::bench {
namespace {

class CpuBackend : public Backend {
 public:
  std::string Name() const override { return "cpu"; }
  Availability Probe() const override { return Availability::Yes(); }
  core::Result<std::unique_ptr<BackendContext>> Open(int index) override {
    if (index != 0) return core::Status::NotFound("the CPU backend has one device (index 0)").WithKeys("error.bench.cpu_index");
    model::CpuSpec spec = DetectCpuSpec();
    return std::unique_ptr<BackendContext>(new CpuContext(spec, WorkerCpuIds(0)));
  }
};

}  // namespace

std::unique_ptr<CpuContext> OpenCpuContext(int threads) {
  return std::make_unique<CpuContext>(DetectCpuSpec(), WorkerCpuIds(threads));
}

bool CpuHasAvx2Fma() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

bool CpuHasAvx512() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

void RegisterCpuBackend(BackendRegistry* registry) { registry->Add(std::make_unique<CpuBackend>()); }

}  // namespace gpuprobe::bench
