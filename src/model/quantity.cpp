#include "model/quantity.h"

#include <cctype>
#include <cmath>

#include <fmt/format.h>

namespace gpuprobe::model {
namespace {

struct Rule {
  double min;          // smallest accepted value
  bool min_exclusive;  // true: the value must be above min
  double max;
  bool whole;
  const char* unit;    // what the number counts, for the message
  const char* unit_key;  // the same in the texts (en, zh)
};

Rule RuleOf(Quantity q) {
  switch (q) {
    case Quantity::kParams: return {1e6, false, 1e15, false, "parameters", "quantity.unit.parameters"};
    case Quantity::kGpuCount: return {1, false, 65536, true, "GPUs", "quantity.unit.gpus"};
    case Quantity::kBatch: return {1, false, 1 << 20, true, "sequences", "quantity.unit.sequences"};
    case Quantity::kTokens: return {1, false, 1 << 24, true, "tokens", "quantity.unit.tokens"};
    case Quantity::kRequestRate: return {0, true, 1e6, false, "requests per second", "quantity.unit.rps"};
    case Quantity::kUsers: return {1, false, 1e8, true, "users", "quantity.unit.users"};
    case Quantity::kSeconds: return {0, false, 86400, false, "seconds", "quantity.unit.seconds"};
    case Quantity::kPrice: return {0, true, 1e4, false, "US dollars per GPU-hour", "quantity.unit.usd_gpu_hour"};
    case Quantity::kTrainTokens: return {1, false, 1e15, true, "tokens", "quantity.unit.tokens"};
    case Quantity::kFlops: return {0, false, 1e21, false, "FLOP", "quantity.unit.flop"};
    case Quantity::kBytes: return {0, false, 1e16, false, "bytes", "quantity.unit.bytes"};
    case Quantity::kCallsPerSecond: return {0, false, 1e9, false, "calls per second", "quantity.unit.calls_per_second"};
    case Quantity::kFraction: return {0, false, 1, false, "(a fraction)", "quantity.unit.fraction"};
    case Quantity::kHeadroom: return {0, true, 1, false, "(a fraction of memory)", "quantity.unit.fraction_memory"};
    case Quantity::kLoraRank: return {1, false, 65536, true, "(rank)", "quantity.unit.rank"};
    case Quantity::kElements: return {1, false, 1e13, false, "elements", "quantity.unit.elements"};
    case Quantity::kMatrixOrder: return {1, false, 1e6, true, "(matrix order)", "quantity.unit.matrix_order"};
    case Quantity::kPixels: return {1, false, 1e12, false, "pixels", "quantity.unit.pixels"};
    case Quantity::kFilterWidth: return {1, false, 101, true, "(filter width)", "quantity.unit.filter_width"};
    case Quantity::kFlopRate: return {0, true, 1e18, false, "FLOP/s", "quantity.unit.flop_rate"};
    case Quantity::kByteRate: return {0, true, 1e15, false, "bytes/s", "quantity.unit.byte_rate"};
    case Quantity::kListLength: return {1, false, 100, true, "rows", "quantity.unit.rows"};
  }
  return {0, false, 0, false, "", "quantity.unit.none"};
}

std::string Figure(double v) { return std::fabs(v) < 1e9 && std::floor(v) == v ? fmt::format("{:.0f}", v) : fmt::format("{:g}", v); }

std::string Range(const Rule& r) {
  return fmt::format("{} {} to {} {}", r.min_exclusive ? "above" : "from", Figure(r.min), Figure(r.max), r.unit);
}

}  // namespace

double QuantityLimit(Quantity quantity) { return RuleOf(quantity).max; }

// The arguments every keyed message of a rule shares: the flag, the value, the range.
core::MessageArgs ArgsOf(const Rule& r, std::string_view flag, double value) {
  return {{"flag", std::string(flag)},
          {"value", Figure(value)},
          {"min", Figure(r.min)},
          {"max", Figure(r.max)},
          {"unit_key", r.unit_key},
          {"range_key", r.min_exclusive ? "quantity.range.above" : "quantity.range.from"}};
}

core::Status CheckQuantity(Quantity quantity, double value, std::string_view flag, bool allow_zero) {
  const Rule r = RuleOf(quantity);
  if (!std::isfinite(value)) {
    return core::Status::InvalidArgument(fmt::format("{} must be a finite number ({})", flag, Range(r)))
        .WithKeys("error.quantity.not_finite", ArgsOf(r, flag, value));
  }
  if (allow_zero && value == 0) return core::Status::Ok();
  if (value < r.min || (r.min_exclusive && value <= r.min)) {
    const char* what = value < 0 ? "cannot be negative" : value == 0 ? "cannot be zero" : "is too small";
    const char* key = value < 0 ? "error.quantity.negative" : value == 0 ? "error.quantity.zero" : "error.quantity.too_small";
    return core::Status::InvalidArgument(fmt::format("{} {} (got {}; accepted: {})", flag, what, Figure(value), Range(r)))
        .WithKeys(key, ArgsOf(r, flag, value));
  }
  if (r.whole && std::floor(value) != value) {
    return core::Status::InvalidArgument(fmt::format("{} must be a whole number (got {})", flag, Figure(value)))
        .WithKeys("error.quantity.whole", ArgsOf(r, flag, value));
  }
  if (value > r.max) {
    // A fraction's 1 is its definition, not a sanity limit: "at most", not "absurd".
    if (quantity == Quantity::kFraction || quantity == Quantity::kHeadroom) {
      return core::Status::InvalidArgument(fmt::format("{} must be at most {} {} (got {})", flag, Figure(r.max), r.unit, Figure(value)))
          .WithKeys("error.quantity.at_most", ArgsOf(r, flag, value));
    }
    return core::Status::InvalidArgument(fmt::format("{} {} is absurd (limit {} {})", flag, Figure(value), Figure(r.max), r.unit))
        .WithKeys("error.quantity.absurd", ArgsOf(r, flag, value));
  }
  return core::Status::Ok();
}

core::Status CheckGpuName(std::string_view name, std::string_view flag) {
  for (char c : name) {
    if (!std::isspace(static_cast<unsigned char>(c))) return core::Status::Ok();
  }
  return core::Status::InvalidArgument(fmt::format("{} needs a GPU name (e.g. h100, 4090, l40s)", flag),
                                       "run 'gpuprobe gpus' for the list")
      .WithKeys("error.quantity.gpu_name", {{"flag", std::string(flag)}}, "error.unknown.gpu.hint");
}

}  // namespace gpuprobe::model
