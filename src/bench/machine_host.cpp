// MachineHost: the real CPU and this build's GPU backend behind the pipeline's BenchHost.
// Compiled into the CUDA library (both its CUDA and its absent variant), because it reaches
// the GPU backend through RegisterCudaBackend.
#include "bench/cpu/cpu_context.h"
#include "bench/cpu/cpu_facts.h"
#include "bench/memory_budget.h"
#include "bench/pipeline.h"
#include "core/file_io.h"

namespace gpuprobe::bench {
namespace {

class Machine : public BenchHost {
 public:
  Machine() { RegisterCudaBackend(&backends_); }

  Cpu OpenCpu(int threads, double clock_probe_seconds) override {
    std::unique_ptr<CpuContext> cpu = OpenCpuContext(threads);
    if (clock_probe_seconds > 0) {
      cpu->set_measured_clock_hz(
          PlausibleClockHz(MeasureClockUnderLoad(cpu->pool(), cpu->Threads(), clock_probe_seconds), cpu->spec().max_clock_hz));
    }
    auto meminfo = core::ReadSystemFile("/proc/meminfo");
    if (meminfo.ok()) cpu->set_memory_free_bytes(MemAvailableBytes(*meminfo).value_or(0));
    model::CpuSpec spec = cpu->spec();
    return {std::move(cpu), spec};
  }

  Availability ProbeGpu() override {
    Backend* cuda = backends_.Find("cuda");
    return cuda == nullptr ? Availability::No("this build has no GPU backend") : cuda->Probe();
  }

  core::Result<std::unique_ptr<BackendContext>> OpenGpu(int index) override {
    Backend* cuda = backends_.Find("cuda");
    if (cuda == nullptr) {
      return core::Status::Unavailable("this build has no GPU backend").WithKeys("error.cuda.not_built", {}, "error.cuda.not_built.hint");
    }
    return cuda->Open(index);
  }

 private:
  BackendRegistry backends_;
};

}  // namespace

std::unique_ptr<BenchHost> MachineHost() { return std::make_unique<Machine>(); }

}  // namespace gpuprobe::bench
