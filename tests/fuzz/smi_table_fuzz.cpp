// libFuzzer target: the default nvidia-smi table. Seeds: tests/fixtures/captures_public/table.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_common.h"
#include "telemetry/smi_table_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gpuprobe::telemetry::smi::Diagnostics notes;
  auto parsed = gpuprobe::telemetry::ParseSmiTable(std::string_view(reinterpret_cast<const char*>(data), size), &notes);
  if (parsed.ok()) gpuprobe::fuzz::Downstream(*parsed);
  return 0;
}
