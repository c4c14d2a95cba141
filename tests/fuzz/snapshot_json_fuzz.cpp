// libFuzzer target: gpuprobe's own inspect JSON. Seeds: tests/fuzz/seeds/snapshot_json.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_common.h"
#include "telemetry/snapshot_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto parsed = gpuprobe::telemetry::ParseSnapshotJson(std::string_view(reinterpret_cast<const char*>(data), size));
  if (parsed.ok()) gpuprobe::fuzz::Downstream(*parsed);
  return 0;
}
