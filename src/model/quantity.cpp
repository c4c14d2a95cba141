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
};

Rule RuleOf(Quantity q) {
  switch (q) {
    case Quantity::kParams: return {1e6, false, 1e15, false, "parameters"};
    case Quantity::kGpuCount: return {1, false, 65536, true, "GPUs"};
    case Quantity::kBatch: return {1, false, 1 << 20, true, "sequences"};
    case Quantity::kTokens: return {1, false, 1 << 24, true, "tokens"};
    case Quantity::kRequestRate: return {0, true, 1e6, false, "requests per second"};
    case Quantity::kUsers: return {1, false, 1e8, true, "users"};
    case Quantity::kSeconds: return {0, false, 86400, false, "seconds"};
    case Quantity::kPrice: return {0, true, 1e4, false, "US dollars per GPU-hour"};
    case Quantity::kTrainTokens: return {1, false, 1e15, true, "tokens"};
    case Quantity::kFlops: return {0, false, 1e21, false, "FLOP"};
    case Quantity::kBytes: return {0, false, 1e16, false, "bytes"};
    case Quantity::kCallsPerSecond: return {0, false, 1e9, false, "calls per second"};
    case Quantity::kFraction: return {0, false, 1, false, "(a fraction)"};
    case Quantity::kHeadroom: return {0, true, 1, false, "(a fraction of memory)"};
    case Quantity::kLoraRank: return {1, false, 65536, true, "(rank)"};
    case Quantity::kElements: return {1, false, 1e13, false, "elements"};
    case Quantity::kMatrixOrder: return {1, false, 1e6, true, "(matrix order)"};
    case Quantity::kPixels: return {1, false, 1e12, false, "pixels"};
    case Quantity::kFilterWidth: return {1, false, 101, true, "(filter width)"};
    case Quantity::kFlopRate: return {0, true, 1e18, false, "FLOP/s"};
    case Quantity::kByteRate: return {0, true, 1e15, false, "bytes/s"};
    case Quantity::kListLength: return {1, false, 100, true, "rows"};
  }
  return {0, false, 0, false, ""};
}

std::string Figure(double v) { return std::fabs(v) < 1e9 && std::floor(v) == v ? fmt::format("{:.0f}", v) : fmt::format("{:g}", v); }

std::string Range(const Rule& r) {
  return fmt::format("{} {} to {} {}", r.min_exclusive ? "above" : "from", Figure(r.min), Figure(r.max), r.unit);
}

}  // namespace

double QuantityLimit(Quantity quantity) { return RuleOf(quantity).max; }

core::Status CheckQuantity(Quantity quantity, double value, std::string_view flag, bool allow_zero) {
  const Rule r = RuleOf(quantity);
  if (!std::isfinite(value)) {
    return core::Status::InvalidArgument(fmt::format("{} must be a finite number ({})", flag, Range(r)));
  }
  if (allow_zero && value == 0) return core::Status::Ok();
  if (value < r.min || (r.min_exclusive && value <= r.min)) {
    const char* what = value < 0 ? "cannot be negative" : value == 0 ? "cannot be zero" : "is too small";
    return core::Status::InvalidArgument(fmt::format("{} {} (got {}; accepted: {})", flag, what, Figure(value), Range(r)));
  }
  if (r.whole && std::floor(value) != value) {
    return core::Status::InvalidArgument(fmt::format("{} must be a whole number (got {})", flag, Figure(value)));
  }
  if (value > r.max) {
    return core::Status::InvalidArgument(fmt::format("{} {} is absurd (limit {} {})", flag, Figure(value), Figure(r.max), r.unit));
  }
  return core::Status::Ok();
}

core::Status CheckGpuName(std::string_view name, std::string_view flag) {
  for (char c : name) {
    if (!std::isspace(static_cast<unsigned char>(c))) return core::Status::Ok();
  }
  return core::Status::InvalidArgument(fmt::format("{} needs a GPU name (e.g. h100, 4090, l40s)", flag),
                                       "run 'gpuprobe gpus' for the list");
}

}  // namespace gpuprobe::model
