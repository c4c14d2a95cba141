// libFuzzer target: ParseP2pMatrix (`inspect --topology` and `--from` on interconnect output).
// Seeds: the real outputs under tests/fixtures/topology.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "telemetry/p2p_matrix.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto parsed = gpuprobe::telemetry::ParseP2pMatrix(std::string_view(reinterpret_cast<const char*>(data), size));
  (void)parsed;
  return 0;
}
