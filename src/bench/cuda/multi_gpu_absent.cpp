// Built when GPUPROBE_CUDA resolved to OFF (no nvcc): the many-GPU runs say why, in one line.
#include "bench/multi_gpu.h"

namespace gpuprobe::bench {
namespace {

core::Status NotBuilt() {
  return core::Status::Unavailable("this gpuprobe was built without CUDA support",
                                   "install the CUDA toolkit (nvcc) and rebuild to measure GPUs")
      .WithKeys("gpu_absent.not_built", {}, "gpu_absent.not_built.hint");
}

}  // namespace

core::Result<CollectivesReport> RunCollectives(const CollectivesPlan&, const nccl::Api&, const std::vector<int>&,
                                               const std::function<void(const CollectiveProgress&)>&) {
  return NotBuilt();
}

core::Result<P2pReport> RunP2p(const P2pPlan&, const std::vector<int>&) { return NotBuilt(); }

}  // namespace gpuprobe::bench
