// libFuzzer target: nvidia-smi -q -x XML. Seeds: tests/fixtures/nvidia-smi/xml,
// tests/fixtures/captures_public/xml.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_common.h"
#include "telemetry/smi_xml_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto parsed = gpuprobe::telemetry::ParseSmiXml(std::string_view(reinterpret_cast<const char*>(data), size));
  if (parsed.ok()) gpuprobe::fuzz::Downstream(parsed->gpus);
  return 0;
}
