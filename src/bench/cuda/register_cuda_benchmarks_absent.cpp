// Built when the CUDA backend is not: every benchmark is a CPU one.
#include "bench/registry.h"

namespace gpuprobe::bench {

void RegisterAllBenchmarks(BenchmarkRegistry* registry) { RegisterCpuBenchmarks(registry); }

}  // namespace gpuprobe::bench
