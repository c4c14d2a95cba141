// libFuzzer target: ReadCapture, the entry every `inspect --from` goes through (format
// detection, sectioned captures, each parser). Seeds: every fixture directory.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_common.h"
#include "telemetry/capture_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto parsed = gpuprobe::telemetry::ReadCapture(std::string_view(reinterpret_cast<const char*>(data), size));
  if (parsed.ok()) {
    for (const auto& set : parsed->sets) gpuprobe::fuzz::Downstream(set.gpus);
  }
  return 0;
}
