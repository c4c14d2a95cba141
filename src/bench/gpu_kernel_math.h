// The arithmetic of the GPU benchmarks that needs no GPU: launch geometry and the exact index
// loop every grid-stride kernel uses, the pseudo-random fill, the expected results and the
// declared work. The kernels include this header (the functions marked GPUPROBE_HOST_DEVICE
// compile for both sides), so what the tests check on the CPU is what the GPU runs. No CUDA
// header here: it compiles everywhere. The device's theoretical figures are the model's
// (model/gpu_device_figures.h).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/benchmark.h"
#include "bench/host_device.h"

namespace gpuprobe::bench::gpu {

// --- fill and expected values ----------------------------------------------------------------

/// A pseudo-random value for element `i`: a multiple of 1/1024 in [-512, 512), so sums and
/// products of a few of them are exact in fp32 and host and device agree bit for bit, with
/// or without fused multiply-add.
GPUPROBE_HOST_DEVICE inline float FillValue(std::uint64_t i, std::uint32_t seed) {
  std::uint64_t x = i * 0x9E3779B97F4A7C15ull + seed * 0xBF58476D1CE4E5B9ull + 0x94D049BB133111EBull;
  x ^= x >> 31;
  x *= 0xD6E8FEB86659FD93ull;
  x ^= x >> 32;
  std::int32_t v = static_cast<std::int32_t>(x & 0xFFFFFu) - (1 << 19);  // 20 bits
  return static_cast<float>(v) * (1.0f / 1024.0f);
}

/// The sum, modulo 2^32, of the bit patterns of FillValue(i, seed) for i in [first, first +
/// count): the checksum of the read kernels, which fold what they read the same way.
std::uint32_t FillBitSum(std::uint64_t first, std::uint64_t count, std::uint32_t seed);

enum class StreamOp { kCopy, kScale, kAdd, kTriad, kDot };
/// "copy", "scale", "add", "triad", "dot".
const char* StreamOpName(StreamOp op);
/// Arrays read and written per element (dot: 2 read, 0 written).
int StreamReads(StreamOp op);
int StreamWrites(StreamOp op);
int StreamFlops(StreamOp op);

constexpr float kStreamScalar = 3.0f;
constexpr std::uint32_t kSeedA = 1, kSeedB = 2, kSeedC = 3;

/// The result of `op` for element `i` (copy: c = a; scale: c = s*a; add: c = a + b;
/// triad: c = a + s*b; dot: a*b, summed by the caller). Exact in fp32.
GPUPROBE_HOST_DEVICE inline float StreamElement(StreamOp op, std::uint64_t i) {
  float a = FillValue(i, kSeedA), b = FillValue(i, kSeedB);
  switch (op) {
    case StreamOp::kCopy: return a;
    case StreamOp::kScale: return kStreamScalar * a;
    case StreamOp::kAdd: return a + b;
    case StreamOp::kTriad: return a + kStreamScalar * b;
    case StreamOp::kDot: return a * b;
  }
  return 0;
}

/// memory.dot's term for one element as an integer: the product a x b rounded once to fp32
/// (as STREAM computes it) is a multiple of 2^-20, because each input is a multiple of 2^-10
/// (rounding to 24 bits keeps that), and below 2^18 in magnitude; times 2^20 (exact) it is an
/// integer below 2^38. Summed as 64-bit integers the dot product is exact whatever the order
/// of the additions, so host and device must agree bit for bit.
inline constexpr double kDotFixedUnit = 1.0 / 1048576.0;  // 2^-20
GPUPROBE_HOST_DEVICE inline std::int64_t DotFixedTerm(float a, float b) {
#if defined(__CUDA_ARCH__)
  const float product = __fmul_rn(a, b);  // never contracted into anything
#else
  const float product = a * b;
#endif
  return static_cast<std::int64_t>(product * 1048576.0f);
}

/// The sum of DotFixedTerm over the fill's n elements, modulo 2^64 (the device adds unsigned
/// 64-bit integers, which wrap the same way): what one memory.dot launch adds to its result.
std::uint64_t DotFixedExpected(std::uint64_t n);

/// One iteration's work for `op` over n fp32 elements.
Work StreamWork(StreamOp op, std::uint64_t n);

// --- matmul --------------------------------------------------------------------------------

/// Matmul inputs: small integers in [-2, 2], exact in fp32, tf32 and bf16, so every rung
/// (SIMT kernels, cuBLAS fp32, tf32 and bf16 tensor cores with fp32 accumulation) must give
/// the same bits: sums of n products stay below 2^24 for n <= 4 194 304.
GPUPROBE_HOST_DEVICE inline float MatmulValue(std::uint64_t i, std::uint32_t seed) {
  std::uint64_t x = i * 0x9E3779B97F4A7C15ull + seed * 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 32;
  return static_cast<float>(static_cast<int>(x % 5) - 2);
}

/// C[row][col] of C = A x B (row-major n x n, A from seed kSeedA, B from kSeedB), exact.
double MatmulElement(std::uint64_t n, std::uint64_t row, std::uint64_t col);
/// The sum of every element of C, exact: sum over k of (column k of A summed) x (row k of B
/// summed), O(n^2).
double MatmulTotal(std::uint64_t n);
/// The same for D = A x B^T (what an fp8 GEMM computes from row-major A and B: cuBLASLt wants
/// A transposed): D[i][j] = sum over k of A[i][k] B[j][k]; total = sum over k of the column
/// sums of A and B multiplied.
double MatmulAbtElement(std::uint64_t n, std::uint64_t i, std::uint64_t j);
double MatmulAbtTotal(std::uint64_t n);
/// What the output buffer holds at `index` (= row * n + col read row-major): C = A x B for
/// the row-major rungs (cuBLAS NN on swapped operands), or D = A x B^T stored column-major,
/// element (i, j) at i + j n, for the TN GEMMs (cuBLAS int8 IMMA and cuBLASLt fp8 want A
/// transposed: the row-major buffers of A and B passed as "A^T" and "B^T").
double MatmulExpectedAt(std::uint64_t n, std::uint64_t index, bool a_times_b_transposed);
/// 2 n^3 FLOPs; the minimum traffic, each matrix once: 3 x 4 n^2 bytes.
Work MatmulWork(std::uint64_t n);

// --- serial, branchy code (one GPU thread against one CPU core) ------------------------------

/// Collatz steps from x down to 1: a data-dependent branch on every step, no parallelism.
GPUPROBE_HOST_DEVICE inline std::uint32_t CollatzSteps(std::uint64_t x) {
  std::uint32_t steps = 0;
  while (x > 1) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    ++steps;
  }
  return steps;
}
constexpr std::uint64_t kCollatzFirst = 1000001;  // numbers [first, first + count)

/// Total steps for `count` numbers from kCollatzFirst (the checksum both sides must give).
std::uint64_t CollatzTotal(std::uint64_t count);

// --- divergence ------------------------------------------------------------------------------

/// The path a lane takes when a warp is split `paths` ways (lane % paths): the data the
/// kernel reads, so the compiler cannot know it.
inline int DivergencePath(std::uint64_t thread, int paths) { return static_cast<int>(thread % 32 % static_cast<std::uint64_t>(paths)); }
/// Path q's multiplier: distinct per path, so no two paths can be merged.
GPUPROBE_HOST_DEVICE inline float PathMultiplier(int q) { return 0.999f - 0.0001f * static_cast<float>(q); }
/// What every path adds on each step.
constexpr float kPathAddend = 0.001f;
/// The value a lane on path q holds after `steps` FMAs from 1 (host replay).
float ReplayPath(int q, int steps);

// --- crossover sizes (shared by the CPU and GPU sides, so their cases line up) -------------

/// Vector: 1K .. 64M elements (x8 quick, x4 full); matmul: n = 16 .. 2048 (x4 quick, x2 full).
std::vector<std::uint64_t> CrossoverSizes(bool matmul, bool full);
/// "n=4096" (matmul) or "1.0M elements", then " " + how ("resident", "with copies") if any.
std::string CrossoverLabel(bool matmul, std::uint64_t size, const std::string& how);

// --- launch geometry -----------------------------------------------------------------------

struct LaunchGeometry {
  std::uint32_t blocks = 1;
  std::uint32_t threads = 256;  ///< per block
  std::uint64_t TotalThreads() const { return static_cast<std::uint64_t>(blocks) * threads; }
};

/// A grid-stride launch over n elements in vectors of `width` (4 for float4): enough blocks
/// to fill the GPU (`blocks_per_sm` per SM) but no more than there is work for; at least 1.
LaunchGeometry GridStride(std::uint64_t n, int width, std::uint32_t threads, int sm_count, int blocks_per_sm = 8);

/// The index loop of every grid-stride kernel: thread t of the grid handles vectors t,
/// t + T, t + 2T, ... (T = total threads) and then the scalar tail elements
/// n_vec*width + t, + T, ... . Returns how often each element is touched, for tests.
std::vector<int> SimulateCoverage(std::uint64_t n, int width, const LaunchGeometry& g);

/// Repetitions per timed batch so it lasts >= `target` seconds (>= 1, <= `max_reps`).
int BatchRepetitions(double seconds_per_rep, double target = 100e-6, int max_reps = 256);

}  // namespace gpuprobe::bench::gpu
