// GPUPROBE_HOST_DEVICE marks an inline function that both the CUDA kernels and the host
// (the replays, the tests, the CPU suites) compile, so what a test checks on the CPU is the
// code the GPU runs. No CUDA header: nvcc defines __CUDACC__, every other compiler sees a
// plain inline function.
//
// Thread safety: a macro.
#pragma once

#if defined(__CUDACC__)
#define GPUPROBE_HOST_DEVICE __host__ __device__
#else
#define GPUPROBE_HOST_DEVICE
#endif
