// The compute peaks' chains: every GPU thread runs kChainsPerThread independent chains of
// dependent steps, one arithmetic instruction per step (fp32/fp64 FMA, a half2 or bf16x2
// FMA that carries two chains, the int32 multiply-add, the int8 dot product dp4a), and the
// host replays every chain to the
// bit. The constants, the starts, the host replays and the declared work live here, CUDA-
// free, so the tests check on the CPU what the kernels compute. The kernels receive each
// chain's multiplier and addend as arguments: with compile-time constants the compiler may
// compose several integer steps into one (x*a+b twice is x*a^2 + (ab+b): associativity
// holds for integers), and the kernel would do a quarter of the work it reports.
//
// Thread safety: pure functions and constants.
#pragma once

#include <cstdint>

#include "bench/benchmark.h"
#include "bench/host_device.h"

namespace gpuprobe::bench::gpu {

/// Independent chains per thread: enough to cover the FMA pipeline latency (4 cycles x 1
/// issue per cycle, and some slack for dual issue).
constexpr int kChainsPerThread = 8;
/// Dependent steps per chain in one kernel run.
constexpr std::uint64_t kChainSteps = 4096;
/// Steps per iteration of the kernels' loop, unrolled in the source: the loop's own counter,
/// compare and branch cost 3 issue slots per 32 x 8 arithmetic instructions (about 1%), and
/// the compiler is told not to unroll further, so the PTX test can count the instructions of
/// one iteration exactly.
constexpr int kChainUnroll = 32;
static_assert(kChainSteps % kChainUnroll == 0, "the kernels run whole iterations");

enum class ChainType { kFp64, kFp32, kFp16, kBf16, kInt32, kDp4a };

/// fp32 and fp64: x = x * 0.999 + 0.001, contracting towards 1.
constexpr float kChainA = 0.999f, kChainB = 0.001f;
/// The start of chain k on every thread: 1.125 .. 2.0, exact in every format here and never
/// the fixed point (a chain starting at 1.0 would not move in fp32).
GPUPROBE_HOST_DEVICE inline float ChainStart(int k) { return 1.125f + 0.125f * static_cast<float>(k); }

/// fp16: x = x * (1 + 2^-10) + 2^-10 as half bits. A contracting chain stalls within a few
/// steps at 11 bits (its step falls below half a unit in the last place); multiplying by one
/// unit above 1 adds at least one unit on every step, so the chain moves on all kChainSteps
/// steps and grows only by e^(steps / 1024): about 55x, far from fp16's 65504.
constexpr std::uint16_t kHalfChainA = 0x3C01, kHalfChainB = 0x1400;

/// bf16 (compute capability 8.0+): x = x * (1 + 2^-7) + 2^-10, the fp16 reasoning at 8 bits:
/// every step adds at least one unit in the last place; 4096 steps grow it by e^32, about
/// 8e13, far from bf16's 3.4e38.
constexpr std::uint16_t kBf16ChainA = 0x3F81, kBf16ChainB = 0x3A80;

/// int32: the 32-bit LCG step x = x * 1664525 + 1013904223 (modulo 2^32).
constexpr std::uint32_t kIntChainA = 1664525u, kIntChainB = 1013904223u;
GPUPROBE_HOST_DEVICE inline std::uint32_t IntChainStart(int k) { return 1u + 7u * static_cast<std::uint32_t>(k); }

/// int8 dot product: x = dp4a(x, a, b) = b + the four signed bytes of x times those of a
/// (32-bit, modulo 2^32): four multiply-adds in one instruction. The constants were picked so
/// that no chain revisits a value within 9000 steps (a dot product of bytes folds 2^32 states
/// into ~2^17, so such a map cycles; these stay clear of kChainSteps).
constexpr std::int32_t kDp4aChainA = static_cast<std::int32_t>(0x9251FE5Du);
constexpr std::int32_t kDp4aChainB = static_cast<std::int32_t>(0x797BC833u);
GPUPROBE_HOST_DEVICE inline std::int32_t Dp4aChainStart(int k) {
  return static_cast<std::int32_t>(1u + 7u * static_cast<std::uint32_t>(k) * 0x01010101u);
}
/// dp4a on the host, as the device's __dp4a(int, int, int) computes it.
std::int32_t Dp4a(std::int32_t x, std::int32_t y, std::int32_t c);

/// The value of chain k after `steps` steps, computed on the host the way the device does:
/// fp32 with fmaf, fp64 with fma, int32 modulo 2^32, fp16 and bf16 with one rounding per
/// FMA (soft_float.h; bits), dp4a byte by byte. Bit-exact: a device result that differs in
/// one bit is wrong.
float ReplayChainF32(int k, std::uint64_t steps);
double ReplayChainF64(int k, std::uint64_t steps);
std::uint16_t ReplayChainF16(int k, std::uint64_t steps);
std::uint16_t ReplayChainBf16(int k, std::uint64_t steps);
std::uint32_t ReplayChainI32(int k, std::uint64_t steps);
std::int32_t ReplayChainDp4a(int k, std::uint64_t steps);

/// The work of `threads` threads x kChainsPerThread chains x `steps`: an FMA is 2 FLOPs
/// (fp16, bf16: per lane), the int32 multiply-add 2 ops (a multiply and an add), a dp4a 8
/// ops (four multiplies, four adds).
Work ChainWork(ChainType type, std::uint64_t threads, std::uint64_t steps);

}  // namespace gpuprobe::bench::gpu
