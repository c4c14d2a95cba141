// One validator per input quantity, used by every flag that takes it in every verb (plan,
// gpus, advise): the same limits and the same message for "--batch -3" wherever a batch is
// asked for. Each check names the flag it was given as, so the user knows what to fix; the
// CLI turns the InvalidArgument into exit status 2.
//
// Thread safety: pure functions.
#pragma once

#include <string_view>

#include "core/status.h"

namespace gpuprobe::model {

enum class Quantity {
  kParams,         ///< a model's parameter count: 1e6 .. 1e15
  kGpuCount,       ///< GPUs of a split (--tp, --pp, --ep): whole, 1 .. 65536
  kBatch,          ///< sequences at once: whole, 1 .. 2^20
  kTokens,         ///< tokens of a sequence, prompt or answer: whole, 1 .. 2^24
  kRequestRate,    ///< requests per second: > 0 .. 1e6
  kUsers,          ///< concurrent users: whole, 1 .. 1e8
  kSeconds,        ///< a duration such as think time: 0 .. 1 day
  kPrice,          ///< US dollars per GPU-hour: > 0 .. 10,000
  kTrainTokens,    ///< tokens a training run processes: whole, 1 .. 1e15
  kFlops,          ///< floating-point operations per call: 0 .. 1e21
  kBytes,          ///< bytes per call: 0 .. 1e16
  kCallsPerSecond, ///< calls per second of a service: 0 .. 1e9
  kFraction,       ///< a share: 0 .. 1
  kHeadroom,       ///< the fraction of memory a plan may fill: > 0 .. 1
  kLoraRank,       ///< LoRA rank: whole, 1 .. 65536
  kElements,       ///< elements of a vector workload: 1 .. 1e13
  kMatrixOrder,    ///< n of an n x n matrix: whole, 1 .. 1e6
  kPixels,         ///< pixels of an image: 1 .. 1e12
  kFilterWidth,    ///< a k x k filter's k: whole, 1 .. 101
  kFlopRate,       ///< FLOP/s of a processor: > 0 .. 1e18
  kByteRate,       ///< bytes/s of a memory: > 0 .. 1e15
  kListLength,     ///< how many rows to show: whole, 1 .. 100
};

/// Checks `value` given as `flag` ("--batch"). InvalidArgument naming the flag, the value and
/// the accepted range when the value is not finite, negative, zero where zero makes no sense,
/// fractional where a whole number is needed, or beyond the limit (absurd). `allow_zero`
/// admits 0 for a quantity that is otherwise positive (--shared-prefix 0 = none).
core::Status CheckQuantity(Quantity quantity, double value, std::string_view flag, bool allow_zero = false);

/// Largest accepted value of a quantity (for searches that must stay inside the limits).
double QuantityLimit(Quantity quantity);

/// A GPU name given as `flag`: InvalidArgument when empty or blank.
core::Status CheckGpuName(std::string_view name, std::string_view flag);

}  // namespace gpuprobe::model
