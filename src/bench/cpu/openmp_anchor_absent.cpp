#include "bench/cpu/openmp_anchor.h"

namespace gpuprobe::bench {

bool OpenMpAvailable() { return false; }

core::Result<double> TimeOpenMpRegions(int, int, const std::vector<int>&, std::vector<std::uint64_t>*, std::size_t) {
  return core::Status::Unavailable("this gpuprobe was built without OpenMP", "install g++ (libgomp) and rebuild")
      .WithKeys("error.bench.no_openmp", {}, "error.bench.no_openmp.hint");
}

}  // namespace gpuprobe::bench
