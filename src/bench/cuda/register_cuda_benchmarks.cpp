// Every benchmark of a CUDA build: the CPU families, then each GPU suite, in the order
// `bench --list` shows them. GPU suites sharing a CPU id merge with it (one row each side).
#include "bench/registry.h"

namespace gpuprobe::bench {

void RegisterCudaMemoryBenchmarks(BenchmarkRegistry* registry);
void RegisterCudaTransferBenchmarks(BenchmarkRegistry* registry);
void RegisterCudaComputeBenchmarks(BenchmarkRegistry* registry);
void RegisterCudaLaunchBenchmarks(BenchmarkRegistry* registry);
void RegisterCudaMatmulBenchmarks(BenchmarkRegistry* registry);
void RegisterCudaTensorBenchmarks(BenchmarkRegistry* registry);
void RegisterCudaFp8Benchmarks(BenchmarkRegistry* registry);
void RegisterCudaIntopsBenchmarks(BenchmarkRegistry* registry);
void RegisterCudaOverlapBenchmarks(BenchmarkRegistry* registry);
void RegisterCudaCrossoverBenchmarks(BenchmarkRegistry* registry);
void RegisterCudaBurnBenchmarks(BenchmarkRegistry* registry);
void RegisterCudaAccessBenchmarks(BenchmarkRegistry* registry);
void RegisterCudaLatencyBenchmarks(BenchmarkRegistry* registry);
void RegisterCudaDivergenceBenchmarks(BenchmarkRegistry* registry);

void RegisterAllBenchmarks(BenchmarkRegistry* registry) {
  RegisterCpuBenchmarks(registry);
  RegisterCudaMemoryBenchmarks(registry);
  RegisterCudaTransferBenchmarks(registry);
  RegisterCudaComputeBenchmarks(registry);
  RegisterCudaTensorBenchmarks(registry);
  RegisterCudaFp8Benchmarks(registry);
  RegisterCudaMatmulBenchmarks(registry);
  RegisterCudaAccessBenchmarks(registry);
  RegisterCudaLatencyBenchmarks(registry);
  RegisterCudaDivergenceBenchmarks(registry);
  RegisterCudaIntopsBenchmarks(registry);
  RegisterCudaOverlapBenchmarks(registry);
  RegisterCudaCrossoverBenchmarks(registry);
  RegisterCudaBurnBenchmarks(registry);
  RegisterCudaLaunchBenchmarks(registry);
}

}  // namespace gpuprobe::bench
