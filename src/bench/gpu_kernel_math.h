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

/// The fp32 rungs' probe of their precision. Their exact check replaces A's row 0 with
/// (1 + 2^-20, 0, ..., 0), so C's row 0 is (1 + 2^-20) x B's row 0: exact in fp32 (B holds
/// integers in [-2, 2]), while a GEMM that rounds its fp32 inputs to TF32 (10 mantissa bits:
/// cuBLAS in TF32 math mode, or with NVIDIA_TF32_OVERRIDE=1 in the environment) returns B's
/// row 0 itself. Integer inputs alone cannot tell fp32 from TF32.
inline constexpr float kTf32Probe = 1.0f + 1.0f / 1048576.0f;

/// A's element `index` (row-major n x n) with the probe: row 0 is (kTf32Probe, 0, ..., 0),
/// every other row MatmulValue(index, kSeedA).
GPUPROBE_HOST_DEVICE inline float MatmulProbedValue(std::uint64_t index, std::uint64_t n) {
  return index == 0 ? kTf32Probe : index < n ? 0.0f : MatmulValue(index, kSeedA);
}

/// C[row][col] of C = A x B (row-major n x n, A from seed kSeedA, B from kSeedB), exact;
/// `probe`: with A's row 0 replaced as MatmulProbedValue does.
double MatmulElement(std::uint64_t n, std::uint64_t row, std::uint64_t col, bool probe = false);
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
/// `probe`: the fp32 rungs' probed A (row-major C only).
double MatmulExpectedAt(std::uint64_t n, std::uint64_t index, bool a_times_b_transposed, bool probe = false);
/// The exact sum of the output buffer's elements from index n on (without the probe): the
/// device sums those, and the first n (C's row 0, where the probe lives) are compared one by
/// one. Keeping the probe's 2^-20 out of the device's double sum keeps that sum exact.
double MatmulTotalBeyondFirstRow(std::uint64_t n, bool a_times_b_transposed);
/// 2 n^3 FLOPs; the minimum traffic, each matrix once: 3 x 4 n^2 bytes.
Work MatmulWork(std::uint64_t n);

// --- timed GEMM inputs, and the tolerance of a GEMM on them ---------------------------------
//
// MatmulValue's integers in [-2, 2] make every rung exact, but their mantissas are all zero
// in bf16/fp16/e4m3/int8 and a fifth of them are zeros: a power-limited GPU runs such GEMMs
// measurably faster than on real data. The timed GEMMs (the ladder's rungs, the tensor peaks,
// fp8, the burn) therefore multiply random values with every mantissa bit of their type
// random, checked against the host's reference within a tolerance derived from the formats
// and K; the exact-integer GEMM stays as the untimed correctness check.

/// The input types of the GEMMs.
enum class GemmInput { kFp32, kTf32, kFp16, kBf16, kFp8E4M3, kInt8 };
/// What the products are summed in: fp32 (CUDA cores, and tensor cores with fp32
/// accumulation), the fp8 tensor cores' fast accumulation, or int32.
enum class GemmAccumulate { kFp32, kFp8Fast, kInt32 };
/// The type the result is written in.
enum class GemmOutput { kFp32, kFp16, kBf16, kInt32 };

/// Stored mantissa bits the timed inputs randomise: fp32 23, tf32 23 too (the tf32 GEMM reads
/// fp32 data and rounds it itself, as torch with allow_tf32 does), fp16 10, bf16 7, e4m3 3;
/// int8 0 (its inputs are integers).
GPUPROBE_HOST_DEVICE inline int GemmInputMantissaBits(GemmInput t) {
  switch (t) {
    case GemmInput::kFp16: return 10;
    case GemmInput::kBf16: return 7;
    case GemmInput::kFp8E4M3: return 3;
    case GemmInput::kInt8: return 0;
    default: return 23;  // fp32, tf32
  }
}

/// Element `i` of a timed GEMM input (A from kSeedA, B from kSeedB): a random sign, a
/// magnitude in [1/16, 1) (four binades, equally likely) and every stored mantissa bit of the
/// type random, so the value is exact in that type (converting it on the device rounds
/// nothing, and the host knows the product exactly); int8: a random integer in [-128, 127].
/// Never zero for the floating types.
GPUPROBE_HOST_DEVICE inline float GemmRandomValue(std::uint64_t i, std::uint32_t seed, GemmInput t) {
  std::uint64_t x = i * 0xD1B54A32D192ED03ull + seed * 0x9E3779B97F4A7C15ull + 0x8CB92BA72F3D8DD7ull;
  x ^= x >> 32;
  x *= 0xD6E8FEB86659FD93ull;
  x ^= x >> 32;
  x *= 0xD6E8FEB86659FD93ull;
  x ^= x >> 32;
  if (t == GemmInput::kInt8) return static_cast<float>(static_cast<int>(x >> 56) - 128);
  const int bits = GemmInputMantissaBits(t);
  const std::uint32_t mantissa = static_cast<std::uint32_t>(x >> 8) & ((1u << bits) - 1u);
  const int binade = static_cast<int>(x & 3u);  // the magnitude lies in [2^-(binade+1), 2^-binade)
  // An integer below 2^24 over a power of two: both exact in fp32, and so is the quotient.
  const float magnitude = static_cast<float>((1u << bits) | mantissa) / static_cast<float>(1u << (bits + binade + 1));
  return (x & 4u) != 0 ? -magnitude : magnitude;
}

/// How a GEMM's arithmetic may err, as relative units.
struct GemmNumerics {
  double input_unit = 0;       ///< an input the GEMM rounds itself (tf32 from fp32: 2^-10); 0: inputs exact
  double accumulate_unit = 0;  ///< one addition into the accumulator; 0: exact (int32)
  double output_unit = 0;      ///< rounding the result to the output type (fp32 2^-24, fp16 2^-11, bf16 2^-8)
};

/// The units for a GEMM of these types. The accumulation unit is a bound for one addition
/// whatever the hardware does: 2^-23 for fp32 (one unit in the last place: tensor cores add
/// their products with truncation rather than rounding to nearest; Fasi, Higham, Mikaitis and
/// Pranesh, "Numerical behavior of NVIDIA tensor cores", PeerJ Computer Science 7:e330, 2021),
/// 2^-13 for the fp8 tensor cores' fast accumulation (about 14 significant bits kept on
/// Hopper: DeepSeek-V3 Technical Report, arXiv:2412.19437, section 3.3.2).
GemmNumerics GemmNumericsOf(GemmInput in, GemmAccumulate accumulate, GemmOutput out);

/// The largest |computed - exact| a correct GEMM may give for one output element of k
/// products: the output's rounding of the exact value, plus the worst case of the inputs'
/// rounding and of k additions each erring by the accumulation unit, relative to the sum of
/// the products' magnitudes, plus the host reference's own double-precision sum:
///   u_out |c| + (1 + u_out) ((1 + u_in)^2 (1 + u_acc)^k - 1) S + ((1 + 2^-53)^k - 1) S,
/// S = sum over k of |a b|. 0 for an exact GEMM (int8 into int32).
double GemmTolerance(const GemmNumerics& m, std::uint64_t k, double exact, double abs_sum);

/// The exact value of one output element and the sum of its products' magnitudes.
struct GemmReference {
  double value = 0;
  double abs_sum = 0;
};
/// Element `index` of the output buffer of an n x n GEMM on GemmRandomValue inputs of type
/// `t`, in MatmulExpectedAt's layouts: C = A x B row-major, or (`a_times_b_transposed`) the TN
/// GEMMs' D = A x B^T column-major. Exact: products of the inputs are exact in double, and
/// the double sum's error is in GemmTolerance.
GemmReference GemmRandomExpectedAt(GemmInput t, std::uint64_t n, std::uint64_t index, bool a_times_b_transposed);

/// int8's exact sum of every element of its output (int32 elements summed as int64): sum over
/// k of A's column k summed times B's line k summed, O(n^2).
std::int64_t GemmRandomInt8Total(std::uint64_t n, bool a_times_b_transposed);

/// The largest |element| a correct output can hold: S = k x max|a| x max|b| (inputs below 1
/// in magnitude for the floating types, 128 x 128 for int8) plus GemmTolerance at c = S. An
/// element beyond it, or not finite, is wrong whatever the sampled elements say: the device
/// checks every element against it.
double GemmOutputBound(const GemmNumerics& m, GemmInput t, std::uint64_t k);

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
