// Kernels shared by the CPU benchmarks, each in a portable version and an AVX2+FMA version
// compiled with a target attribute and chosen at run time by cpuid: the binary is built
// without -march=native and still uses the vector units the machine has.
//
// Thread safety: pure functions over caller-owned ranges.
#pragma once

#include <cstddef>

namespace gpuprobe::bench::kernels {

enum class StreamOp { kCopy, kScale, kAdd, kTriad };

/// c = a | s*a | a+b | a+s*b over [begin, end). `non_temporal` streams the stores past the
/// caches (AVX2 path only; `begin` must be 32-byte aligned). Returns the ISA used.
const char* Stream(StreamOp op, double* c, const double* a, const double* b, double s, std::size_t begin,
                   std::size_t end, bool non_temporal);

/// Sum of a[i] * b[i] over [begin, end).
double Dot(const double* a, const double* b, std::size_t begin, std::size_t end);

/// Sum of a[i] over [begin, end) (read-only bandwidth).
double Sum(const double* a, std::size_t begin, std::size_t end);

}  // namespace gpuprobe::bench::kernels
