// libFuzzer target: ReadEngineLog and CheckEngineLog (`plan --from-log`, engine start-up logs).
// Seeds: the real logs under tests/fixtures/engine_logs/logs.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "telemetry/engine_log.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto facts = gpuprobe::telemetry::ReadEngineLog(std::string_view(reinterpret_cast<const char*>(data), size));
  (void)gpuprobe::telemetry::CheckEngineLog(facts);
  return 0;
}
