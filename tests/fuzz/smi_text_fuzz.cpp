// libFuzzer target: nvidia-smi -q text. Seeds: tests/fixtures/captures_public/q-text.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_common.h"
#include "telemetry/smi_text_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gpuprobe::telemetry::smi::Diagnostics notes;
  auto parsed = gpuprobe::telemetry::ParseSmiText(std::string_view(reinterpret_cast<const char*>(data), size), &notes);
  if (parsed.ok()) gpuprobe::fuzz::Downstream(*parsed);
  return 0;
}
