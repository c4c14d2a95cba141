#include "core/clock.h"

#include <chrono>
#include <cstdlib>
#include <string>

namespace gpuprobe::core {

Result<std::int64_t> NowEpochSeconds() {
  const char* fixed = std::getenv("GPUPROBE_NOW");
  if (fixed == nullptr) {
    return static_cast<std::int64_t>(
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
  }
  std::string text(fixed);
  bool digits = !text.empty() && text.size() <= 10 && text.find_first_not_of("0123456789") == std::string::npos;
  std::int64_t value = digits ? std::stoll(text) : -1;
  if (value < 0 || value > 7258118400LL) {
    return Status::InvalidArgument("GPUPROBE_NOW='" + text + "' is not a time: give whole seconds since 1970-01-01 (UTC)")
        .WithKeys("error.clock.now_invalid", {{"value", text}});
  }
  return value;
}

}  // namespace gpuprobe::core
