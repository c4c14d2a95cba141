// Matrix multiply C = A * B (row-major, M x K times K x N) in three ways, the rungs of the
// CPU side of the matmul ladder: the textbook triple loop, a cache-blocked kernel of our own
// (packed panels, a 6x16 register tile, AVX2+FMA where cpuid says so), and OpenBLAS.
//
// Thread safety: each call owns its output; BlockedSgemm uses the given pool.
#pragma once

#include <cstddef>

#include "bench/cpu/thread_pool.h"

namespace gpuprobe::bench::gemm {

/// The articles' kernel: for i, for j, for k: C[i][j] += A[i][k] * B[k][j]. One thread.
void NaiveSgemm(const float* a, const float* b, float* c, int m, int n, int k);

/// Goto-style blocking: B packed in KC x 16 slivers, A in 6 x KC slivers per thread, a 6x16
/// register tile; MC row blocks shared out over `workers`. Returns the ISA used.
const char* BlockedSgemm(ThreadPool& pool, int workers, const float* a, const float* b, float* c, int m, int n, int k);

/// OpenBLAS, row-major, with `threads` OpenBLAS threads.
void OpenBlasSgemm(const float* a, const float* b, float* c, int m, int n, int k, int threads);
void OpenBlasDgemm(const double* a, const double* b, double* c, int m, int n, int k, int threads);

}  // namespace gpuprobe::bench::gemm
