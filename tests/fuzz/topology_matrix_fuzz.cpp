// libFuzzer target: ParseTopologyMatrix (`inspect --topology` and `--from` on interconnect output).
// Seeds: the real outputs under tests/fixtures/topology.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "telemetry/topology_matrix.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto parsed = gpuprobe::telemetry::ParseTopologyMatrix(std::string_view(reinterpret_cast<const char*>(data), size));
  (void)parsed;
  return 0;
}
